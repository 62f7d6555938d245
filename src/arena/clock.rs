//! A match's clock: the time control both sides play under, and each side's
//! time left in one game.
//!
//! - **Move time** `T`: every move may take `T`; nothing carries over.
//! - **Clock**: main time `t` per game, an increment `i` added at the start
//!   of each of the side's turns (so `go` states it with this move's
//!   increment in, and the move may use it), and byoyomi `b`: once the main
//!   time is spent, each move may take `b`. A move that takes `u` leaves
//!   `max(0, main − u)`.
//!
//! A move may take [`GameClock::allowed`] (`T`, or main time plus byoyomi);
//! the referee adds the match's tolerance (`--time-margin`) before it is
//! lost on time. How much of that a search spends is
//! [`crate::search::clock`]'s rule, for our sides and the USI engine alike.

use std::time::Duration;

use crate::search::clock::MoveClock;
use crate::shogi::Color;

/// The time control of a match: what both sides get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// `--movetime MS`: this long for every move.
    MoveTime(Duration),
    /// `--time MS`, `--inc MS`, `--byoyomi MS`: main time per game,
    /// increment per move, byoyomi.
    Clock {
        /// Main time per game.
        time: Duration,
        /// Added at the start of each of the side's turns.
        inc: Duration,
        /// Each move's time once the main time is spent.
        byoyomi: Duration,
    },
}

impl TimeControl {
    /// The time control of `--movetime`, `--time`, `--inc` and `--byoyomi`
    /// (milliseconds): `None` without any of them; an error naming the option
    /// for what no game can be played on (a move time with a clock, byoyomi
    /// with an increment, a zero move time or an all-zero clock).
    pub fn from_options(
        movetime: Option<u64>,
        time: Option<u64>,
        inc: Option<u64>,
        byoyomi: Option<u64>,
    ) -> Result<Option<Self>, String> {
        let ms = |v: Option<u64>| Duration::from_millis(v.unwrap_or(0));
        let clocked = time.is_some() || inc.is_some() || byoyomi.is_some();
        match movetime {
            Some(_) if clocked => Err("--movetime: not with --time, --inc or --byoyomi".into()),
            Some(0) => Err("--movetime 0: expected at least 1 ms".into()),
            Some(t) => Ok(Some(TimeControl::MoveTime(ms(Some(t))))),
            None if !clocked => Ok(None),
            None if inc.is_some_and(|i| i > 0) && byoyomi.is_some_and(|b| b > 0) => {
                Err("--inc with --byoyomi: USI states one or the other".into())
            }
            None if ms(time) + ms(inc) + ms(byoyomi) == Duration::ZERO => {
                Err("--time, --inc and --byoyomi all 0: no time to move".into())
            }
            None => Ok(Some(TimeControl::Clock {
                time: ms(time),
                inc: ms(inc),
                byoyomi: ms(byoyomi),
            })),
        }
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: &Duration| d.as_millis();
        match self {
            TimeControl::MoveTime(t) => write!(f, "movetime {} ms", ms(t)),
            TimeControl::Clock { time, inc, byoyomi } => write!(
                f,
                "time {} ms, inc {} ms, byoyomi {} ms",
                ms(time),
                ms(inc),
                ms(byoyomi)
            ),
        }
    }
}

/// Both sides' time in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameClock {
    control: TimeControl,
    /// Main time left, Black's then White's.
    left: [Duration; 2],
}

fn index(side: Color) -> usize {
    match side {
        Color::Black => 0,
        Color::White => 1,
    }
}

impl GameClock {
    /// The clocks at the start of a game.
    pub fn new(control: TimeControl) -> Self {
        let time = match control {
            TimeControl::MoveTime(_) => Duration::ZERO,
            TimeControl::Clock { time, .. } => time,
        };
        Self {
            control,
            left: [time; 2],
        }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// `side`'s main time left.
    pub fn left(&self, side: Color) -> Duration {
        self.left[index(side)]
    }

    /// Starts `side`'s turn: its increment is added to its main time.
    pub fn start_turn(&mut self, side: Color) {
        if let TimeControl::Clock { inc, .. } = self.control {
            self.left[index(side)] += inc;
        }
    }

    /// What `side` has for its move now, for its search.
    pub fn move_clock(&self, side: Color) -> MoveClock {
        match self.control {
            TimeControl::MoveTime(t) => MoveClock::MoveTime(t),
            TimeControl::Clock { inc, byoyomi, .. } => MoveClock::Clock {
                time: self.left(side),
                inc,
                byoyomi,
            },
        }
    }

    /// The longest `side`'s move may take now: the move time, or its main
    /// time plus byoyomi.
    pub fn allowed(&self, side: Color) -> Duration {
        self.move_clock(side).ceiling()
    }

    /// `side`'s move took `used`.
    pub fn spend(&mut self, side: Color, used: Duration) {
        let left = &mut self.left[index(side)];
        *left = left.saturating_sub(used);
    }

    /// The USI `go` for the side to move: `go movetime T`, or `go btime B
    /// wtime W` with `binc I winc I` (an increment) or `byoyomi Y`.
    pub fn go_command(&self) -> String {
        let ms = |d: Duration| d.as_millis();
        match self.control {
            TimeControl::MoveTime(t) => format!("go movetime {}", ms(t)),
            TimeControl::Clock { inc, byoyomi, .. } => {
                let mut go = format!("go btime {} wtime {}", ms(self.left[0]), ms(self.left[1]));
                if !inc.is_zero() {
                    go.push_str(&format!(" binc {} winc {}", ms(inc), ms(inc)));
                }
                if !byoyomi.is_zero() || inc.is_zero() {
                    go.push_str(&format!(" byoyomi {}", ms(byoyomi)));
                }
                go
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn byoyomi_starts_when_the_main_time_is_spent() {
        let mut c = GameClock::new(TimeControl::Clock {
            time: ms(1000),
            inc: ms(0),
            byoyomi: ms(300),
        });
        c.start_turn(Color::Black);
        assert_eq!(c.allowed(Color::Black), ms(1300));
        assert_eq!(c.go_command(), "go btime 1000 wtime 1000 byoyomi 300");
        c.spend(Color::Black, ms(1200));
        assert_eq!(c.left(Color::Black), ms(0));
        assert_eq!(c.allowed(Color::Black), ms(300));
        assert_eq!(c.allowed(Color::White), ms(1300));
        assert_eq!(c.go_command(), "go btime 0 wtime 1000 byoyomi 300");
    }

    #[test]
    fn an_increment_is_added_at_the_start_of_each_turn() {
        let mut c = GameClock::new(TimeControl::Clock {
            time: ms(2000),
            inc: ms(100),
            byoyomi: ms(0),
        });
        c.start_turn(Color::White);
        assert_eq!(c.allowed(Color::White), ms(2100));
        assert_eq!(c.go_command(), "go btime 2000 wtime 2100 binc 100 winc 100");
        c.spend(Color::White, ms(600));
        c.start_turn(Color::White);
        assert_eq!(c.left(Color::White), ms(1600));
        assert_eq!(
            c.move_clock(Color::White),
            MoveClock::Clock {
                time: ms(1600),
                inc: ms(100),
                byoyomi: ms(0)
            }
        );
    }

    #[test]
    fn options_make_one_time_control_or_say_why_not() {
        let tc = TimeControl::from_options;
        assert_eq!(tc(None, None, None, None), Ok(None));
        assert_eq!(
            tc(Some(50), None, None, None),
            Ok(Some(TimeControl::MoveTime(ms(50))))
        );
        assert_eq!(
            tc(None, Some(60_000), None, Some(1000)),
            Ok(Some(TimeControl::Clock {
                time: ms(60_000),
                inc: ms(0),
                byoyomi: ms(1000)
            }))
        );
        assert!(tc(None, None, None, Some(300)).unwrap().is_some());
        for (bad, why) in [
            (tc(Some(50), None, None, Some(100)), "--movetime: not with"),
            (tc(Some(0), None, None, None), "--movetime 0"),
            (
                tc(None, Some(1000), Some(10), Some(100)),
                "--inc with --byoyomi",
            ),
            (tc(None, Some(0), None, Some(0)), "all 0"),
        ] {
            assert!(bad.as_ref().unwrap_err().contains(why), "{bad:?}");
        }
    }

    #[test]
    fn a_move_time_is_the_same_every_move() {
        let mut c = GameClock::new(TimeControl::MoveTime(ms(50)));
        c.start_turn(Color::Black);
        c.spend(Color::Black, ms(49));
        assert_eq!(c.allowed(Color::Black), ms(50));
        assert_eq!(c.go_command(), "go movetime 50");
        assert_eq!(TimeControl::MoveTime(ms(50)).to_string(), "movetime 50 ms");
    }
}
