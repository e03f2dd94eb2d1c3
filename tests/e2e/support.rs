//! Running the binary and finding test data.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `seqfarm` binary built for these tests.
pub fn seqfarm() -> Command {
    Command::new(env!("CARGO_BIN_EXE_seqfarm"))
}

/// Runs `seqfarm ARGS`, returning its output.
pub fn run(args: &[&str]) -> Output {
    seqfarm().args(args).output().expect("seqfarm runs")
}

/// Runs `command` and returns its output, failing the test with its standard error when
/// it does not exit with success.
pub fn succeeded(command: &mut Command) -> Output {
    let out = command.output().expect("the command runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The names of the entries of `dir`, sorted.
pub fn entry_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `text` gzip-compressed and cut in half (a copy that did not finish), and the part of
/// `text` a decoder gets out of it before it fails.
pub fn truncated_gzip(text: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, text).unwrap();
    let mut cut = enc.finish().unwrap();
    cut.truncate(cut.len() / 2);
    let mut inflated = Vec::new();
    let mut decoder = flate2::read::MultiGzDecoder::new(&cut[..]);
    std::io::Read::read_to_end(&mut decoder, &mut inflated).unwrap_err();
    (cut, inflated)
}

/// The bytes of a file, decompressed when it is gzip or BGZF (by its magic bytes).
pub fn file_bytes(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decompressed(raw, path)
}

/// `raw`, the bytes of `path`, decompressed when they are gzip or BGZF.
pub fn decompressed(raw: Vec<u8>, path: &Path) -> Vec<u8> {
    if !is_gzip(&raw) {
        return raw;
    }
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&raw[..]), &mut out)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    out
}

/// Whether `bytes` start with gzip's magic bytes.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// `tests/data/NAME` in the repository.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

/// `bp` as a window size for comparisons on `bam`, ten times wider when the BAM's header
/// is a whole human genome (3.1 Gbp: `bam/chm1.bam`, `bam/na12878_chrM.bam`), whose
/// windows would otherwise number in the millions, nearly all on empty contigs.
pub fn window_for(bam: &Path, bp: u32) -> String {
    let whole_genome = ["bam/chm1.bam", "bam/na12878_chrM.bam"]
        .iter()
        .any(|name| bam.ends_with(name));
    (if whole_genome { bp * 10 } else { bp }).to_string()
}

/// Copies `bam` to `copy`, then its index (`.bai` appended) beside the copy, so that the
/// index is the newer file as a fresh index must be.
pub fn copy_bam(bam: &Path, copy: &Path) {
    let bai = |path: &Path| {
        let mut index = path.as_os_str().to_owned();
        index.push(".bai");
        PathBuf::from(index)
    };
    std::fs::copy(bam, copy).unwrap();
    std::fs::copy(bai(bam), bai(copy)).unwrap();
}

/// Copies each BAM and then its index into `dir` ([`copy_bam`]), once per file name;
/// returns the copies' paths in order.
pub fn stage(dir: &Path, bams: &[PathBuf]) -> Vec<PathBuf> {
    bams.iter()
        .map(|bam| {
            let copy = dir.join(bam.file_name().unwrap());
            if !copy.exists() {
                copy_bam(bam, &copy);
            }
            copy
        })
        .collect()
}

/// [`stage`] of BAMs of `tests/data` (paths relative to it).
pub fn stage_data(dir: &Path, bams: &[&str]) -> Vec<PathBuf> {
    stage(dir, &bams.iter().map(|rel| data(rel)).collect::<Vec<_>>())
}

/// The bundled test genome (`tests/data/index_ref.fa.gz`) indexed in `dir`; returns the
/// index prefix.
pub fn index_test_genome(dir: &Path) -> PathBuf {
    let prefix = dir.join("ref");
    let mut out = seqfarm();
    out.args(["index", "-t", "2", "-o"])
        .arg(&prefix)
        .arg(data("index_ref.fa.gz"));
    succeeded(&mut out);
    prefix
}

/// The shared data directory beside the repository, when it is there (larger optional
/// tests use it; they are skipped without it).
#[allow(dead_code)]
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("SEQFARM_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let path = dir.join(rel);
    path.exists().then_some(path)
}

/// Whether `tool` is on the PATH (peer tools for cross-checks).
#[allow(dead_code)]
pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool} >/dev/null")])
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// The `multiqc` executable: $SEQFARM_MULTIQC, else the virtual environment test.sh
/// makes under target/; `None` (the test is skipped) when neither exists, which fails
/// the test under CI.
pub fn multiqc() -> Option<PathBuf> {
    let path = std::env::var_os("SEQFARM_MULTIQC")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/multiqc-venv/bin/multiqc")
        });
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "MultiQC is missing: ./test.sh installs it and sets SEQFARM_MULTIQC"
    );
    eprintln!("skipped: MultiQC is not installed (./test.sh installs it)");
    None
}

/// Whether peer tool `tool` can be compared against. Under CI (`CI=true`) a missing peer
/// fails the test: test.sh installs every peer, and a comparison that silently does
/// not run proves nothing. Elsewhere the comparison is skipped, and says so.
#[allow(dead_code)]
pub fn peer(tool: &str) -> bool {
    if have(tool) {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{tool} is not on the PATH; ./test.sh installs it"
    );
    eprintln!("skipped: {tool} is not installed (./test.sh installs it)");
    false
}

/// A pseudo-random DNA sequence of `len` bases (a fixed linear congruential generator).
pub fn random_dna(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            b"ACGT"[(state >> 62) as usize]
        })
        .collect()
}

/// The reverse complement of a DNA sequence.
pub fn reverse_complement(seq: &[u8]) -> Vec<u8> {
    let mut out = seq.to_vec();
    seqfarm_core::nucleotide::reverse_complement_letters(&mut out);
    out
}
