//! The master loop: emitter and collector on the caller's thread.

use std::collections::VecDeque;
use std::time::Instant;

use rtrb::{Consumer, Producer, RingBuffer};

use crate::bell::{Bell, Patience};
use crate::stats::{timed, FarmStats, MasterStats, WorkClock};
use crate::worker::{guarded, Parcel, Shared, Slot, WorkerSeat};
use crate::{Collector, Emitter, FarmConfig, FarmError, Fill, Stage, Worker, WorkerInfo};

/// What a finished farm hands back.
pub struct FarmReport<W> {
    /// Each worker's private state, in worker order, for merging per-worker totals.
    pub workers: Vec<W>,
    /// Tasks processed (in all and by each worker), and where the run's time went: master, workers, and the figures derived from them.
    pub stats: FarmStats,
}

impl<W> std::fmt::Debug for FarmReport<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FarmReport")
            .field("workers", &self.workers.len())
            .field("stats", &self.stats)
            .finish()
    }
}

impl<W> FarmReport<W> {
    /// Tasks processed.
    pub fn tasks(&self) -> u64 {
        self.stats.tasks
    }

    /// Tasks processed by each worker, in worker order (a load-balance check).
    pub fn tasks_per_worker(&self) -> Vec<u64> {
        self.stats.workers.iter().map(|w| w.tasks).collect()
    }
}

/// Runs a farm to completion.
///
/// `new_task` makes the pool's `config.pool_size()` task objects up front; `emitter`
/// fills them, one worker per thread (made by `make_worker` on that thread, after
/// pinning) processes them, and `collector` receives them (in emission order when
/// `config.ordered`). Returns each worker's state, or the first error.
pub fn run<T, E, Em, W, Mk, Co>(
    config: &FarmConfig,
    mut new_task: impl FnMut() -> T,
    emitter: &mut Em,
    make_worker: Mk,
    collector: &mut Co,
) -> Result<FarmReport<W>, FarmError<E>>
where
    T: Send,
    E: Send,
    Em: Emitter<T, E> + ?Sized,
    W: Worker<T, E> + Send,
    Mk: Fn(WorkerInfo) -> Result<W, E> + Sync,
    Co: Collector<T, E> + ?Sized,
{
    let started = Instant::now();
    let workers = config.workers.max(1);
    let depth = config.queue_depth.max(1);
    let pool_size = workers * depth;
    let lead = worker_lead(depth);
    let patience = Patience::for_threads(workers + 1);
    let shared = Shared::<E>::new();
    let master_bell = Bell::default();
    master_bell.attach();
    let worker_bells: Vec<Bell> = (0..workers).map(|_| Bell::default()).collect();

    let mut to_workers = Vec::with_capacity(workers);
    let mut from_workers = Vec::with_capacity(workers);
    let mut seats = Vec::with_capacity(workers);
    for (index, bell) in worker_bells.iter().enumerate() {
        let (task_tx, task_rx) = RingBuffer::new(lead);
        // A worker can hold at most the whole pool, so its result ring never fills.
        let (result_tx, result_rx) = RingBuffer::new(pool_size);
        to_workers.push(task_tx);
        from_workers.push(result_rx);
        seats.push(WorkerSeat {
            index,
            pin: config.pin,
            slot: config.placement.as_ref().map(|p| p.slot(index)),
            input: task_rx,
            output: result_tx,
            bell,
            master_bell: &master_bell,
            shared: &shared,
            patience,
            timed: config.timed,
        });
    }
    let pool: Vec<Parcel<T>> = (0..pool_size)
        .map(|_| {
            Box::new(Slot {
                seq: 0,
                task: new_task(),
            })
        })
        .collect();

    let outcome = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(workers);
        for seat in seats {
            let make_worker = &make_worker;
            let spawned = std::thread::Builder::new()
                .name(format!("seqfarm-worker-{}", seat.index))
                .stack_size(8 << 20)
                .spawn_scoped(scope, move || seat.run(make_worker));
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    shared.fail(FarmError::Spawn(e));
                    break;
                }
            }
        }
        let (tasks, master_stats) = if shared.stopped() {
            (0, MasterStats::default())
        } else {
            let mut master = Master {
                to_workers,
                from_workers,
                worker_bells: &worker_bells,
                bell: &master_bell,
                shared: &shared,
                patience,
                timed: config.timed,
                ordered: config.ordered,
                free: pool,
                reorder: (0..pool_size).map(|_| None).collect(),
                next_seq: 0,
                next_collect: 0,
                assigned: vec![0; workers],
                lead,
                next_worker: 0,
                ready: VecDeque::with_capacity(pool_size),
                stats: MasterStats::default(),
            };
            match master.run(emitter, collector) {
                Ok(()) => (master.next_seq, master.stats),
                Err(e) => {
                    shared.fail(e);
                    (0, master.stats)
                }
            }
        };
        // Whether done or failed, every worker must leave its loop now.
        shared.close_input();
        for bell in &worker_bells {
            bell.ring_always();
        }
        let results: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        (tasks, master_stats, results)
    });
    let wall = started.elapsed();

    if let Some(error) = shared.take_error() {
        return Err(error);
    }
    let (tasks, master_stats, results) = outcome;
    let mut report = FarmReport {
        workers: Vec::with_capacity(workers),
        stats: FarmStats {
            wall,
            tasks,
            master: master_stats,
            workers: Vec::with_capacity(workers),
        },
    };
    for (index, joined) in results.into_iter().enumerate() {
        match joined {
            Ok(Some((state, worker_stats))) => {
                report.workers.push(state);
                report.stats.workers.push(worker_stats);
            }
            // A worker only gives up after recording an error, and a panic is caught
            // inside it; reaching here means a panic escaped while unwinding.
            _ => {
                return Err(FarmError::Panicked {
                    stage: Stage::Worker { index, task: None },
                    message: "worker thread ended without a result".into(),
                })
            }
        }
    }
    Ok(report)
}

/// The master's side of the farm: the pool, the rings, the reorder buffer.
struct Master<'a, T, E> {
    to_workers: Vec<Producer<Parcel<T>>>,
    from_workers: Vec<Consumer<Parcel<T>>>,
    worker_bells: &'a [Bell],
    bell: &'a Bell,
    shared: &'a Shared<E>,
    patience: Patience,
    /// Whether to time the emitter, the collector and the waiting.
    timed: bool,
    ordered: bool,
    /// Task objects ready to be filled.
    free: Vec<Parcel<T>>,
    /// Processed tasks waiting for their turn, at `seq mod pool size` (ordered mode).
    /// At most `pool size` tasks exist, so the tasks in flight or waiting span fewer
    /// than `pool size` sequence numbers and never collide.
    reorder: Vec<Option<Parcel<T>>>,
    next_seq: u64,
    next_collect: u64,
    /// Tasks each worker holds: handed out and not yet back.
    assigned: Vec<usize>,
    /// The most tasks a worker holds at once ([`worker_lead`]).
    lead: usize,
    next_worker: usize,
    /// Filled tasks, oldest first, waiting for a worker with room.
    ready: VecDeque<Parcel<T>>,
    /// Time in the emitter, the collector and waiting.
    stats: MasterStats,
}

impl<T, E> Master<'_, T, E> {
    fn run<Em, Co>(&mut self, emitter: &mut Em, collector: &mut Co) -> Result<(), FarmError<E>>
    where
        Em: Emitter<T, E> + ?Sized,
        Co: Collector<T, E> + ?Sized,
    {
        let mut input_done = false;
        let mut input_closed = false;
        loop {
            if self.shared.stopped() {
                return Ok(());
            }
            if crate::interrupt::interrupted() {
                return Err(FarmError::Interrupted);
            }
            let collecting = self.timed.then(WorkClock::start);
            let collected = self.collect(collector);
            if let Some(collecting) = collecting {
                collecting.stop(&mut self.stats.collect, &mut self.stats.stalled);
            }
            let mut progressed = collected?;
            // Filling and handing out tasks is timed as a whole: clock reads per round
            // rather than per task.
            let emitting = self.timed.then(WorkClock::start);
            loop {
                progressed |= self.hand_out();
                if input_done {
                    break;
                }
                let Some(mut parcel) = self.free.pop() else {
                    break;
                };
                match guarded(Stage::Emitter, || emitter.fill(&mut parcel.task))? {
                    Fill::Task => {
                        parcel.seq = self.next_seq;
                        self.next_seq += 1;
                        // Handed out at the top of the next turn.
                        self.ready.push_back(parcel);
                    }
                    Fill::End => {
                        self.free.push(parcel);
                        input_done = true;
                    }
                }
            }
            // Workers leave once their ring is empty and the input is closed, so it
            // closes only when every filled task has been handed out.
            if input_done && self.ready.is_empty() && !input_closed {
                input_closed = true;
                self.shared.close_input();
                for bell in self.worker_bells {
                    bell.ring_always();
                }
            }
            if let Some(emitting) = emitting {
                emitting.stop(&mut self.stats.emit, &mut self.stats.stalled);
            }
            if input_closed && self.assigned.iter().all(|&held| held == 0) {
                return Ok(());
            }
            if !progressed {
                let from_workers = &self.from_workers;
                let shared = self.shared;
                timed(self.timed, &mut self.stats.idle, || {
                    self.patience.wait(
                        self.bell,
                        || from_workers.iter().any(|ring| !ring.is_empty()),
                        || shared.stopped(),
                    )
                });
            }
        }
    }

    /// Takes every processed task off the result rings and collects what may be
    /// collected; returns whether anything came back.
    fn collect<Co>(&mut self, collector: &mut Co) -> Result<bool, FarmError<E>>
    where
        Co: Collector<T, E> + ?Sized,
    {
        let pool_size = self.reorder.len() as u64;
        let mut any = false;
        for ring in 0..self.from_workers.len() {
            while let Ok(mut parcel) = self.from_workers[ring].pop() {
                any = true;
                self.assigned[ring] -= 1;
                if self.ordered {
                    let at = (parcel.seq % pool_size) as usize;
                    self.reorder[at] = Some(parcel);
                } else {
                    guarded(Stage::Collector, || collector.collect(&mut parcel.task))?;
                    self.free.push(parcel);
                }
            }
        }
        if self.ordered {
            loop {
                let at = (self.next_collect % pool_size) as usize;
                let Some(mut parcel) = self.reorder[at].take() else {
                    break;
                };
                guarded(Stage::Collector, || collector.collect(&mut parcel.task))?;
                self.free.push(parcel);
                self.next_collect += 1;
            }
        }
        Ok(any)
    }

    /// Hands the ready tasks, oldest first, to the workers holding fewer than `lead`
    /// tasks, and wakes them; returns whether any was handed out.
    fn hand_out(&mut self) -> bool {
        let mut any = false;
        while let Some(parcel) = self.ready.pop_front() {
            match self.push_to_worker(parcel) {
                Ok(()) => any = true,
                Err(parcel) => {
                    self.ready.push_front(parcel);
                    break;
                }
            }
        }
        any
    }

    /// Hands `parcel` to the worker holding the fewest tasks, if fewer than `lead`
    /// (ties go round robin), and wakes it; gives the parcel back when every worker
    /// holds `lead`. Preferring the emptiest keeps a task from queueing behind a slower
    /// worker while another is idle. The counts are the master's own, so choosing
    /// touches no cache line a worker writes.
    fn push_to_worker(&mut self, parcel: Parcel<T>) -> Result<(), Parcel<T>> {
        let n = self.to_workers.len();
        let (mut w, mut k) = (self.next_worker, self.next_worker);
        for _ in 1..n {
            if self.assigned[w] == 0 {
                break;
            }
            k = if k + 1 == n { 0 } else { k + 1 };
            if self.assigned[k] < self.assigned[w] {
                w = k;
            }
        }
        if self.assigned[w] >= self.lead {
            return Err(parcel);
        }
        match self.to_workers[w].push(parcel) {
            Ok(()) => {
                self.assigned[w] += 1;
                self.worker_bells[w].ring();
                self.next_worker = if w + 1 == n { 0 } else { w + 1 };
                Ok(())
            }
            // Not reached: a ring holds `lead` tasks and the worker holds fewer.
            Err(rtrb::PushError::Full(back)) => Err(back),
        }
    }
}

/// The most tasks one worker holds at once, of the `depth` per worker in the pool: all
/// but two (at least the one it works on and the next; depth 1 allows only one). The
/// two left per worker are filled ahead, and let a faster worker take more tasks while
/// an older task still holds up ordered collection on a slower one (a core shared with
/// another process), instead of both taking turns.
fn worker_lead(depth: usize) -> usize {
    depth.saturating_sub(2).max(depth.min(2))
}

#[cfg(test)]
mod tests {
    use super::worker_lead;

    #[test]
    fn a_worker_holds_all_but_two_tasks_of_its_share_and_at_least_two() {
        let leads: Vec<usize> = [1, 2, 3, 4, 5, 256].into_iter().map(worker_lead).collect();
        assert_eq!(leads, [1, 2, 2, 2, 3, 254]);
    }
}
