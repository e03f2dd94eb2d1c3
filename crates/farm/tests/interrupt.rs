//! An interrupt stops a running farm at a task boundary, and farms run normally once
//! the interrupted scope is closed. (Its own test binary: an interrupt stops every farm
//! of the process.)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use seqfarm_farm::{run, FarmConfig, FarmError, Fill, InterruptScope};

/// Runs a farm of `limit` tasks (or endless), counting the tasks collected in `done`.
fn count_tasks(limit: Option<u64>, done: &AtomicU64) -> Result<u64, FarmError<String>> {
    let mut next = 0u64;
    let report = run(
        &FarmConfig::new(2),
        || 0u64,
        &mut |task: &mut u64| -> Result<Fill, String> {
            if Some(next) == limit {
                return Ok(Fill::End);
            }
            *task = next;
            next += 1;
            Ok(Fill::Task)
        },
        |_| {
            Ok(|_: &mut u64| -> Result<(), String> {
                std::thread::sleep(Duration::from_micros(200));
                Ok(())
            })
        },
        &mut |_: &mut u64| -> Result<(), String> {
            done.fetch_add(1, Ordering::Relaxed);
            Ok(())
        },
    )?;
    Ok(report.tasks())
}

#[test]
fn an_interrupt_stops_the_farms_of_open_scopes_until_they_close() {
    let done = Arc::new(AtomicU64::new(0));
    let scope = InterruptScope::open();
    let endless = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || count_tasks(None, &done))
    };
    while done.load(Ordering::Relaxed) < 100 {
        std::thread::sleep(Duration::from_millis(1));
    }
    scope.interrupt();
    let stopped = endless.join().unwrap();
    assert!(
        matches!(stopped, Err(FarmError::Interrupted)),
        "{stopped:?}"
    );
    assert_eq!(stopped.unwrap_err().to_string(), "interrupted");
    // A farm started while the interrupted scope is still open stops too.
    assert!(matches!(
        count_tasks(Some(1000), &AtomicU64::new(0)),
        Err(FarmError::Interrupted)
    ));
    drop(scope);
    assert_eq!(count_tasks(Some(1000), &AtomicU64::new(0)).unwrap(), 1000);
}
