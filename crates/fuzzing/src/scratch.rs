//! A directory per thread where a target writes its input and the command its output,
//! with the fixed inputs written once.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use crate::command::run_command;
use crate::inputs;

/// A thread's working directory and the fixed inputs in it.
pub struct Scratch {
    dir: tempfile::TempDir,
}

thread_local! {
    static SCRATCH: OnceCell<Scratch> = const { OnceCell::new() };
}

impl Scratch {
    /// Runs `f` with this thread's scratch directory, creating it on first use.
    pub fn with<R>(f: impl FnOnce(&Scratch) -> R) -> R {
        SCRATCH.with(|cell| f(cell.get_or_init(Scratch::create)))
    }

    fn create() -> Scratch {
        // Where the caller says (bench/fuzz.sh: a directory it removes afterwards, as a
        // fuzzer exits without dropping this one), else memory-backed where there is
        // such a directory: a target writes files at every run.
        let shm = Path::new("/dev/shm");
        let parent = match std::env::var_os("SEQFARM_FUZZ_SCRATCH") {
            Some(dir) => PathBuf::from(dir),
            None if shm.is_dir() => shm.to_path_buf(),
            None => std::env::temp_dir(),
        };
        let dir = tempfile::Builder::new()
            .prefix("seqfarm-fuzz-")
            .tempdir_in(parent)
            .expect("create the scratch directory");
        let scratch = Scratch { dir };
        for bam in ["indexed.bam", "normal.bam"] {
            scratch.write(bam, inputs::BAM);
            scratch.write(&format!("{bam}.bai"), inputs::BAI);
        }
        scratch.write("ref.fa", inputs::reference_fasta().as_bytes());
        scratch.write("reads.fq", inputs::reads_fastq().as_bytes());
        scratch.write("query.fa", inputs::QUERY_FASTA.as_bytes());
        scratch.write("db.fa", inputs::DB_FASTA.as_bytes());
        let index = scratch.path("ref");
        let reference = scratch.path("ref.fa");
        let built = run_command(&[
            "index".into(),
            "-t".into(),
            "1".into(),
            "--kmer".into(),
            "4".into(),
            "-o".into(),
            index.into(),
            reference.into(),
        ]);
        if let Err(message) = built {
            panic!("building the fixed index failed: {message}");
        }
        scratch
    }

    /// The path of `name` in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `name` (replacing it) and returns its path.
    pub fn write(&self, name: &str, data: &[u8]) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, data).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path
    }

    /// Removes `name` if it is there.
    pub fn remove(&self, name: &str) {
        let _ = std::fs::remove_file(self.path(name));
    }
}
