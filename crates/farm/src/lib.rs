//! The task-farm runtime every seqfarm command runs on.
//!
//! A farm has three roles:
//!
//! * an **emitter** that cuts the input into tasks (it only finds record or block
//!   boundaries; the heavy parsing is left to the workers),
//! * `N` **workers**, each with private state created on its own thread (after it is
//!   pinned, so the memory is first touched on the worker's NUMA node), that process
//!   tasks,
//! * a **collector** that receives processed tasks, in input order when asked.
//!
//! Emitter and collector share one thread, the *master* (the caller's thread), as in the
//! Bowtie2-FF design: the master hands a task to a worker, and when the task comes back
//! it collects the result and refills the same task object with new input.
//!
//! Between the master and each worker there are two bounded lock-free
//! single-producer/single-consumer rings ([`rtrb`]): one carrying tasks out, one carrying
//! them back (the feedback channel). The farm owns a fixed pool of
//! `workers × queue_depth` task objects; they travel out and back and are refilled in
//! place, so the memory a farm holds is bounded by
//! `task size × workers × queue depth`, whatever the input size.
//!
//! Scheduling is on demand: the next task goes to the worker holding the fewest (round
//! robin among equals), so a slow task never holds up the others. A ring holds all
//! but two of the worker's share of the pool (at least two); the spare objects let a
//! faster worker take more tasks in an ordered farm while an older task is still out
//! on a slower one. Threads that run
//! out of work spin briefly and then park; the thread that hands them work wakes them.
//! There is no lock on the task path.
//!
//! On a NUMA machine a farm can be given a [`numa::Placement`]: workers are then pinned
//! node by node and told their node, so that each reads its node's copy of shared data
//! ([`numa::Replicas`]); the [`numa`] module reads the topology, decides between
//! interleaving and replicating, and sets the memory policies.
//!
//! The first error (or panic) in any role stops the farm: every thread notices within
//! one task, and [`run`] returns the error with the role and task it came from. A farm
//! never returns a partial result as a success.
//!
//! ```
//! use seqfarm_farm::{run, FarmConfig, Fill};
//!
//! let mut next = 0u64;
//! let mut total = 0u64;
//! let config = FarmConfig::new(2);
//! let report = run(
//!     &config,
//!     || 0u64,
//!     &mut |task: &mut u64| -> Result<Fill, String> {
//!         if next == 1000 { return Ok(Fill::End) }
//!         *task = next;
//!         next += 1;
//!         Ok(Fill::Task)
//!     },
//!     |_| Ok(|task: &mut u64| -> Result<(), String> { *task *= 2; Ok(()) }),
//!     &mut |task: &mut u64| -> Result<(), String> { total += *task; Ok(()) },
//! )
//! .unwrap();
//! assert_eq!(total, 999 * 1000);
//! assert_eq!(report.tasks(), 1000);
//! ```

pub mod allocator;
mod bell;
mod config;
mod error;
mod interrupt;
mod master;
pub mod numa;
mod pin;
mod stats;
pub mod threads;
mod worker;

pub use config::FarmConfig;
pub use error::{FarmError, Stage};
pub use interrupt::InterruptScope;
pub use master::{run, FarmReport};
pub use pin::available_cores;
pub use stats::{FarmStats, MasterStats, WorkerStats};

/// What the emitter did with the task it was handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    /// The task was filled with new input and should be processed.
    Task,
    /// The input is exhausted; the task was left untouched.
    End,
}

/// Cuts the input into tasks. Runs on the master thread.
pub trait Emitter<T, E> {
    /// Fills `task` (a recycled object: reset what you reuse) with the next piece of input.
    fn fill(&mut self, task: &mut T) -> Result<Fill, E>;
}

/// Processes tasks with private state. One per worker thread.
pub trait Worker<T, E> {
    /// Processes one task in place.
    fn process(&mut self, task: &mut T) -> Result<(), E>;
}

/// Receives processed tasks. Runs on the master thread.
pub trait Collector<T, E> {
    /// Takes the results out of `task`; the task object then goes back to the emitter.
    fn collect(&mut self, task: &mut T) -> Result<(), E>;
}

impl<T, E, F: FnMut(&mut T) -> Result<Fill, E>> Emitter<T, E> for F {
    fn fill(&mut self, task: &mut T) -> Result<Fill, E> {
        self(task)
    }
}

impl<T, E, F: FnMut(&mut T) -> Result<(), E>> Worker<T, E> for F {
    fn process(&mut self, task: &mut T) -> Result<(), E> {
        self(task)
    }
}

impl<T, E, F: FnMut(&mut T) -> Result<(), E>> Collector<T, E> for F {
    fn collect(&mut self, task: &mut T) -> Result<(), E> {
        self(task)
    }
}

/// What a worker factory is told about the worker it creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerInfo {
    /// The worker's index, `0..workers`.
    pub index: usize,
    /// The core the worker is pinned to, when pinning was asked for and succeeded.
    pub core: Option<usize>,
    /// The NUMA node of that core, when the farm has a placement
    /// ([`FarmConfig::placement`]); pick the node's copy of shared data with
    /// [`numa::Replicas::for_worker`].
    pub node: Option<usize>,
}
