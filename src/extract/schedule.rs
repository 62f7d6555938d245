//! Who labels what: the positions of a run's games handed to every thread
//! of the pool, oldest game first, each game's text written in ply order by
//! whichever thread finishes the position it was waiting for.
//!
//! Rayon's parallel iterators were not enough here (measured on the speed
//! bench's middle games, `docs/speed.md`):
//!
//! - over games, the games not yet started sit as jobs in the threads'
//!   deques, and an idle thread steals the *oldest* job of another: a game
//!   queued at the start, never a position of the game that thread is busy
//!   with. One thread went through a game's four 46–92 ms positions one
//!   after the other, then the other waited for the last of them;
//! - over a game's positions, the thread that runs the game waits at the end
//!   for the positions another thread took, and cannot start a game meanwhile.
//!
//! Here no thread waits while there is a position to label: a thread takes
//! the next unlabelled position of the oldest game under way, else opens the
//! next game, and the thread that labels the position a game's text was
//! waiting for writes it, with every later one already labelled.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Positions of a game that may be labelled ahead of its first unwritten
/// one while another game could be opened instead: bounds the text held in
/// memory behind one slow position.
pub const AHEAD: usize = 64;

/// A run's games as [`label_games`] sees them.
pub trait Games: Sync {
    /// What a thread needs to label positions (a labeller and its buffers).
    type Worker;
    /// An open game's positions, read by every thread.
    type Positions: Send + Sync;
    /// An open game's output, written in position order.
    type Sink: Send;
    /// A labelled position's text (or its error).
    type Text: Send;
    /// A finished game's result.
    type Done: Send;
    /// An error that stops the run.
    type Error: Send;

    /// The number of games.
    fn count(&self) -> usize;
    /// A new worker, one per thread.
    fn worker(&self) -> Self::Worker;
    /// Opens game `i`: its positions (how many, and what labels them) and
    /// its output, or its result at once (resumed, unreadable).
    fn open(&self, i: usize) -> Result<Opened<Self>, Self::Error>;
    /// Labels position `k` of `positions`.
    fn label(&self, worker: &mut Self::Worker, positions: &Self::Positions, k: usize)
        -> Self::Text;
    /// Writes position `k`'s text; called for k = 0, 1, … in order.
    fn write(&self, sink: &mut Self::Sink, k: usize, text: Self::Text);
    /// Ends game `i` once every position is written.
    fn finish(&self, i: usize, sink: Self::Sink) -> Result<Self::Done, Self::Error>;
}

/// What [`Games::open`] gives.
pub enum Opened<G: Games + ?Sized> {
    /// The game's result, with nothing to label.
    Done(G::Done),
    /// A game with `count` positions to label and write to `sink`.
    Game {
        /// Its positions.
        positions: G::Positions,
        /// How many.
        count: usize,
        /// Its output.
        sink: G::Sink,
    },
}

/// An open game: its positions, and the texts labelled but not yet written.
struct Open<G: Games + ?Sized> {
    game: usize,
    positions: G::Positions,
    count: usize,
    /// Positions written (read without the lock when choosing what to label).
    written: AtomicUsize,
    out: Mutex<Out<G>>,
}

struct Out<G: Games + ?Sized> {
    /// The sink, absent while a thread writes to it (without the lock, so
    /// that the other threads can hand in texts meanwhile).
    sink: Option<G::Sink>,
    /// Positions taken out of `waiting` to be written.
    taken: usize,
    /// Texts from position `taken` on (`None`: not labelled yet).
    waiting: VecDeque<Option<G::Text>>,
}

/// The run's shared state: the games open (oldest first) with how many of
/// their positions are handed out, the next game to open, how many games
/// threads are opening.
struct State<G: Games + ?Sized> {
    open: Vec<(Arc<Open<G>>, usize)>,
    games: usize,
    next_game: usize,
    opening: usize,
    stopped: bool,
}

enum Task<G: Games + ?Sized> {
    Label(Arc<Open<G>>, usize),
    OpenGame(usize),
    Nothing,
}

/// Marks the end of a game's opening when dropped, and wakes the threads
/// waiting for it.
struct OpeningDone<'s, G: Games + ?Sized>(&'s Mutex<State<G>>, &'s Condvar);

impl<G: Games + ?Sized> Drop for OpeningDone<'_, G> {
    fn drop(&mut self) {
        lock(self.0).opening -= 1;
        self.1.notify_all();
    }
}

/// A game's result, once it has one.
type Slot<G> = Mutex<Option<Result<<G as Games>::Done, <G as Games>::Error>>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Labels every game of `games` on every thread of the current rayon pool
/// (the global one outside a pool) and returns their results in game order.
/// After an error no game is opened; the error of the lowest game is
/// returned once the games under way are finished.
pub fn label_games<G: Games>(games: &G) -> Result<Vec<G::Done>, G::Error> {
    let n = games.count();
    let state = Mutex::new(State::<G> {
        open: Vec::new(),
        games: n,
        next_game: 0,
        opening: 0,
        stopped: false,
    });
    let changed = Condvar::new();
    let results: Vec<Slot<G>> = (0..n).map(|_| Mutex::new(None)).collect();
    let store = |i: usize, result: Result<G::Done, G::Error>| {
        if result.is_err() {
            lock(&state).stopped = true;
        }
        *lock(&results[i]) = Some(result);
    };
    rayon::broadcast(|_| {
        let mut worker = games.worker();
        loop {
            match next_task(&state, &changed) {
                Task::Nothing => break,
                Task::OpenGame(i) => {
                    // Counts the opening down however it ends: a thread
                    // waiting for this game must not wait forever if
                    // opening it panics.
                    let _opening = OpeningDone(&state, &changed);
                    let opened = games.open(i);
                    let mut game = None;
                    match opened {
                        Err(e) => store(i, Err(e)),
                        Ok(Opened::Done(done)) => store(i, Ok(done)),
                        Ok(Opened::Game { sink, count: 0, .. }) => store(i, games.finish(i, sink)),
                        Ok(Opened::Game {
                            positions,
                            count,
                            sink,
                        }) => {
                            game = Some(Arc::new(Open {
                                game: i,
                                positions,
                                count,
                                written: AtomicUsize::new(0),
                                out: Mutex::new(Out {
                                    sink: Some(sink),
                                    taken: 0,
                                    waiting: (0..count).map(|_| None).collect(),
                                }),
                            }))
                        }
                    }
                    if let Some(open) = game {
                        let mut s = lock(&state);
                        let at = s.open.partition_point(|(o, _)| o.game < i);
                        s.open.insert(at, (open, 0));
                    }
                }
                Task::Label(open, k) => {
                    let text = games.label(&mut worker, &open.positions, k);
                    if let Some(sink) = deliver(games, &open, k, text) {
                        lock(&state).open.retain(|(o, _)| !Arc::ptr_eq(o, &open));
                        store(open.game, games.finish(open.game, sink));
                    }
                }
            }
        }
    });
    results
        .into_iter()
        .map_while(|slot| slot.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect()
}

/// The next thing for a thread to do: a position of the oldest game with
/// one to hand out within [`AHEAD`] of its first unwritten one, else the next
/// game, else any position still to hand out; while another thread opens a
/// game and there is nothing else, wait for it.
fn next_task<G: Games + ?Sized>(state: &Mutex<State<G>>, changed: &Condvar) -> Task<G> {
    let mut s = lock(state);
    loop {
        let within = |(o, handed): &(Arc<Open<G>>, usize)| {
            *handed < o.count && *handed < o.written.load(Ordering::Acquire) + AHEAD
        };
        let any = |(o, handed): &(Arc<Open<G>>, usize)| *handed < o.count;
        let pick = match s.open.iter().position(within) {
            Some(j) => Some(j),
            None if !s.stopped && s.next_game < s.games => {
                s.next_game += 1;
                s.opening += 1;
                return Task::OpenGame(s.next_game - 1);
            }
            None => s.open.iter().position(any),
        };
        if let Some(j) = pick {
            let (open, handed) = &mut s.open[j];
            *handed += 1;
            return Task::Label(Arc::clone(open), *handed - 1);
        }
        if s.opening == 0 {
            return Task::Nothing;
        }
        s = changed.wait(s).unwrap_or_else(PoisonError::into_inner);
    }
}

/// Hands position `k`'s text to its game. If the game was waiting for it
/// and no other thread is writing, writes it and every labelled position
/// after it, outside the lock. The game's sink when its last position is
/// written.
fn deliver<G: Games>(games: &G, open: &Open<G>, k: usize, text: G::Text) -> Option<G::Sink> {
    let mut out = lock(&open.out);
    let at = k - out.taken;
    out.waiting[at] = Some(text);
    // Without the sink another thread is writing; it takes this text too.
    let mut sink = out.sink.take()?;
    loop {
        let from = out.taken;
        let mut ready = Vec::new();
        while let Some(Some(_)) = out.waiting.front() {
            ready.push(out.waiting.pop_front().flatten().expect("labelled"));
        }
        if ready.is_empty() {
            out.sink = Some(sink);
            return None;
        }
        out.taken += ready.len();
        drop(out);
        for (i, text) in ready.into_iter().enumerate() {
            games.write(&mut sink, from + i, text);
        }
        out = lock(&open.out);
        open.written.store(out.taken, Ordering::Release);
        if out.taken == open.count {
            return Some(sink);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Game i has `sizes[i]` positions; position k of game i takes
    /// `cost(i, k)` ms. Each game's sink collects what was written, in order;
    /// a game listed in `fail` is an error at its end.
    struct Synthetic {
        sizes: Vec<usize>,
        cost: fn(usize, usize) -> u64,
        fail: Option<usize>,
        /// A game whose opening panics.
        panic_on_open: Option<usize>,
        /// (game, position, thread) of every label, in the order taken.
        log: Mutex<Vec<(usize, usize, Option<usize>)>>,
        opened: AtomicUsize,
    }

    impl Synthetic {
        fn new(sizes: Vec<usize>, cost: fn(usize, usize) -> u64) -> Self {
            Self {
                sizes,
                cost,
                fail: None,
                panic_on_open: None,
                log: Mutex::new(Vec::new()),
                opened: AtomicUsize::new(0),
            }
        }
    }

    impl Games for Synthetic {
        type Worker = ();
        type Positions = usize;
        type Sink = (usize, Vec<usize>);
        type Text = usize;
        type Done = (usize, Vec<usize>);
        type Error = usize;

        fn count(&self) -> usize {
            self.sizes.len()
        }
        fn worker(&self) {}
        fn open(&self, i: usize) -> Result<Opened<Self>, usize> {
            assert_ne!(self.panic_on_open, Some(i), "opening game {i}");
            self.opened.fetch_add(1, Ordering::SeqCst);
            Ok(Opened::Game {
                positions: i,
                count: self.sizes[i],
                sink: (i, Vec::new()),
            })
        }
        fn label(&self, _: &mut (), &game: &usize, k: usize) -> usize {
            lock(&self.log).push((game, k, rayon::current_thread_index()));
            std::thread::sleep(Duration::from_millis((self.cost)(game, k)));
            game * 1000 + k
        }
        fn write(&self, sink: &mut (usize, Vec<usize>), k: usize, text: usize) {
            assert_eq!(text, sink.0 * 1000 + k, "written out of order");
            sink.1.push(text);
        }
        fn finish(
            &self,
            i: usize,
            sink: (usize, Vec<usize>),
        ) -> Result<(usize, Vec<usize>), usize> {
            if self.fail == Some(i) {
                Err(i)
            } else {
                Ok(sink)
            }
        }
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn every_position_is_written_once_in_order_and_games_come_back_in_order() {
        let games = Synthetic::new(vec![5, 0, 130, 1, 40, 7], |g, k| ((g + k) % 3) as u64);
        let done = pool(2).install(|| label_games(&games)).unwrap();
        assert_eq!(done.len(), 6);
        for (i, (game, texts)) in done.iter().enumerate() {
            assert_eq!(*game, i);
            let want: Vec<usize> = (0..games.sizes[i]).map(|k| i * 1000 + k).collect();
            assert_eq!(*texts, want);
        }
        let log = games.log.into_inner().unwrap();
        assert_eq!(log.len(), 5 + 130 + 1 + 40 + 7);
        let threads: std::collections::HashSet<_> = log.iter().map(|l| l.2).collect();
        assert_eq!(threads.len(), 2);
    }

    #[test]
    fn slow_positions_of_one_game_are_shared_and_not_left_for_the_end() {
        // Game 0 holds four 60 ms positions among quick ones (the bench's
        // middle games have one like it); game 1 is a run of quick ones. A
        // thread that took game 1 while the other went through the four slow
        // positions would leave 240 ms on one thread; sharing them, both
        // threads finish within about 130 ms of each other's work.
        let games = Synthetic::new(vec![40, 60], |g, k| {
            if g == 0 && [20, 22, 24, 26].contains(&k) {
                60
            } else {
                1
            }
        });
        pool(2).install(|| label_games(&games)).unwrap();
        let log = games.log.into_inner().unwrap();
        let slow: Vec<_> = log
            .iter()
            .filter(|(g, k, _)| *g == 0 && [20, 22, 24, 26].contains(k))
            .map(|l| l.2)
            .collect();
        let on_first = slow.iter().filter(|t| **t == slow[0]).count();
        assert!(on_first < 4, "slow positions by thread: {slow:?}");
    }

    #[test]
    fn a_panic_while_opening_a_game_reaches_the_caller_and_hangs_no_thread() {
        // The last game's opening panics: the other thread has nothing left
        // but to wait for that game, and must not wait forever.
        let mut games = Synthetic::new(vec![1, 1, 1], |_, _| 0);
        games.panic_on_open = Some(2);
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool(2).install(|| label_games(&games))
        }));
        assert!(out.is_err());
    }

    #[test]
    fn an_error_stops_new_games_and_is_returned() {
        let mut games = Synthetic::new(vec![3; 200], |_, _| 1);
        games.fail = Some(4);
        let out = pool(2).install(|| label_games(&games));
        assert_eq!(out, Err(4));
        // The games under way are finished; no game is opened after the error.
        assert!(games.opened.load(Ordering::SeqCst) < 10);
    }

    #[test]
    fn a_game_is_labelled_at_most_ahead_positions_past_its_first_unwritten_one_while_others_wait() {
        // Position 0 of game 0 is slow: meanwhile the other thread labels
        // the next AHEAD − 1 positions of game 0 (about 63 ms), then opens
        // game 1 instead of holding more text behind position 0.
        let games = Synthetic::new(
            vec![AHEAD * 3, 50],
            |g, k| {
                if g == 0 && k == 0 {
                    400
                } else {
                    1
                }
            },
        );
        pool(2).install(|| label_games(&games)).unwrap();
        let log = games.log.into_inner().unwrap();
        let first_of_game_1 = log.iter().position(|l| l.0 == 1).unwrap();
        let game_0_before = log[..first_of_game_1].iter().filter(|l| l.0 == 0).count();
        assert_eq!(game_0_before, AHEAD);
    }
}
