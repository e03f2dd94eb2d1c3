//! The targets, one per format, each running the command a user would run on it.
//!
//! A target's first input byte, where it has one, picks a variant (compression, read
//! format, pairing) so that one target covers every way the format reaches a parser.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use seqfarm_io::bgzf_writer::{BgzfCompressor, EOF_MARKER};

use crate::command::run_judged;
use crate::scratch::Scratch;
use crate::{args, Target};

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "bgzf",
        covers: "BGZF blocks: raw bytes given to `flagstat` as a BAM without index",
        run: bgzf,
    },
    Target {
        name: "bam",
        covers: "BAM header and records (input compressed to BGZF by the harness): \
                 `flagstat`, and `align -b` reading unaligned BAM",
        run: bam,
    },
    Target {
        name: "bai",
        covers: "BAI and CSI indexes of a fixed BAM: `flagstat` and `count --window`",
        run: bai,
    },
    Target {
        name: "sam",
        covers: "SAM text: `flagstat`",
        run: sam,
    },
    Target {
        name: "reads",
        covers: "FASTQ and FASTA reads, plain or gzip, unpaired, interleaved or as mate 1: \
                 `align`",
        run: reads,
    },
    Target {
        name: "fasta",
        covers: "FASTA references and databases, plain or gzip: `index` and `search`",
        run: fasta,
    },
    Target {
        name: "vcf",
        covers: "VCF sites, plain or gzip: `snp-pileup` on a fixed tumour/normal pair",
        run: vcf,
    },
    Target {
        name: "bed",
        covers: "BED regions, plain or gzip: `count --bed` on a fixed BAM",
        run: bed,
    },
    Target {
        name: "matrix",
        covers: "scoring matrix files: `search --matrix`",
        run: matrix,
    },
    Target {
        name: "sfi",
        covers: "the `.sfi` index header and sections: `locate` and `align`",
        run: sfi,
    },
    Target {
        name: "alignment",
        covers: "the traceback of `search`: two sequences and gap costs, aligned by the \
                 SIMD path and by the scalar reference, which must agree",
        run: alignment,
    },
];

/// `align` with the index at `prefix`, one thread, SAM into the scratch directory; the
/// caller adds the reads.
fn align_command(s: &Scratch, prefix: &Path) -> Vec<OsString> {
    Vec::from(args![
        "align",
        "-x",
        prefix,
        "-p",
        "1",
        "--force",
        "-S",
        s.path("out.sam")
    ])
}

/// `flagstat` on `input`, its report written to the scratch directory.
fn flagstat(s: &Scratch, input: &Path, inputs: &[&Path]) {
    run_judged(
        &args!["flagstat", "-t", "1", "--force", "-o", s.path("out"), input],
        inputs,
    );
}

/// `count` with `regions` (`--window` or `--bed`) on `bam`, into the scratch directory.
fn count(s: &Scratch, regions: [OsString; 2], bam: &Path, inputs: &[&Path]) {
    let mut command = Vec::from(args!["count", "-t", "1", "--force", "-o", s.path("out")]);
    command.extend(regions);
    command.push(bam.into());
    run_judged(&command, inputs);
}

/// The variant byte and the rest of the input.
fn variant(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((&first, rest)) => (first, rest),
        None => (0, data),
    }
}

/// `data` as one gzip member.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).expect("gzip into memory");
    encoder.finish().expect("gzip into memory")
}

/// `data` as BGZF blocks of at most `block` bytes of input each, with the EOF block.
fn bgzf_blocks(data: &[u8], block: usize) -> Vec<u8> {
    let mut compressor = BgzfCompressor::new(1);
    let mut out = Vec::new();
    for piece in data.chunks(block.max(1)) {
        compressor.compress(piece, &mut out);
    }
    out.extend_from_slice(&EOF_MARKER);
    out
}

/// Writes `data` as `stem.ext`, gzip-compressed with `.gz` appended when `compressed`.
fn write_maybe_gzip(s: &Scratch, stem: &str, data: &[u8], compressed: bool) -> PathBuf {
    if compressed {
        s.write(&format!("{stem}.gz"), &gzip(data))
    } else {
        s.write(stem, data)
    }
}

/// `flagstat` on `data` written as `name`.
fn flagstat_of(name: &str, data: &[u8]) {
    Scratch::with(|s| {
        let input = s.write(name, data);
        flagstat(s, &input, &[&input]);
    })
}

fn bgzf(data: &[u8]) {
    flagstat_of("raw.bam", data)
}

fn bam(data: &[u8]) {
    let (flags, payload) = variant(data);
    // Small blocks make records cross block boundaries.
    let block = if flags & 1 == 0 { 0xff00 } else { 61 };
    Scratch::with(|s| {
        let bam = s.write("fuzz.bam", &bgzf_blocks(payload, block));
        flagstat(s, &bam, &[&bam]);
        let mut align = align_command(s, &s.path("ref"));
        align.extend(args!["-b", &bam]);
        if flags & 2 != 0 {
            align.extend(args!["--align-paired-reads", "--preserve-tags"]);
        }
        run_judged(&align, &[&bam, &s.path("ref.sfi")]);
    })
}

fn bai(data: &[u8]) {
    let (flags, index) = variant(data);
    Scratch::with(|s| {
        let bam = s.path("indexed.bam");
        let (name, bytes) = if flags & 1 == 0 {
            ("indexed.bam.bai", index.to_vec())
        } else {
            ("indexed.bam.csi", bgzf_blocks(index, 0xff00))
        };
        s.remove("indexed.bam.bai");
        s.remove("indexed.bam.csi");
        let index = s.write(name, &bytes);
        flagstat(s, &bam, &[&bam, &index]);
        count(s, args!["--window", "5000"], &bam, &[&bam, &index]);
    })
}

fn sam(data: &[u8]) {
    flagstat_of("fuzz.sam", data)
}

fn reads(data: &[u8]) {
    let (flags, text) = variant(data);
    let fasta = flags & 2 != 0;
    Scratch::with(|s| {
        let stem = if fasta { "fuzz.fa" } else { "fuzz.fq" };
        let path = write_maybe_gzip(s, stem, text, flags & 1 != 0);
        let mut command = align_command(s, &s.path("ref"));
        if fasta {
            command.push("-f".into());
        }
        let mates = s.path("reads.fq");
        match (flags >> 2) & 3 {
            1 => command.extend(args!["--interleaved", &path]),
            2 if !fasta => command.extend(args!["-1", &path, "-2", &mates]),
            _ => command.extend(args!["-U", &path]),
        }
        run_judged(&command, &[&path, &mates]);
    })
}

fn fasta(data: &[u8]) {
    let (flags, text) = variant(data);
    Scratch::with(|s| {
        let path = write_maybe_gzip(s, "fuzz.fa", text, flags & 1 != 0);
        let out = s.path("out");
        if flags & 2 == 0 {
            let prefix = s.path("fuzz-index");
            run_judged(
                &args!["index", "-t", "1", "--kmer", "4", "--force", "-o", &prefix, &path],
                &[&path],
            );
        } else {
            let query = s.path("query.fa");
            let mut command = Vec::from(args!["search", "-t", "1", "--force", "-o", &out]);
            if flags & 4 != 0 {
                command.push("--dna".into());
            }
            command.extend(args![&query, &path]);
            run_judged(&command, &[&path, &query]);
        }
    })
}

fn vcf(data: &[u8]) {
    let (flags, text) = variant(data);
    Scratch::with(|s| {
        let vcf = write_maybe_gzip(s, "fuzz.vcf", text, flags & 1 != 0);
        let (tumour, normal) = (s.path("indexed.bam"), s.path("normal.bam"));
        run_judged(
            &args![
                "snp-pileup",
                "-t",
                "1",
                "--force",
                &vcf,
                s.path("out.csv"),
                &normal,
                &tumour
            ],
            &[&vcf, &tumour, &normal],
        );
    })
}

fn bed(data: &[u8]) {
    let (flags, text) = variant(data);
    Scratch::with(|s| {
        let bed = write_maybe_gzip(s, "fuzz.bed", text, flags & 1 != 0);
        let bam = s.path("indexed.bam");
        count(s, args!["--bed", &bed], &bam, &[&bed, &bam]);
    })
}

fn matrix(data: &[u8]) {
    Scratch::with(|s| {
        let matrix = s.write("fuzz.mat", data);
        let (query, db) = (s.path("query.fa"), s.path("db.fa"));
        run_judged(
            &args![
                "search",
                "-t",
                "1",
                "--force",
                "-o",
                s.path("out"),
                "--matrix",
                &matrix,
                "--gap-open",
                "11",
                "--gap-extend",
                "1",
                &query,
                &db
            ],
            &[&matrix, &query, &db],
        );
    })
}

fn sfi(data: &[u8]) {
    Scratch::with(|s| {
        let index = s.write("fuzz.sfi", data);
        let prefix = s.path("fuzz");
        run_judged(
            &args!["locate", "-x", &prefix, "ACGTACGT", "GATTACA"],
            &[&index],
        );
        let reads = s.path("reads.fq");
        run_judged(
            &args![
                "align",
                "-x",
                &prefix,
                "-p",
                "1",
                "--force",
                "-S",
                s.path("out.sam"),
                "-U",
                &reads
            ],
            &[&index, &reads],
        );
    })
}

/// The input as gap costs (its first two bytes), then a query and a subject split at the
/// first `>` (bytes scored as matrix letters, as `search` reads residues), with BLOSUM62;
/// or DNA scoring with large match scores (to reach the 16-bit lanes' limit) when the
/// first byte is odd.
fn alignment(data: &[u8]) {
    use seqfarm_sw::{align_on, Isa, ScoreMatrix, Scoring};
    let [open, extend, rest @ ..] = data else {
        return;
    };
    let matrix = if open & 1 == 1 {
        ScoreMatrix::dna(i32::from(extend >> 4) * 8 + 1, -3).unwrap()
    } else {
        ScoreMatrix::builtin("BLOSUM62").unwrap()
    };
    let Ok(scoring) = Scoring::new(matrix, i32::from(open % 20), i32::from(extend % 4) + 1) else {
        return;
    };
    let split = rest
        .iter()
        .position(|&b| b == b'>')
        .unwrap_or(rest.len() / 2);
    let (query, subject) = rest.split_at(split);
    let m = scoring.matrix();
    let (query, subject) = (m.encode(query), m.encode(subject.get(1..).unwrap_or(&[])));
    let simd = align_on(Isa::detect(), &scoring, &query, &subject);
    let reference = align_on(Isa::Scalar, &scoring, &query, &subject);
    assert_eq!(simd, reference, "SIMD and scalar tracebacks differ");
}
