//! Waking a parked thread without a lock.
//!
//! A thread that finds no work spins for a short while, then announces that it is going
//! to sleep (`sleeping = true`), checks once more, and parks. A thread that hands it work
//! first publishes the work (a release store inside the ring), then reads `sleeping` and
//! unparks only if it is set. Both sides separate their store from their load with a
//! sequentially consistent fence, so either the sleeper sees the work or the waker sees
//! the sleeper: no wake-up is lost. A parked thread therefore sleeps until it is rung,
//! with no timed wake-up: an idle farm costs no CPU time however many threads it has.
//! `park` may also return spuriously; the caller simply re-checks.

use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;
use std::time::{Duration, Instant};

/// One thread's "I am asleep" flag and handle.
///
/// The bell is made before its thread exists; the thread attaches itself first thing.
/// A ring before that finds `sleeping` false and does nothing, which is right: the
/// thread checks for work before it ever parks.
#[derive(Default)]
pub(crate) struct Bell {
    sleeping: AtomicBool,
    thread: OnceLock<Thread>,
}

impl Bell {
    /// Makes the calling thread the one this bell wakes.
    pub(crate) fn attach(&self) {
        let _ = self.thread.set(std::thread::current());
    }

    /// Wakes the thread if it is parked or about to park. Call after publishing work.
    pub(crate) fn ring(&self) {
        fence(Ordering::SeqCst);
        if self.sleeping.load(Ordering::Relaxed) {
            self.ring_always();
        }
    }

    /// Wakes the thread unconditionally (used when the farm stops).
    pub(crate) fn ring_always(&self) {
        if let Some(thread) = self.thread.get() {
            thread.unpark();
        }
    }
}

/// How long a thread spins before it parks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Patience {
    spin: Duration,
    yields: u32,
    /// Longest a parked thread sleeps before it re-checks on its own; `None` in a farm
    /// (it is always rung), a bound only in tests that detect a lost wake-up.
    park_limit: Option<Duration>,
}

impl Patience {
    /// When every thread has a core of its own, spins for 200 µs: long enough to cover
    /// the other side's round trip, and a parked thread costs far more (a futex wake-up
    /// plus the scheduler's latency, 20-50 µs on a virtual machine, paid on both sides of
    /// every hand-over once threads start to sleep in turn). When threads outnumber cores,
    /// a spinning thread would only take time from the one it waits for: it barely
    /// spins, then yields its core a few times (letting the thread it waits for run)
    /// before it parks.
    pub(crate) fn for_threads(threads: usize) -> Self {
        let (spin, yields) = if threads <= crate::available_cores() {
            (Duration::from_micros(200), 0)
        } else {
            (Duration::from_micros(2), 8)
        };
        Self {
            spin,
            yields,
            park_limit: None,
        }
    }

    /// Waits, on the calling thread (which `bell` belongs to), until `ready()` or `stop()`
    /// holds. Returns immediately when either already holds.
    pub(crate) fn wait(
        &self,
        bell: &Bell,
        mut ready: impl FnMut() -> bool,
        stop: impl Fn() -> bool,
    ) {
        if ready() || stop() {
            return;
        }
        let start = Instant::now();
        'spin: loop {
            for _ in 0..32 {
                std::hint::spin_loop();
                if ready() || stop() {
                    return;
                }
            }
            if start.elapsed() >= self.spin {
                break 'spin;
            }
        }
        for _ in 0..self.yields {
            std::thread::yield_now();
            if ready() || stop() {
                return;
            }
        }
        loop {
            bell.sleeping.store(true, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            if ready() || stop() {
                bell.sleeping.store(false, Ordering::Relaxed);
                return;
            }
            match self.park_limit {
                Some(limit) => std::thread::park_timeout(limit),
                None => std::thread::park(),
            }
            bell.sleeping.store(false, Ordering::Relaxed);
            if ready() || stop() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    #[test]
    fn no_lost_wakeups() {
        // The waker publishes a counter and rings; the sleeper waits for each value in
        // turn, parking every time with a one-minute safety net. A lost wake-up would
        // stall the test for that minute; without one it takes milliseconds.
        let counter = Arc::new(AtomicU64::new(0));
        let ack = Arc::new(AtomicU64::new(0));
        let patience = Patience {
            spin: Duration::ZERO,
            yields: 0,
            park_limit: Some(Duration::from_secs(60)),
        };
        let start = std::time::Instant::now();
        std::thread::scope(|s| {
            let bell = Arc::new(Bell::default());
            let b2 = bell.clone();
            let (c2, a2) = (counter.clone(), ack.clone());
            let h = s.spawn(move || {
                b2.attach();
                for round in 1..=2000u64 {
                    patience.wait(&b2, || c2.load(Ordering::Acquire) >= round, || false);
                    a2.store(round, Ordering::Release);
                }
            });
            for round in 1..=2000u64 {
                counter.store(round, Ordering::Release);
                bell.ring();
                while ack.load(Ordering::Acquire) < round {
                    std::thread::yield_now();
                }
            }
            h.join().unwrap();
        });
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "a wake-up was lost"
        );
    }
}
