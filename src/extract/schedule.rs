//! The order in which the threads take games: help the games under way
//! before starting another.
//!
//! A game's positions are labelled in parallel (see `write_game`), each
//! queued as a rayon job on the deque of the thread that runs the game. A
//! rayon parallel iterator over the games queues the games the same way, and
//! an idle thread steals the *oldest* job of another thread: a whole game
//! queued at the start, not a position of the game that thread is busy
//! with. So one thread went through a game's expensive positions one after
//! the other while the other started games of its own, and at the end of a
//! run waited for the last of those positions (measured on the speed
//! bench's middle games: four positions of one game, 46 to 92 ms each, all
//! on one thread; the other idle for the last 70 ms of a 350 ms pass).
//!
//! [`each_in_order`] queues no games: every thread of the pool takes the
//! next game from a shared counter, and before taking one it runs the jobs
//! the other threads have queued (positions of their games), through
//! [`rayon::yield_now`]. Rayon has no priority between jobs, so this is
//! written here.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Runs `f(0)`, …, `f(n − 1)` on every thread of the current rayon pool
/// (the global one outside a pool) and returns their results in index
/// order. A thread takes the next index only when no other thread has
/// queued work it can take; after the first `Err`, no further index is
/// started and the error of the lowest index is returned.
pub fn each_in_order<T, E, F>(n: usize, f: F) -> Result<Vec<T>, E>
where
    T: Send,
    E: Send,
    F: Fn(usize) -> Result<T, E> + Sync,
{
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Vec<Mutex<Option<Result<T, E>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    rayon::broadcast(|_| loop {
        // The other threads' queued positions come before a new game.
        while rayon::yield_now() == Some(rayon::Yield::Executed) {}
        if failed.load(Ordering::Relaxed) {
            break;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= n {
            break;
        }
        let result = f(i);
        if result.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        *results[i]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(result);
    });
    // The indices run are a prefix, except after an error (which then
    // comes first among the results taken in order).
    results
        .into_iter()
        .map_while(|slot| {
            slot.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_index_order_from_every_thread() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let threads = Mutex::new(std::collections::HashSet::new());
        let out: Result<Vec<usize>, ()> = pool.install(|| {
            each_in_order(200, |i| {
                threads
                    .lock()
                    .unwrap()
                    .insert(rayon::current_thread_index());
                // Some work, so that both threads take indices.
                std::thread::sleep(std::time::Duration::from_micros(200));
                Ok(i * i)
            })
        });
        assert_eq!(out.unwrap(), (0..200).map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(threads.into_inner().unwrap().len(), 2);
    }

    #[test]
    fn an_error_stops_new_indices_and_is_returned() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let started = AtomicUsize::new(0);
        let out: Result<Vec<usize>, usize> = pool.install(|| {
            each_in_order(1000, |i| {
                started.fetch_add(1, Ordering::Relaxed);
                if i == 5 {
                    return Err(i);
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
                Ok(i)
            })
        });
        assert_eq!(out, Err(5));
        // Each thread finishes the index it holds and starts no other
        // (1000 indices would take 0.1 s a thread).
        assert!(started.into_inner() < 100);
    }

    #[test]
    fn a_thread_helps_with_queued_work_before_taking_a_new_index() {
        // Index 0 queues 64 jobs of 1 ms; the others take 1 ms each. A
        // thread that took new indices first would start all 40 of them
        // (40 ms) before index 0's jobs (64 ms on one thread) were done.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        use rayon::prelude::*;
        let seq = AtomicUsize::new(0);
        let starts: Vec<AtomicUsize> = (0..41).map(|_| AtomicUsize::new(0)).collect();
        let last_job = AtomicUsize::new(0);
        let threads = Mutex::new(std::collections::HashSet::new());
        let out: Result<Vec<usize>, ()> = pool.install(|| {
            each_in_order(41, |i| {
                starts[i].store(seq.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
                if i == 0 {
                    (0..64).into_par_iter().with_max_len(1).for_each(|_| {
                        threads
                            .lock()
                            .unwrap()
                            .insert(rayon::current_thread_index());
                        std::thread::sleep(std::time::Duration::from_millis(1));
                        last_job.fetch_max(seq.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
                    });
                } else {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                Ok(i)
            })
        });
        assert_eq!(out.unwrap(), (0..41).collect::<Vec<_>>());
        assert_eq!(threads.into_inner().unwrap().len(), 2);
        let last_job = last_job.into_inner();
        let before = starts[1..]
            .iter()
            .filter(|s| s.load(Ordering::SeqCst) < last_job)
            .count();
        assert!(
            before < 10,
            "{before} indices started before index 0's jobs were done"
        );
    }
}
