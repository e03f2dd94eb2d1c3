//! The trivial-task farm measured by the overhead benchmark and the throughput example.

use std::hint::black_box;

use seqfarm_farm::{run, FarmConfig, Fill};

/// Sends the numbers `0..tasks` through a farm of `workers` that add one to each, with
/// `depth` tasks in flight per worker; returns the sum the collector saw.
pub fn trivial_farm(tasks: u64, workers: usize, depth: usize, ordered: bool) -> u64 {
    let config = FarmConfig::new(workers).queue_depth(depth).ordered(ordered);
    let mut next = 0u64;
    let mut sum = 0u64;
    run(
        &config,
        || 0u64,
        &mut |t: &mut u64| -> Result<Fill, ()> {
            if next == tasks {
                return Ok(Fill::End);
            }
            *t = next;
            next += 1;
            Ok(Fill::Task)
        },
        |_| {
            Ok(|t: &mut u64| -> Result<(), ()> {
                *t = black_box(*t) + 1;
                Ok(())
            })
        },
        &mut |t: &mut u64| -> Result<(), ()> {
            sum += *t;
            Ok(())
        },
    )
    .expect("farm runs");
    sum
}
