//! `--stats FILE`: where a command's farm spent its time, written as JSON.

use std::path::{Path, PathBuf};
use std::time::Instant;

use seqfarm_farm::FarmStats;
use seqfarm_io::output::{refuse_input_as_output, Output, Overwrite};
use serde_json::{json, Map, Value};

/// The `--stats` file of one command run. It is opened before the work starts (so that,
/// where the command refuses existing outputs, an existing file is refused at once),
/// takes the figures of each farm the command runs, and is written when the command has
/// succeeded.
pub struct StatsFile {
    output: Option<Output>,
    command: &'static str,
    threads: usize,
    started: Instant,
    stats: FarmStats,
    totals: Vec<(&'static str, u64, u64)>,
    numa: Option<Value>,
}

impl StatsFile {
    /// Opens `path` (nothing is written without one) for `command` run with `threads`
    /// workers; `inputs` are the files the command reads, which the statistics may not
    /// replace. (That it is not another output of the command is checked with them all:
    /// [`crate::common::refuse_shared_outputs`].)
    pub fn create<P: AsRef<Path>>(
        path: Option<&PathBuf>,
        command: &'static str,
        threads: usize,
        overwrite: Overwrite,
        inputs: impl IntoIterator<Item = P>,
    ) -> anyhow::Result<Self> {
        let output = match path {
            Some(path) => {
                refuse_input_as_output(path, inputs)?;
                Some(Output::create(path, overwrite)?)
            }
            None => None,
        };
        Ok(Self {
            output,
            command,
            threads,
            started: Instant::now(),
            stats: FarmStats::default(),
            totals: Vec::new(),
            numa: None,
        })
    }

    /// Adds one farm run's figures (runs one after the other add up).
    pub fn add(&mut self, stats: &FarmStats) {
        self.stats.merge(stats);
    }

    /// Records the wall time of a command that runs no farm (its file has no tasks).
    pub fn add_wall_time(&mut self, wall: std::time::Duration) {
        self.add(&FarmStats {
            wall,
            ..FarmStats::default()
        });
    }

    /// Records that `tasks` tasks handled `total` units of `what` (reads, residues,
    /// bytes): the file gives them per task. (A command that runs several farms names
    /// the tasks of the farm that handled them.)
    pub fn total(&mut self, what: &'static str, total: u64, tasks: u64) {
        self.totals.push((what, total, tasks));
    }

    /// Records what `--numa` came to (written as `numa`).
    pub fn numa(&mut self, summary: Value) {
        self.numa = Some(summary);
    }

    /// The JSON document.
    pub fn to_json(&self) -> Value {
        let s = &self.stats;
        let secs = |d: std::time::Duration| d.as_secs_f64();
        let mut per_task = Map::new();
        for &(what, total, tasks) in &self.totals {
            let value = if tasks == 0 {
                Value::Null
            } else {
                json!(total as f64 / tasks as f64)
            };
            per_task.insert(what.to_string(), value);
        }
        let workers: Vec<Value> = s
            .workers
            .iter()
            .map(|w| {
                json!({
                    "tasks": w.tasks,
                    "busy_s": secs(w.busy),
                    "stalled_s": secs(w.stalled),
                    "idle_s": secs(w.idle),
                    "setup_s": secs(w.setup),
                })
            })
            .collect();
        let mut document = json!({
            "command": self.command,
            "threads": self.threads,
            "elapsed_s": self.started.elapsed().as_secs_f64(),
            "wall_s": secs(s.wall),
            "tasks": s.tasks,
            "per_task": per_task,
            "master": {
                "emit_s": secs(s.master.emit),
                "collect_s": secs(s.master.collect),
                "stalled_s": secs(s.master.stalled),
                "idle_s": secs(s.master.idle),
            },
            "workers": workers,
            "master_s_per_task": s.master_per_task().map(secs),
            "worker_s_per_task": s.worker_per_task().map(secs),
            "ceiling": s.ceiling(),
            "efficiency": s.efficiency(),
        });
        if let Some(numa) = &self.numa {
            document["numa"] = numa.clone();
        }
        document
    }

    /// Writes the file, when one was asked for, and moves it into place.
    pub fn finish(mut self) -> seqfarm_io::Result<()> {
        let Some(mut output) = self.output.take() else {
            return Ok(());
        };
        let mut text =
            serde_json::to_string_pretty(&self.to_json()).expect("a JSON value always serialises");
        text.push('\n');
        output.put(text.as_bytes())?;
        output.commit()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use seqfarm_farm::{MasterStats, WorkerStats};

    use super::*;

    #[test]
    fn figures_per_task_and_ratios() {
        let mut file =
            StatsFile::create(None, "count", 2, Overwrite::Refuse, Vec::<PathBuf>::new()).unwrap();
        let run = FarmStats {
            wall: Duration::from_millis(10),
            tasks: 4,
            master: MasterStats {
                emit: Duration::from_millis(1),
                collect: Duration::from_millis(1),
                stalled: Duration::from_millis(1),
                idle: Duration::from_millis(7),
            },
            workers: vec![WorkerStats {
                tasks: 4,
                busy: Duration::from_millis(8),
                stalled: Duration::ZERO,
                idle: Duration::from_millis(1),
                setup: Duration::ZERO,
            }],
        };
        file.add(&run);
        file.add(&run);
        file.total("reads", 80, 8);
        let v = file.to_json();
        assert_eq!(v["command"], "count");
        assert_eq!(v["tasks"], 8);
        assert_eq!(v["per_task"]["reads"], 10.0);
        assert_eq!(v["workers"][0]["tasks"], 8);
        assert!((v["ceiling"].as_f64().unwrap() - 4.0).abs() < 1e-9);
        assert!((v["efficiency"].as_f64().unwrap() - 0.8).abs() < 1e-9);
        assert!((v["master"]["idle_s"].as_f64().unwrap() - 0.014).abs() < 1e-9);
        assert!((v["master"]["stalled_s"].as_f64().unwrap() - 0.002).abs() < 1e-9);
    }

    #[test]
    fn no_tasks_gives_nulls() {
        let file =
            StatsFile::create(None, "index", 1, Overwrite::Refuse, Vec::<PathBuf>::new()).unwrap();
        let v = file.to_json();
        assert_eq!(v["tasks"], 0);
        assert!(v["ceiling"].is_null());
        assert!(v["efficiency"].is_null());
    }
}
