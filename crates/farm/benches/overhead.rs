//! Per-task overhead of the farm: trivial tasks (add one to a number) through
//!
//! * `seqfarm`: this crate's farm (SPSC rings, recycled pool), ordered and unordered;
//! * `channel`: the same emitter → workers → collector farm built on crossbeam channels,
//!   one shared receiver for all workers and one for the results, tasks recycled through
//!   a third channel;
//! * `rayon`: the same stream through `par_bridge` (unordered) and an indexed parallel
//!   iterator collected in order.
//!
//! Throughput is reported in tasks per second.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crossbeam_channel::bounded;
use rayon::prelude::*;

const TASKS: u64 = 1_000_000;

#[path = "support/trivial_farm.rs"]
mod trivial_farm;

fn seqfarm_farm(workers: usize, ordered: bool) -> u64 {
    trivial_farm::trivial_farm(TASKS, workers, 256, ordered)
}

/// The farm's structure on crossbeam channels: a shared task channel, a shared result
/// channel, and a recycling channel back to the emitter.
fn channel_farm(workers: usize) -> u64 {
    let pool = workers * 256;
    let (task_tx, task_rx) = bounded::<Box<u64>>(pool);
    let (result_tx, result_rx) = bounded::<Box<u64>>(pool);
    let (free_tx, free_rx) = bounded::<Box<u64>>(pool);
    for _ in 0..pool {
        free_tx.send(Box::new(0)).expect("pool fits");
    }
    std::thread::scope(|s| {
        for _ in 0..workers {
            let (rx, tx) = (task_rx.clone(), result_tx.clone());
            s.spawn(move || {
                for mut t in rx {
                    *t = black_box(*t) + 1;
                    if tx.send(t).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_tx);
        let collector = s.spawn(move || {
            let mut sum = 0u64;
            for t in result_rx {
                sum += *t;
                if free_tx.send(t).is_err() {
                    break;
                }
            }
            sum
        });
        for next in 0..TASKS {
            let mut t = free_rx.recv().expect("tasks come back");
            *t = next;
            task_tx.send(t).expect("workers alive");
        }
        drop(task_tx);
        collector.join().expect("collector")
    })
}

fn rayon_bridge(pool: &rayon::ThreadPool) -> u64 {
    pool.install(|| {
        (0..TASKS)
            .par_bridge()
            .map(|t| black_box(t) + 1)
            .sum::<u64>()
    })
}

fn rayon_indexed(pool: &rayon::ThreadPool) -> u64 {
    pool.install(|| {
        let v: Vec<u64> = (0..TASKS)
            .into_par_iter()
            .map(|t| black_box(t) + 1)
            .collect();
        v.iter().sum()
    })
}

fn overhead(c: &mut Criterion) {
    let mut group = c.benchmark_group("trivial_tasks");
    group
        .throughput(Throughput::Elements(TASKS))
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let expected = TASKS * (TASKS + 1) / 2;
    for workers in [1usize, 2] {
        group.bench_with_input(
            BenchmarkId::new("seqfarm_ordered", workers),
            &workers,
            |b, &w| b.iter(|| assert_eq!(seqfarm_farm(w, true), expected)),
        );
        group.bench_with_input(
            BenchmarkId::new("seqfarm_unordered", workers),
            &workers,
            |b, &w| b.iter(|| assert_eq!(seqfarm_farm(w, false), expected)),
        );
        group.bench_with_input(BenchmarkId::new("channel", workers), &workers, |b, &w| {
            b.iter(|| assert_eq!(channel_farm(w), expected))
        });
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .expect("rayon pool");
        group.bench_with_input(
            BenchmarkId::new("rayon_bridge", workers),
            &workers,
            |b, _| b.iter(|| assert_eq!(rayon_bridge(&pool), expected)),
        );
        group.bench_with_input(
            BenchmarkId::new("rayon_indexed", workers),
            &workers,
            |b, _| b.iter(|| assert_eq!(rayon_indexed(&pool), expected)),
        );
    }
    group.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);
