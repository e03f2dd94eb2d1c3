//! The worker loop: pop a task, process it with private state, push it back.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rtrb::{Consumer, Producer};

use crate::bell::{Bell, Patience};
use crate::error::panic_message;
use crate::stats::{timed, WorkClock, WorkerStats};
use crate::{FarmError, Stage, Worker, WorkerInfo};

/// A task object with its position in emission order.
pub(crate) struct Slot<T> {
    pub(crate) seq: u64,
    pub(crate) task: T,
}

/// A task on its way through a ring: the pool's objects are boxed once and only the
/// pointer moves.
pub(crate) type Parcel<T> = Box<Slot<T>>;

/// State every thread of one farm sees.
pub(crate) struct Shared<E> {
    /// Set when any role fails: every loop stops at its next check.
    stopped: AtomicBool,
    /// Set (release) by the master after its last push: a worker that sees it (acquire)
    /// and then finds its ring empty has no more work.
    input_closed: AtomicBool,
    /// The first error; later ones are dropped. Touched only on the error path.
    first_error: Mutex<Option<FarmError<E>>>,
}

impl<E> Shared<E> {
    pub(crate) fn new() -> Self {
        Self {
            stopped: AtomicBool::new(false),
            input_closed: AtomicBool::new(false),
            first_error: Mutex::new(None),
        }
    }

    /// Records `error` unless an earlier one is there, and stops the farm.
    pub(crate) fn fail(&self, error: FarmError<E>) {
        let mut slot = self
            .first_error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            *slot = Some(error);
        }
        self.stopped.store(true, Ordering::SeqCst);
    }

    pub(crate) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    pub(crate) fn close_input(&self) {
        self.input_closed.store(true, Ordering::Release);
    }

    fn input_closed(&self) -> bool {
        self.input_closed.load(Ordering::Acquire)
    }

    /// The recorded error, if any.
    pub(crate) fn take_error(&self) -> Option<FarmError<E>> {
        self.first_error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    }
}

/// Runs `f`, turning an error or a panic into a [`FarmError`] for `stage`.
pub(crate) fn guarded<R, E>(
    stage: Stage,
    f: impl FnOnce() -> Result<R, E>,
) -> Result<R, FarmError<E>> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(source)) => Err(FarmError::Failed { stage, source }),
        Err(payload) => Err(FarmError::Panicked {
            stage,
            message: panic_message(payload),
        }),
    }
}

/// Everything one worker thread needs.
pub(crate) struct WorkerSeat<'a, T, E> {
    pub(crate) index: usize,
    pub(crate) pin: bool,
    /// Where to pin the worker, when the farm has a NUMA placement (overrides `pin`).
    pub(crate) slot: Option<crate::numa::WorkerSlot>,
    pub(crate) input: Consumer<Parcel<T>>,
    pub(crate) output: Producer<Parcel<T>>,
    pub(crate) bell: &'a Bell,
    pub(crate) master_bell: &'a Bell,
    pub(crate) shared: &'a Shared<E>,
    pub(crate) patience: Patience,
    /// Whether to time the work and the waiting ([`crate::FarmConfig::timed`]).
    pub(crate) timed: bool,
}

impl<T, E> WorkerSeat<'_, T, E> {
    /// Pins the thread, builds the private state, then processes tasks until the input
    /// is closed and drained (returns the state and where the time went) or the farm
    /// stops (returns `None`).
    pub(crate) fn run<W, Mk>(mut self, make_worker: &Mk) -> Option<(W, WorkerStats)>
    where
        W: Worker<T, E>,
        Mk: Fn(WorkerInfo) -> Result<W, E>,
    {
        self.bell.attach();
        let (core, node) = match self.slot {
            Some(slot) => (crate::pin::pin_to(slot.core), Some(slot.node)),
            None if self.pin => (crate::pin::pin_current(self.index), None),
            None => (None, None),
        };
        let info = WorkerInfo {
            index: self.index,
            core,
            node,
        };
        let setup = Stage::Worker {
            index: self.index,
            task: None,
        };
        let mut stats = WorkerStats::default();
        let mut state = match timed(self.timed, &mut stats.setup, || {
            guarded(setup, || make_worker(info))
        }) {
            Ok(state) => state,
            Err(e) => return self.stop_with(e),
        };
        loop {
            if self.shared.stopped() {
                return None;
            }
            match self.input.pop() {
                Ok(mut parcel) => {
                    let stage = Stage::Worker {
                        index: self.index,
                        task: Some(parcel.seq),
                    };
                    let clock = self.timed.then(WorkClock::start);
                    let processed = guarded(stage, || state.process(&mut parcel.task));
                    if let Some(clock) = clock {
                        clock.stop(&mut stats.busy, &mut stats.stalled);
                    }
                    if let Err(e) = processed {
                        return self.stop_with(e);
                    }
                    stats.tasks += 1;
                    if self.output.push(parcel).is_err() {
                        return self.stop_with(FarmError::Panicked {
                            stage,
                            message: "result ring overflow".into(),
                        });
                    }
                    self.master_bell.ring();
                }
                Err(_) => {
                    if self.shared.input_closed() {
                        if self.input.is_empty() {
                            return Some((state, stats));
                        }
                        continue;
                    }
                    let input = &self.input;
                    let shared = self.shared;
                    timed(self.timed, &mut stats.idle, || {
                        self.patience.wait(
                            self.bell,
                            || !input.is_empty() || shared.input_closed(),
                            || shared.stopped(),
                        )
                    });
                }
            }
        }
    }

    fn stop_with<R>(&self, error: FarmError<E>) -> Option<R> {
        self.shared.fail(error);
        self.master_bell.ring_always();
        None
    }
}
