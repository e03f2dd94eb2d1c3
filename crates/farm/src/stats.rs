//! Where a farm's time went: the master's emitter, collector and waiting, each worker's
//! processing and waiting, and the figures derived from them (time per task, the
//! scaling ceiling, parallel efficiency).
//!
//! Only when the farm is timed ([`crate::FarmConfig::timed`], for `--stats`) are the
//! calls into the roles and the waits timed (clock reads around each); otherwise the
//! report holds the wall time and the task counts only.
//!
//! The work of a role (emitting, collecting, processing) is counted in the thread's CPU
//! time, so that its cost does not grow when the thread waits for a core (on a loaded
//! machine, or with more threads than cores) and the scaling ceiling stays a property of
//! the work. The wall time a role spent inside its call without running (blocked reading
//! the input or writing the output, waiting for a page from disk or for a core) is kept
//! apart as *stalled*. Waiting for the other side of the farm (idle) is wall time.

use std::time::{Duration, Instant};

/// The master thread's time in one farm run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MasterStats {
    /// CPU time inside the emitter (`Emitter::fill`), reading input included, and
    /// handing the tasks to the workers.
    pub emit: Duration,
    /// CPU time taking processed tasks off the result rings and inside the collector
    /// (`Collector::collect`).
    pub collect: Duration,
    /// Wall time inside the emitter or the collector without running: waiting on the
    /// input (a pipe, a disk), on the output, or for a core.
    pub stalled: Duration,
    /// Waiting for a worker to hand back a task.
    pub idle: Duration,
}

impl MasterStats {
    /// Emitter and collector together: the master's sequential work.
    pub fn busy(&self) -> Duration {
        self.emit + self.collect
    }
}

/// One worker thread's time in one farm run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Tasks this worker processed.
    pub tasks: u64,
    /// CPU time inside `Worker::process`.
    pub busy: Duration,
    /// Wall time inside `Worker::process` without running: waiting for pages of the
    /// input from disk, or for a core.
    pub stalled: Duration,
    /// Waiting for a task.
    pub idle: Duration,
    /// Building the worker's private state (the factory `make_worker`).
    pub setup: Duration,
}

/// Where the time of one farm run (or several, merged) went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FarmStats {
    /// From the start of the farm to the last worker joined.
    pub wall: Duration,
    /// Tasks processed.
    pub tasks: u64,
    /// The master thread (emitter and collector).
    pub master: MasterStats,
    /// Each worker, in worker order.
    pub workers: Vec<WorkerStats>,
}

impl FarmStats {
    /// Adds `other`'s times to these, as for farms run one after the other: wall times
    /// and tasks add up, the master's times add up, and worker `i`'s figures add to
    /// worker `i`'s (a farm with more workers adds its extra workers).
    pub fn merge(&mut self, other: &FarmStats) {
        self.wall += other.wall;
        self.tasks += other.tasks;
        self.master.emit += other.master.emit;
        self.master.collect += other.master.collect;
        self.master.stalled += other.master.stalled;
        self.master.idle += other.master.idle;
        if self.workers.len() < other.workers.len() {
            self.workers
                .resize(other.workers.len(), WorkerStats::default());
        }
        for (mine, theirs) in self.workers.iter_mut().zip(&other.workers) {
            mine.tasks += theirs.tasks;
            mine.busy += theirs.busy;
            mine.stalled += theirs.stalled;
            mine.idle += theirs.idle;
            mine.setup += theirs.setup;
        }
    }

    /// Every worker's processing time together.
    pub fn worker_busy(&self) -> Duration {
        self.workers.iter().map(|w| w.busy).sum()
    }

    /// The master's busy time (emit + collect) per task; `None` without tasks.
    pub fn master_per_task(&self) -> Option<Duration> {
        per_task(self.master.busy(), self.tasks)
    }

    /// Worker processing time per task; `None` without tasks.
    pub fn worker_per_task(&self) -> Option<Duration> {
        per_task(self.worker_busy(), self.tasks)
    }

    /// How many workers one master can keep fed: worker time per task over master time
    /// per task. Beyond it the master is the bottleneck. `None` without tasks or when
    /// the master's time is too small to measure.
    pub fn ceiling(&self) -> Option<f64> {
        let master = self.master.busy().as_secs_f64();
        if self.tasks == 0 || master <= 0.0 {
            return None;
        }
        Some(self.worker_busy().as_secs_f64() / master)
    }

    /// The share of the workers' time spent processing: worker busy time over
    /// `workers × wall`. `None` without workers or time.
    pub fn efficiency(&self) -> Option<f64> {
        let room = self.wall.as_secs_f64() * self.workers.len() as f64;
        if room <= 0.0 {
            return None;
        }
        Some(self.worker_busy().as_secs_f64() / room)
    }
}

fn per_task(time: Duration, tasks: u64) -> Option<Duration> {
    if tasks == 0 {
        return None;
    }
    Some(Duration::from_secs_f64(time.as_secs_f64() / tasks as f64))
}
/// Runs `f`, adding the wall time it took to `total` when `on` (the farm is timed);
/// reads no clock otherwise.
pub(crate) fn timed<R>(on: bool, total: &mut Duration, f: impl FnOnce() -> R) -> R {
    if !on {
        return f();
    }
    let start = Instant::now();
    let r = f();
    *total += start.elapsed();
    r
}

/// A reading of the calling thread's wall clock and CPU clock, to time a piece of work.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WorkClock {
    wall: Instant,
    cpu: Duration,
}

impl WorkClock {
    /// Reads both clocks now.
    pub(crate) fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: thread_cpu_time().unwrap_or_default(),
        }
    }

    /// Adds the CPU time since [`WorkClock::start`] to `work` and the rest of the wall
    /// time to `stalled`. Where the thread's CPU clock cannot be read, all of the wall
    /// time counts as work.
    pub(crate) fn stop(self, work: &mut Duration, stalled: &mut Duration) {
        let wall = self.wall.elapsed();
        let cpu = match thread_cpu_time() {
            Some(now) => now.saturating_sub(self.cpu).min(wall),
            None => wall,
        };
        *work += cpu;
        *stalled += wall - cpu;
    }
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`).
#[cfg(unix)]
fn thread_cpu_time() -> Option<Duration> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to write.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
}

/// Without a thread CPU clock, work is timed on the wall clock.
#[cfg(not(unix))]
fn thread_cpu_time() -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn sample() -> FarmStats {
        FarmStats {
            wall: ms(100),
            tasks: 10,
            master: MasterStats {
                emit: ms(3),
                collect: ms(2),
                stalled: ms(1),
                idle: ms(89),
            },
            workers: vec![
                WorkerStats {
                    tasks: 6,
                    busy: ms(90),
                    stalled: ms(0),
                    idle: ms(5),
                    setup: ms(1),
                },
                WorkerStats {
                    tasks: 4,
                    busy: ms(60),
                    stalled: ms(2),
                    idle: ms(28),
                    setup: ms(1),
                },
            ],
        }
    }

    #[test]
    fn derived_figures() {
        let s = sample();
        assert_eq!(s.worker_busy(), ms(150));
        assert_eq!(s.master_per_task(), Some(Duration::from_micros(500)));
        assert_eq!(s.worker_per_task(), Some(ms(15)));
        assert!((s.ceiling().unwrap() - 30.0).abs() < 1e-9);
        assert!((s.efficiency().unwrap() - 0.75).abs() < 1e-9);
    }

    #[test]
    fn no_tasks_no_ratios() {
        let s = FarmStats::default();
        assert_eq!(s.ceiling(), None);
        assert_eq!(s.efficiency(), None);
        assert_eq!(s.master_per_task(), None);
    }

    #[test]
    fn merging_adds_runs_worker_by_worker() {
        let mut a = sample();
        let mut b = sample();
        b.workers.push(WorkerStats {
            tasks: 1,
            ..WorkerStats::default()
        });
        a.merge(&b);
        assert_eq!((a.wall, a.tasks, a.master.idle), (ms(200), 20, ms(178)));
        assert_eq!((a.master.stalled, a.workers[1].stalled), (ms(2), ms(4)));
        assert_eq!(a.workers.len(), 3);
        assert_eq!((a.workers[0].tasks, a.workers[0].busy), (12, ms(180)));
        assert_eq!(a.workers[2].tasks, 1);
        assert!((a.ceiling().unwrap() - 30.0).abs() < 1e-9);
    }

    #[test]
    fn an_untimed_farm_reads_no_clock_per_task() {
        let (out, stats) = timed_farm(20, 2, Chore::Sleep(ms(1)), false);
        assert_eq!(out, (0..20).map(|t| t * 3).collect::<Vec<_>>());
        assert_eq!(stats.tasks, 20);
        assert!(stats
            .workers
            .iter()
            .all(|w| w.busy.is_zero() && w.stalled.is_zero() && w.idle.is_zero()));
        assert!(stats.master.emit.is_zero() && stats.master.collect.is_zero());
    }

    /// How a test worker spends its time on each task.
    #[derive(Clone, Copy)]
    enum Chore {
        /// Sleeps: stalled, not busy.
        Sleep(Duration),
        /// Spins on the CPU: busy.
        Spin(Duration),
    }

    /// A farm whose workers sleep `sleep` per task, with its outputs in order.
    fn sleeping_farm(tasks: u64, workers: usize, sleep: Duration) -> (Vec<u64>, FarmStats) {
        timed_farm(tasks, workers, Chore::Sleep(sleep), true)
    }

    /// A farm of `tasks` tasks on `workers` workers doing `chore`, timed or not.
    fn timed_farm(tasks: u64, workers: usize, chore: Chore, timed: bool) -> (Vec<u64>, FarmStats) {
        let mut next = 0u64;
        let mut out = Vec::new();
        let report = crate::run(
            &crate::FarmConfig::new(workers).queue_depth(2).timed(timed),
            || 0u64,
            &mut |task: &mut u64| -> Result<crate::Fill, String> {
                if next == tasks {
                    return Ok(crate::Fill::End);
                }
                *task = next;
                next += 1;
                Ok(crate::Fill::Task)
            },
            |_| {
                Ok(move |task: &mut u64| -> Result<(), String> {
                    match chore {
                        Chore::Sleep(time) => std::thread::sleep(time),
                        Chore::Spin(time) => {
                            let start = thread_cpu_time().expect("a thread CPU clock");
                            while thread_cpu_time().unwrap() - start < time {
                                std::hint::spin_loop();
                            }
                        }
                    }
                    *task *= 3;
                    Ok(())
                })
            },
            &mut |task: &mut u64| -> Result<(), String> {
                out.push(*task);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(report.tasks_per_worker().iter().sum::<u64>(), tasks);
        (out, report.stats)
    }

    /// No thread's timed figures exceed the wall time.
    fn within_wall(s: &FarmStats) {
        let m = s.master;
        assert!(m.emit + m.collect + m.stalled + m.idle <= s.wall, "{s:?}");
        for w in &s.workers {
            assert!(w.busy + w.stalled + w.idle + w.setup <= s.wall, "{s:?}");
        }
    }

    #[test]
    fn a_sleeping_worker_is_stalled_not_busy() {
        let sleep = ms(2);
        let (_, s) = sleeping_farm(40, 2, sleep);
        assert_eq!(s.tasks, 40);
        assert_eq!(s.workers.len(), 2);
        assert_eq!(s.workers.iter().map(|w| w.tasks).sum::<u64>(), 40);
        // Sleeping takes at least the time asked for, and uses next to no CPU time.
        let stalled: Duration = s.workers.iter().map(|w| w.stalled + w.busy).sum();
        assert!(stalled >= sleep * 40, "{s:?}");
        assert!(s.worker_busy() < sleep * 40, "{s:?}");
        within_wall(&s);
        let efficiency = s.efficiency().unwrap();
        assert!((0.0..=1.0).contains(&efficiency), "{s:?}");
    }

    #[test]
    fn a_spinning_worker_is_busy_and_the_master_could_feed_many() {
        let spin = ms(2);
        let (_, s) = timed_farm(30, 1, Chore::Spin(spin), true);
        // Spinning takes at least the CPU time asked for; the upper bound is loose.
        assert!(s.worker_busy() >= spin * 30, "{s:?}");
        assert!(s.worker_busy() < spin * 30 * 20, "{s:?}");
        within_wall(&s);
        let m = s.master;
        assert!(m.busy() < s.worker_busy(), "{s:?}");
        assert!(s.ceiling().unwrap() > 1.0, "{s:?}");
        assert!(s.worker_per_task().unwrap() >= spin);
    }

    #[test]
    fn timing_leaves_outputs_unchanged() {
        let (one, _) = sleeping_farm(30, 1, Duration::ZERO);
        let (three, _) = sleeping_farm(30, 3, Duration::from_micros(50));
        let expected: Vec<u64> = (0..30).map(|n| n * 3).collect();
        assert_eq!(one, expected);
        assert_eq!(three, expected);
    }

    #[test]
    fn an_empty_input_has_no_ratios_but_a_wall_time() {
        let (out, s) = sleeping_farm(0, 2, Duration::ZERO);
        assert!(out.is_empty());
        assert_eq!(s.tasks, 0);
        assert_eq!(s.ceiling(), None);
        assert_eq!(s.workers.len(), 2);
        assert!(s.wall > Duration::ZERO);
    }
}
