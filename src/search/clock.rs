//! How long one move may think: the one time allocation of the USI engine
//! (`go movetime`, `go btime ... byoyomi ...`) and of the arena's clocked
//! matches.
//!
//! A [`MoveClock`] is what the side to move has for this move, as USI's `go`
//! states it: a fixed move time, or its main time left with an increment and
//! byoyomi. [`MoveClock::budget`] turns it into the searcher's two time
//! limits ([`Limits::soft_time`]: no new iteration starts after it;
//! [`Limits::hard_time`]: the search aborts and answers with what it has):
//!
//! - **Move time `T`**: both limits are `T − margin(T)`; the time cannot be
//!   saved, so the search uses all of it (95 % at 100 ms, 97 % from 3 s on).
//! - **Clock** (main time `t`, increment `i`, byoyomi `b`): the hard limit is
//!   `t / 30 + i + b`, never more than `t + b − margin(t + b)` (the most the
//!   move may take without losing on time). Main time saved is kept for
//!   later moves, so no iteration starts after 60 % of the hard limit, unless
//!   byoyomi is left: byoyomi not used is lost, so iterations start until
//!   `b − margin` (at most the hard limit).
//!
//! The margin, `clamp(ceiling / 20, 5 ms, 150 ms)`, pays for what the search
//! does not see: the answer's trip through the pipes, the thread and process
//! starting, a loaded machine. The search checks its clock every 1024 nodes
//! (about a millisecond), well inside it.
//!
//! Whether the increment of this move is already in `t` is the sender's
//! convention (the arena adds it before the move, `docs/arena.md`); the
//! ceiling `t + b` is safe under either.
//!
//! ```
//! use std::time::Duration;
//! use kifulearn::search::clock::MoveClock;
//!
//! let ms = Duration::from_millis;
//! let budget = MoveClock::MoveTime(ms(200)).budget();
//! assert_eq!((budget.soft, budget.hard), (ms(190), ms(190)));
//! let byoyomi = MoveClock::Clock { time: ms(0), inc: ms(0), byoyomi: ms(1000) };
//! assert_eq!(byoyomi.budget().hard, ms(950));
//! ```

use std::time::Duration;

use super::Limits;

/// A move may take this share of the main time left: `1 / MAIN_TIME_SHARE`.
pub const MAIN_TIME_SHARE: u32 = 30;

/// The shortest hard limit: a move with (almost) no time still searches its
/// first moves.
const LEAST: Duration = Duration::from_millis(1);

/// The time kept in hand below `ceiling`, the most a move may take:
/// `clamp(ceiling / 20, 5 ms, 150 ms)`.
pub fn margin(ceiling: Duration) -> Duration {
    whole_ms(ceiling / 20).clamp(Duration::from_millis(5), Duration::from_millis(150))
}

/// `d` less its fraction of a millisecond (USI counts whole milliseconds).
fn whole_ms(d: Duration) -> Duration {
    Duration::from_millis(d.as_millis() as u64)
}

/// The time the side to move has for this move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveClock {
    /// `go movetime T`: this long for this move, no more, none saved.
    MoveTime(Duration),
    /// `go btime/wtime binc/winc byoyomi`: the side's own clock.
    Clock {
        /// Main time left.
        time: Duration,
        /// Added to the main time every move (Fischer).
        inc: Duration,
        /// Time per move once the main time is spent (秒読み).
        byoyomi: Duration,
    },
}

/// The searcher's time limits for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// No new iteration starts after this.
    pub soft: Duration,
    /// The search aborts at this.
    pub hard: Duration,
}

impl MoveClock {
    /// The most the move may take without losing on time: the move time,
    /// or the main time plus byoyomi.
    pub fn ceiling(self) -> Duration {
        match self {
            MoveClock::MoveTime(t) => t,
            MoveClock::Clock { time, byoyomi, .. } => time + byoyomi,
        }
    }

    /// The soft and hard limits of the module's rules.
    pub fn budget(self) -> Budget {
        let ceiling = self.ceiling();
        let margin = margin(ceiling);
        let most = ceiling.saturating_sub(margin).max(LEAST);
        match self {
            MoveClock::MoveTime(_) => Budget {
                soft: most,
                hard: most,
            },
            MoveClock::Clock { time, inc, byoyomi } => {
                let share = whole_ms(time / MAIN_TIME_SHARE);
                let hard = (share + inc + byoyomi).clamp(LEAST, most);
                let unsaved = byoyomi.saturating_sub(margin).min(hard);
                Budget {
                    soft: whole_ms(hard * 6 / 10).max(unsaved),
                    hard,
                }
            }
        }
    }

    /// `limits` with this move's soft and hard times.
    pub fn limits(self, limits: Limits) -> Limits {
        let budget = self.budget();
        Limits {
            soft_time: Some(budget.soft),
            hard_time: Some(budget.hard),
            ..limits
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn clock(time: u64, inc: u64, byoyomi: u64) -> MoveClock {
        MoveClock::Clock {
            time: ms(time),
            inc: ms(inc),
            byoyomi: ms(byoyomi),
        }
    }

    #[test]
    fn a_move_time_is_spent_almost_whole() {
        for (t, hard) in [(50, 45), (100, 95), (200, 190), (1000, 950), (10_000, 9850)] {
            let b = MoveClock::MoveTime(ms(t)).budget();
            assert_eq!((b.soft, b.hard), (ms(hard), ms(hard)), "movetime {t}");
            if t >= 100 {
                assert!(b.hard >= ms(t) * 9 / 10);
            }
        }
        assert_eq!(MoveClock::MoveTime(ms(0)).budget().hard, LEAST);
    }

    #[test]
    fn a_clock_gives_a_share_and_never_its_ceiling() {
        // Byoyomi only: all of it but the margin, iterations started throughout.
        let b = clock(0, 0, 1000).budget();
        assert_eq!((b.soft, b.hard), (ms(950), ms(950)));
        // Main time: a thirtieth, no new iteration after 60 % of it.
        let b = clock(60_000, 0, 0).budget();
        assert_eq!((b.soft, b.hard), (ms(1200), ms(2000)));
        // 100 ms left, sudden death: a thirtieth of it, not the old flat 10 ms.
        assert_eq!(clock(100, 0, 0).budget().hard, ms(3));
        // Increment: the share plus the increment, within what is on the clock.
        let b = clock(3000, 1000, 0).budget();
        assert_eq!(b.hard, ms(1100));
        let b = clock(500, 1000, 0).budget();
        assert_eq!(b.hard, ms(475), "time + byoyomi - margin caps it");
        // Main time and byoyomi: the byoyomi at least is searched through.
        let b = clock(30_000, 0, 1000).budget();
        assert_eq!((b.soft, b.hard), (ms(1200), ms(2000)));
        let b = clock(3000, 0, 2000).budget();
        assert_eq!((b.soft, b.hard), (ms(2000 - 150), ms(2100)));
        for c in [clock(0, 0, 0), clock(7, 0, 0), clock(1, 5, 3)] {
            let b = c.budget();
            assert!(b.soft <= b.hard && b.hard >= LEAST, "{c:?} {b:?}");
        }
    }

    #[test]
    fn the_hard_limit_stays_below_the_ceiling() {
        for time in [0, 10, 100, 999, 5000, 120_000] {
            for inc in [0, 100, 2000] {
                for byoyomi in [0, 100, 1000, 10_000] {
                    let c = clock(time, inc, byoyomi);
                    let b = c.budget();
                    if c.ceiling() >= ms(10) {
                        assert!(b.hard + margin(c.ceiling()) <= c.ceiling(), "{c:?} {b:?}");
                    }
                    assert!(b.soft <= b.hard, "{c:?} {b:?}");
                }
            }
        }
    }
}
