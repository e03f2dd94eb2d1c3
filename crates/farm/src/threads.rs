//! Helper threads under the limits of a batch system.
//!
//! Clusters often run jobs under an address-space limit (`ulimit -v`, a scheduler's
//! `h_vmem`). Against it, glibc's per-thread malloc arenas count in full: each reserves
//! 64 MiB of address space (128 MiB while it is made) that it mostly never uses, so a
//! run of 8 threads reserves about 700 MiB to use a few dozen. Once the reservations
//! reach the limit, a thread cannot get its stack and fails to start.
//! [`fit_allocator_to_address_limit`] keeps the arenas within a share of the limit;
//! [`spawn_or_run`] and [`spawn_scoped_or_run`] start a helper thread and, when no
//! thread can be had all the same, do its job on the caller's thread: the run is
//! slower, not failed, and no input is blamed for it.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::{Scope, ScopedJoinHandle};

/// The address space one glibc malloc arena reserves (`HEAP_MAX_SIZE` on 64-bit).
const ARENA_RESERVATION: u64 = 64 << 20;
/// Arenas may reserve at most this share of an address-space limit (1 / N).
const ARENA_SHARE: u64 = 8;

/// How many malloc arenas fit an address-space limit of `limit` bytes (`None`: no
/// limit, glibc's own choice stands).
pub fn arenas_for_limit(limit: Option<u64>) -> Option<u64> {
    limit.map(|limit| (limit / ARENA_SHARE / ARENA_RESERVATION).max(1))
}

/// The soft address-space limit of this process, in bytes (`None`: unlimited).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn address_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    let status = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) };
    (status == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// Under an address-space limit, caps glibc's malloc arenas at [`arenas_for_limit`]
/// (at most an eighth of the limit reserved by them); a `MALLOC_ARENA_MAX` the user set
/// is kept. Call it first thing, before threads allocate. Elsewhere, does nothing.
#[allow(unsafe_code)]
pub fn fit_allocator_to_address_limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        if let Some(arenas) = arenas_for_limit(address_limit()) {
            let arenas = libc::c_int::try_from(arenas).unwrap_or(libc::c_int::MAX);
            // SAFETY: mallopt changes a global allocator parameter; arenas already made
            // stay in use.
            unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) };
        }
    }
}

/// What a helper thread returns: the job's result, or nothing when the job never
/// reached it (which cannot happen once [`spawn_or_run`] has returned its handle: the
/// job is handed over before).
type Handed<T> = Result<T, std::sync::mpsc::RecvError>;

/// The result of a helper thread's job, or its panic.
fn result_of<T>(joined: std::thread::Result<Handed<T>>) -> std::thread::Result<T> {
    match joined {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(_)) => unreachable!("a job is handed over before its thread's handle"),
        Err(panic) => Err(panic),
    }
}

/// A job given to [`spawn_or_run`]: running on its thread, or already done.
pub enum Job<T> {
    Thread(std::thread::JoinHandle<Handed<T>>),
    Done(T),
}

impl<T> Job<T> {
    /// Whether the job has ended (its result then waits in [`Job::join`]).
    pub fn is_finished(&self) -> bool {
        match self {
            Job::Thread(handle) => handle.is_finished(),
            Job::Done(_) => true,
        }
    }

    /// The job's result, or its panic (as [`std::thread::JoinHandle::join`]).
    pub fn join(self) -> std::thread::Result<T> {
        match self {
            Job::Thread(handle) => result_of(handle.join()),
            Job::Done(result) => Ok(result),
        }
    }
}

/// A job given to [`spawn_scoped_or_run`]: running on a thread of the scope, or
/// already done.
pub enum ScopedJob<'scope, T> {
    Thread(ScopedJoinHandle<'scope, Handed<T>>),
    Done(T),
}

impl<T> ScopedJob<'_, T> {
    /// Whether the job has ended (its result then waits in [`ScopedJob::join`]).
    pub fn is_finished(&self) -> bool {
        match self {
            ScopedJob::Thread(handle) => handle.is_finished(),
            ScopedJob::Done(_) => true,
        }
    }

    /// The job's result, or its panic (as [`std::thread::JoinHandle::join`]).
    pub fn join(self) -> std::thread::Result<T> {
        match self {
            ScopedJob::Thread(handle) => result_of(handle.join()),
            ScopedJob::Done(result) => Ok(result),
        }
    }
}

/// Runs `job` on a new thread named `name`, or, when no thread can be started, on this
/// one before returning.
pub fn spawn_or_run<T, F>(name: &str, job: F) -> Job<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let start = |taken: Receiver<F>| {
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || taken.recv().map(|job| job()))
    };
    match hand_over(job, start) {
        Ok(handle) => Job::Thread(handle),
        Err(job) => Job::Done(job()),
    }
}

/// [`spawn_or_run`] on a thread of `scope`, so that `job` may borrow from outside it.
pub fn spawn_scoped_or_run<'scope, 'env, T, F>(
    scope: &'scope Scope<'scope, 'env>,
    name: &str,
    job: F,
) -> ScopedJob<'scope, T>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    let start = |taken: Receiver<F>| {
        std::thread::Builder::new()
            .name(name.into())
            .spawn_scoped(scope, move || taken.recv().map(|job| job()))
    };
    match hand_over(job, start) {
        Ok(handle) => ScopedJob::Thread(handle),
        Err(job) => ScopedJob::Done(job()),
    }
}

/// Starts a thread with `start` and hands it `value` through the channel it is given
/// (`Ok`: the thread's handle), or gives `value` back when no thread can be started (a
/// process or address-space limit), for the caller to use on its own thread.
pub fn hand_over<V, H>(
    value: V,
    start: impl FnOnce(Receiver<V>) -> std::io::Result<H>,
) -> Result<H, V> {
    let (handover, taken) = sync_channel::<V>(1);
    let Ok(handle) = start(taken) else {
        return Err(value);
    };
    // The thread waits for the value: the channel holds it until then.
    handover.send(value).map_err(|back| back.0)?;
    Ok(handle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arenas_take_an_eighth_of_the_limit() {
        assert_eq!(arenas_for_limit(None), None);
        assert_eq!(arenas_for_limit(Some(100 << 20)), Some(1));
        assert_eq!(arenas_for_limit(Some(256 << 20)), Some(1));
        assert_eq!(arenas_for_limit(Some(1 << 30)), Some(2));
        assert_eq!(arenas_for_limit(Some(16 << 30)), Some(32));
    }

    #[test]
    fn jobs_run_on_their_threads() {
        let job = spawn_or_run("test-job", || {
            std::thread::current().name().map(String::from)
        });
        assert_eq!(job.join().unwrap().as_deref(), Some("test-job"));
        let numbers = [1, 2, 3];
        let sum = std::thread::scope(|scope| {
            let job = spawn_scoped_or_run(scope, "test-scoped", || numbers.iter().sum::<i32>());
            job.join().unwrap()
        });
        assert_eq!(sum, 6);
    }

    #[test]
    fn a_value_without_a_thread_comes_back() {
        let refused =
            |_: Receiver<_>| -> std::io::Result<()> { Err(std::io::ErrorKind::WouldBlock.into()) };
        assert_eq!(hand_over(7, refused), Err(7));
        let started = |taken: Receiver<u32>| {
            std::thread::Builder::new().spawn(move || taken.recv().map(|v| v * 2))
        };
        let handle = hand_over(7, started).ok().unwrap();
        assert_eq!(handle.join().unwrap(), Ok(14));
    }

    #[test]
    fn a_panic_in_a_job_comes_back_with_its_join() {
        assert!(spawn_or_run("test-panic", || panic!("job failed"))
            .join()
            .is_err());
    }
}
