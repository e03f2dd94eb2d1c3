//! What the paired-end `align` tests share: the test genomes indexed once per run by
//! seqfarm and by bowtie2, running either aligner, and SAM records parsed by field.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::support::{data, have, seqfarm};

/// A reference indexed by both aligners.
pub struct Indexed {
    /// seqfarm's index prefix.
    pub seqfarm: PathBuf,
    /// bowtie2's index prefix.
    pub bowtie2: PathBuf,
}

/// A directory under the build's temporary directory, emptied once per test process.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("e2e-align-paired-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// A fresh directory for one test (removed at the end of the test).
pub fn test_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(scratch()).unwrap()
}

/// Fails the test when a peer tool it compares against is missing: test.sh installs
/// them, and a comparison that silently does not run proves nothing.
pub fn require(tool: &str) {
    assert!(
        have(tool),
        "{tool} is not on the PATH; ./test.sh installs it (Debian package)"
    );
}

fn build(name: &str, fasta: &Path) -> Indexed {
    require("bowtie2-build");
    let dir = scratch().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let sf = dir.join("seqfarm");
    let out = seqfarm()
        .args(["index", "-t", "2", "-o"])
        .arg(&sf)
        .arg(fasta)
        .output()
        .expect("seqfarm runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bt2 = dir.join("bowtie2");
    let out = Command::new("bowtie2-build")
        .args(["--threads", "2", "-q"])
        .arg(fasta)
        .arg(&bt2)
        .output()
        .expect("bowtie2-build runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Indexed {
        seqfarm: sf,
        bowtie2: bt2,
    }
}

/// The HIV-1 reference of the MiSeq pairs (`pe_hiv_ref.fa.gz`).
pub fn hiv_genome() -> &'static Indexed {
    static INDEX: OnceLock<Indexed> = OnceLock::new();
    INDEX.get_or_init(|| build("hiv", &data("pe_hiv_ref.fa.gz")))
}

/// `index_ref.fa.gz` (E. coli and chr20 pieces), the genome the simulated pairs come from.
pub fn test_genome() -> &'static Indexed {
    static INDEX: OnceLock<Indexed> = OnceLock::new();
    INDEX.get_or_init(|| build("test_genome", &data("index_ref.fa.gz")))
}

/// The CHM1 slice's reference (`pe_chm1_ref.fa.gz`).
pub fn chm1_genome() -> &'static Indexed {
    static INDEX: OnceLock<Indexed> = OnceLock::new();
    INDEX.get_or_init(|| build("chm1", &data("pe_chm1_ref.fa.gz")))
}

/// `tests/data/NAME` as a string argument.
pub fn data_arg(name: &str) -> String {
    path_arg(&data(name))
}

/// A path as a string argument.
pub fn path_arg(path: &Path) -> String {
    path.to_str().expect("UTF-8 path").to_string()
}

/// Runs `seqfarm align -x INDEX ARGS`.
pub fn seqfarm_align(index: &Indexed, args: &[String]) -> Output {
    seqfarm()
        .arg("align")
        .arg("-x")
        .arg(&index.seqfarm)
        .args(args)
        .output()
        .expect("seqfarm runs")
}

/// Runs `bowtie2 -x INDEX ARGS`.
pub fn bowtie2_align(index: &Indexed, args: &[String]) -> Output {
    require("bowtie2");
    Command::new("bowtie2")
        .arg("-x")
        .arg(&index.bowtie2)
        .args(args)
        .output()
        .expect("bowtie2 runs")
}

/// Panics with the command's stderr unless it succeeded; returns its stderr.
pub fn expect_success(what: &str, out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stderr}",
        out.status
    );
    stderr
}

/// Strings from string slices, for argument lists.
pub fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// One SAM alignment line, split into its fields.
#[derive(Clone, Debug)]
pub struct SamRecord {
    /// QNAME.
    pub name: String,
    /// FLAG.
    pub flag: u32,
    /// RNAME.
    pub contig: String,
    /// POS (1-based, 0 when unplaced).
    pub pos: u64,
    /// MAPQ.
    pub mapq: u32,
    /// CIGAR.
    pub cigar: String,
    /// RNEXT.
    pub mate_contig: String,
    /// PNEXT.
    pub mate_pos: u64,
    /// TLEN.
    pub tlen: i64,
    /// SEQ.
    pub seq: String,
    /// QUAL.
    pub qual: String,
    /// Optional fields by tag: `AS` → `i:-5`'s value part (`-5`).
    pub tags: HashMap<String, String>,
}

impl SamRecord {
    /// Whether FLAG has all the bits of `bits`.
    pub fn has(&self, bits: u32) -> bool {
        self.flag & bits == bits
    }

    /// Unmapped (0x4).
    pub fn unmapped(&self) -> bool {
        self.has(0x4)
    }

    /// Secondary or supplementary.
    pub fn secondary(&self) -> bool {
        self.flag & 0x900 != 0
    }

    /// Reverse strand (0x10).
    pub fn reverse(&self) -> bool {
        self.has(0x10)
    }

    /// Which mate: 1, 2, or 0 when unpaired.
    pub fn mate(&self) -> u8 {
        if self.has(0x40) {
            1
        } else if self.has(0x80) {
            2
        } else {
            0
        }
    }

    /// The value of an optional field, without its type.
    pub fn tag(&self, tag: &str) -> Option<&str> {
        self.tags.get(tag).map(String::as_str)
    }

    /// The integer value of an optional field.
    pub fn int_tag(&self, tag: &str) -> Option<i64> {
        self.tag(tag).map(|v| v.parse().expect("integer tag"))
    }

    /// The key fields, for messages.
    pub fn brief(&self) -> String {
        let tags: Vec<String> = ["AS", "XS", "YS", "YT"]
            .iter()
            .filter_map(|t| self.tag(t).map(|v| format!("{t}:{v}")))
            .collect();
        format!(
            "flag {} {}:{} {} MAPQ {} TLEN {} {}",
            self.flag,
            self.contig,
            self.pos,
            self.cigar,
            self.mapq,
            self.tlen,
            tags.join(" ")
        )
    }
}

/// A SAM file's header lines and records.
pub struct Sam {
    /// The `@` lines.
    pub header: Vec<String>,
    /// The alignment lines.
    pub records: Vec<SamRecord>,
}

impl Sam {
    /// Parses SAM text.
    pub fn parse(text: &str) -> Sam {
        let mut header = Vec::new();
        let mut records = Vec::new();
        for line in text.lines() {
            if line.starts_with('@') {
                header.push(line.to_string());
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            assert!(f.len() >= 11, "short SAM line {line}");
            records.push(SamRecord {
                name: f[0].to_string(),
                flag: f[1].parse().expect("FLAG"),
                contig: f[2].to_string(),
                pos: f[3].parse().expect("POS"),
                mapq: f[4].parse().expect("MAPQ"),
                cigar: f[5].to_string(),
                mate_contig: f[6].to_string(),
                mate_pos: f[7].parse().expect("PNEXT"),
                tlen: f[8].parse().expect("TLEN"),
                seq: f[9].to_string(),
                qual: f[10].to_string(),
                tags: f[11..]
                    .iter()
                    .map(|t| (t[..2].to_string(), t[5..].to_string()))
                    .collect(),
            });
        }
        Sam { header, records }
    }

    /// Reads and parses a SAM file.
    pub fn read(path: &Path) -> Sam {
        Sam::parse(&std::fs::read_to_string(path).unwrap_or_else(|e| {
            panic!("cannot read {}: {e}", path.display());
        }))
    }

    /// Primary records by (name, mate).
    pub fn primary(&self) -> HashMap<(String, u8), &SamRecord> {
        self.records
            .iter()
            .filter(|r| !r.secondary())
            .map(|r| ((r.name.clone(), r.mate()), r))
            .collect()
    }
}
