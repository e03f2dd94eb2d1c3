//! `seqfarm snp-pileup` in parts with its walk on the workers: the command's collector
//! walks the parts' findings in VCF order, and what it carries from one task to the next
//! is small (where the walk stands, the VCF lines so far, the furthest contig). So each
//! part's findings are walked where they were found, one part after the other, each walk
//! starting from the carry the walk of the part before left ([`snp_pileup_walk`]); only
//! the carry travels between the machines, and the client learns the parts' sizes alone.
//!
//! The output's bytes are the parts' rows after the header. For a BGZF output (`-g`) the
//! command cuts the stream into blocks of [`BLOCK_INPUT`] bytes from its start: a part's
//! rows are given after the bytes the part before left past its last whole block (the
//! carry holds them, less than a block), so that each part compresses the whole blocks of
//! its piece ([`snp_pileup_blocks`]) and the client compresses the last, short one
//! ([`snp_pileup_trailer`]).

use seqfarm_io::bgzf_writer::{BgzfCompressor, BLOCK_INPUT, EOF_MARKER};
use seqfarm_regions::pileup::visit::{SiteWalker, WalkerState};

use super::snp_pileup::{part_options, walk_part};
use super::wire::{packed, Unpacker, WireReader, WireWriter};
use crate::cmd::snp_pileup::collect::{WalkCarry, GZIP_LEVEL};
use crate::cmd::snp_pileup::{findings, SnpPileupJob, SnpPileupOptions, Task};

/// What travels from one part's walk to the next: the walk's carry and, for a BGZF
/// output, the stream's bytes after its last whole block.
#[derive(Debug, Default, PartialEq, Eq)]
struct Carry {
    walk: WalkCarry,
    pending: Vec<u8>,
}

impl Carry {
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = WireWriter::<Vec<u8>>::default();
        let walker = &self.walk.walker;
        match walker.cursor {
            Some((ref_id, pos)) => w.number(1).number(ref_id as u64).number(pos as u64),
            None => w.number(0),
        };
        w.number(u64::from(walker.finished))
            .number(walker.pseudo.len() as u64);
        for ((ref_id, pos), counts) in &walker.pseudo {
            w.number(*ref_id as u64).number(*pos as u64);
            let flat: Vec<u64> = counts.iter().flatten().map(|&c| u64::from(c)).collect();
            w.numbers(&flat);
        }
        w.number(self.walk.lines);
        match &self.walk.furthest {
            Some((ref_id, name)) => w.number(1).number(*ref_id as u64).bytes(name),
            None => w.number(0),
        };
        w.bytes(&findings::tally_to_bytes(&self.walk.skipped));
        w.bytes(&self.pending);
        packed(&w.0)
    }

    fn from_bytes(bytes: &[u8]) -> anyhow::Result<Self> {
        let mut unpacker = Unpacker::default();
        let bytes = unpacker.unpack(bytes, "snp-pileup: the walk's carry")?;
        let mut r = WireReader::new(bytes);
        let contig = |n: u64| i32::try_from(n as i64);
        let cursor = match r.number()? {
            0 => None,
            _ => Some((contig(r.number()?)?, r.number()? as i64)),
        };
        let finished = r.number()? != 0;
        let mut pseudo = std::collections::VecDeque::new();
        for _ in 0..r.number()? {
            let at = (contig(r.number()?)?, r.number()? as i64);
            let flat = r.numbers()?;
            anyhow::ensure!(flat.len() % 2 == 0, "snp-pileup: damaged carry");
            let counts = flat
                .chunks_exact(2)
                .map(|c| Ok([u32::try_from(c[0])?, u32::try_from(c[1])?]))
                .collect::<anyhow::Result<_>>()?;
            pseudo.push_back((at, counts));
        }
        let lines = r.number()?;
        let furthest = match r.number()? {
            0 => None,
            _ => Some((contig(r.number()?)?, r.bytes()?.to_vec())),
        };
        let skipped = findings::tally_from_bytes(r.bytes()?)?;
        let pending = r.bytes()?.to_vec();
        anyhow::ensure!(
            r.is_empty(),
            "snp-pileup: the walk's carry has bytes after its end"
        );
        Ok(Self {
            walk: WalkCarry {
                walker: WalkerState {
                    cursor,
                    finished,
                    pseudo,
                },
                lines,
                furthest,
                skipped,
            },
            pending,
        })
    }
}

/// The header of the run `options` ask for and the carry its first part's walk starts
/// from: `(header, carry)`. A BGZF output's header goes into the carry (the first block
/// holds it), a plain one is written by the client before the parts.
pub fn snp_pileup_walk_start(options: &SnpPileupOptions) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let options = part_options(options)?;
    let header = SiteWalker::header_for(options.bams.len());
    let mut carry = Carry::default();
    if options.gzip {
        carry.pending = header;
        return Ok((Vec::new(), carry.to_bytes()));
    }
    Ok((header, carry.to_bytes()))
}

/// Walks consecutive parts' findings ([`super::snp_pileup::snp_pileup_tasks`]' bytes)
/// from `carry` (the walk of the parts before's, or [`snp_pileup_walk_start`]'s):
/// `(piece, carry)`, the parts' piece of the output stream (their rows; for a BGZF
/// output, after the bytes the carry held) and the carry of the next parts' walk.
pub fn snp_pileup_walk(
    options: &SnpPileupOptions,
    parts: &[&[u8]],
    carry: &[u8],
) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let options = part_options(options)?;
    let Carry { walk, pending } = Carry::from_bytes(carry)?;
    let job = SnpPileupJob::for_collector(options)?;
    let files = job.files();
    let mut collector = job.collector(None, 1)?;
    // The piece: the bytes the carry held, then the rows.
    collector.keep_rows(pending);
    collector.resume(walk);
    let (mut unpacker, mut task) = (Unpacker::default(), Task::default());
    for part in parts {
        let part = unpacker.unpack(part, "snp-pileup: a part's findings")?;
        walk_part(&mut collector, part, files, &mut task)?;
    }
    let piece = collector.take_rows();
    let mut next = Carry {
        walk: collector.carry(),
        pending: Vec::new(),
    };
    if options.gzip {
        next.pending = piece[whole_blocks(piece.len())..].to_vec();
    }
    Ok((piece, next.to_bytes()))
}

/// The warnings about the VCF sites skipped, from the last part's carry, as the command
/// prints them on standard error once its rows are written.
pub fn snp_pileup_warnings(
    options: &SnpPileupOptions,
    carry: &[u8],
) -> anyhow::Result<Vec<String>> {
    let options = part_options(options)?;
    let Carry { walk, .. } = Carry::from_bytes(carry)?;
    if walk.skipped.total == Default::default() {
        // Nothing to warn about: the BAMs' names are not needed.
        return Ok(Vec::new());
    }
    let job = SnpPileupJob::for_collector(options)?;
    let mut collector = job.collector(None, 1)?;
    collector.resume(walk);
    Ok(collector.skipped_warnings(&Default::default()))
}

/// Bytes of the whole blocks in a piece of `len` bytes that starts a block.
fn whole_blocks(len: usize) -> usize {
    len / BLOCK_INPUT * BLOCK_INPUT
}

/// The bytes a walk writes into the output, for a BGZF output: the whole blocks of its
/// piece compressed as the command compresses them (`None` for a plain output: the
/// piece is written as it is).
pub fn snp_pileup_blocks(options: &SnpPileupOptions, piece: &[u8]) -> Option<Vec<u8>> {
    if !options.gzip {
        return None;
    }
    let mut out = Vec::new();
    BgzfCompressor::new(GZIP_LEVEL).compress(&piece[..whole_blocks(piece.len())], &mut out);
    Some(out)
}

/// What the client writes after the parts, from the last part's carry: for a BGZF
/// output the last, short block and the EOF marker; nothing for a plain one.
pub fn snp_pileup_trailer(options: &SnpPileupOptions, carry: &[u8]) -> anyhow::Result<Vec<u8>> {
    if !options.gzip {
        return Ok(Vec::new());
    }
    let pending = Carry::from_bytes(carry)?.pending;
    let mut out = Vec::new();
    BgzfCompressor::new(GZIP_LEVEL).compress(&pending, &mut out);
    out.extend_from_slice(&EOF_MARKER);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use seqfarm_io::gzip_index::GzipIndex;

    use super::super::snp_pileup::{snp_pileup_plan, snp_pileup_tasks};
    use super::*;
    use crate::cmd::snp_pileup::skipped::{SkipTally, SkippedSites};

    fn data(path: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/snp-pileup")
            .join(path)
    }

    /// The output of the run `options` ask for, made in `parts` parts walked one after
    /// the other, `per_walk` at a time, each walk from the carry of the one before.
    fn walked_in_parts(options: &SnpPileupOptions, parts: usize, per_walk: usize) -> Vec<u8> {
        let plan = snp_pileup_plan(options, parts).unwrap();
        assert_eq!(plan.parts.len(), parts.min(plan.tasks()));
        let found: Vec<Vec<u8>> = (plan.parts.iter())
            .map(|part| {
                let (tasks, start) = (part.tasks.clone(), &part.start);
                snp_pileup_tasks(options, plan.task_bytes, tasks, start, Some(1)).unwrap()
            })
            .collect();
        let (mut out, mut carry) = snp_pileup_walk_start(options).unwrap();
        for walked in found.chunks(per_walk) {
            let walked: Vec<&[u8]> = walked.iter().map(Vec::as_slice).collect();
            let (piece, next) = snp_pileup_walk(options, &walked, &carry).unwrap();
            out.extend(snp_pileup_blocks(options, &piece).unwrap_or(piece));
            carry = next;
        }
        out.extend(snp_pileup_trailer(options, &carry).unwrap());
        out
    }

    /// Compressed BAM bytes per task in the tests.
    const TASK_BYTES: u64 = 20_000;

    /// The test VCF as its text (also with some records of 1.2 MB), in BGZF blocks of
    /// 1,000 bytes, and as one gzip stream.
    fn vcf_forms(dir: &std::path::Path) -> Vec<PathBuf> {
        use std::io::Read;
        let mut text = Vec::new();
        let vcf = data("sites_slice.vcf.gz");
        flate2::read::MultiGzDecoder::new(std::fs::File::open(&vcf).unwrap())
            .read_to_end(&mut text)
            .unwrap();
        let (blocks, stream) = super::super::compressed_forms(&text);
        // Records longer than a task reads whole (kept to their columns CHROM to ALT),
        // first in their tasks: a part starts after one that was shortened.
        let plain = dir.join("sites.vcf");
        std::fs::write(&plain, &text).unwrap();
        let options = SnpPileupOptions {
            vcf: plain,
            bams: vec![data("normal_slice.bam"), data("tumor_slice.bam")],
            ..SnpPileupOptions::default()
        };
        let starts = SnpPileupJob::planning(&options)
            .unwrap()
            .task_starts(TASK_BYTES);
        let firsts: Vec<usize> = (starts.unwrap().iter().skip(1))
            .map(|start| start.text.lines as usize)
            .collect();
        assert!(firsts.len() >= 3, "{firsts:?}");
        let mut long = Vec::new();
        for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
            long.extend_from_slice(line);
            if firsts.contains(&i) {
                long.pop();
                long.extend(std::iter::repeat_n(b'x', 1_200_000));
                long.push(b'\n');
            }
        }
        // A contig absent from the BAMs between every 40 lines: tasks are cut there as
        // the text happens to be read in blocks.
        let mut between = Vec::new();
        for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
            between.extend_from_slice(line);
            if i % 40 == 39 {
                between.extend_from_slice(b"GL000192.1\t500\t.\tA\tG\t.\t.\t.\n");
            }
        }
        let forms = [
            ("sites_absent_between.vcf", between),
            ("sites_long_lines.vcf", long),
            ("sites_blocks.vcf.gz", blocks),
            ("sites_stream.vcf.gz", stream),
        ];
        let mut paths = vec![vcf, dir.join("sites.vcf")];
        for (name, bytes) in forms {
            paths.push(dir.join(name));
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        paths
    }

    #[test]
    fn parts_of_a_vcf_in_any_form_read_from_their_own_first_line() {
        let dir = tempfile::tempdir().unwrap();
        for vcf in vcf_forms(dir.path()) {
            for pseudo_snps in [0, 100] {
                let options = SnpPileupOptions {
                    vcf: vcf.clone(),
                    bams: vec![data("normal_slice.bam"), data("tumor_slice.bam")],
                    output: dir.path().join(format!("cli_{pseudo_snps}.csv")),
                    pseudo_snps,
                    task_bytes: Some(TASK_BYTES),
                    force: true,
                    ..SnpPileupOptions::default()
                };
                crate::cmd::snp_pileup::run(&options).unwrap();
                let expected = std::fs::read(options.output_path()).unwrap();
                // A part of each task: every task's start is tried.
                let got = walked_in_parts(&options, usize::MAX, 5);
                assert!(got == expected, "{vcf:?} -P {pseudo_snps}");
            }
        }
        // The plan gave the one gzip stream an index, whose access points the parts
        // entered it at.
        let index = GzipIndex::load(&dir.path().join("sites_stream.vcf.gz")).unwrap();
        assert!(index.points.len() > 2, "{}", index.points.len());
    }

    #[test]
    fn parts_walked_one_after_the_other_give_the_command_s_output() {
        let dir = tempfile::tempdir().unwrap();
        for (pseudo_snps, gzip) in [(0, false), (100, false), (0, true), (7, true)] {
            let options = SnpPileupOptions {
                vcf: data("sites_slice.vcf.gz"),
                bams: vec![data("normal_slice.bam"), data("tumor_slice.bam")],
                output: dir.path().join(format!("cli_{pseudo_snps}_{gzip}.csv")),
                min_base_quality: 20,
                pseudo_snps,
                gzip,
                task_bytes: Some(20_000),
                ..SnpPileupOptions::default()
            };
            crate::cmd::snp_pileup::run(&options).unwrap();
            let expected = std::fs::read(options.output_path()).unwrap();
            for (parts, per_walk) in [(1, 1), (3, 1), (7, 1), (7, 3)] {
                let got = walked_in_parts(&options, parts, per_walk);
                let case = format!("-P {pseudo_snps}, -g {gzip}, {parts} parts by {per_walk}");
                assert!(got == expected, "{case}");
            }
        }
    }

    #[test]
    fn a_carry_reads_back_as_written() {
        let carry = Carry {
            walk: WalkCarry {
                walker: WalkerState {
                    cursor: Some((3, 1_000_000)),
                    finished: false,
                    pseudo: [
                        ((3, 1_000_099), vec![[1, 2], [3, 4]]),
                        ((4, 99), vec![[0, 7], [5, 5]]),
                    ]
                    .into(),
                },
                lines: 1234,
                furthest: Some((3, b"chr4".to_vec())),
                skipped: SkipTally {
                    total: SkippedSites {
                        absent: 3,
                        absent_names: vec![b"GL000192.1".to_vec(), b"chrUn".to_vec()],
                        more_names: true,
                        behind: 2,
                        lowercase_ref: 1,
                    },
                    furthest: Some((3, 1_000_050)),
                },
            },
            pending: b"chr4,100,A,G,1,2,0,0\n".to_vec(),
        };
        assert_eq!(Carry::from_bytes(&carry.to_bytes()).unwrap(), carry);
        let empty = Carry::default();
        assert_eq!(Carry::from_bytes(&empty.to_bytes()).unwrap(), empty);
        let bytes = carry.to_bytes();
        assert!(Carry::from_bytes(&bytes[..bytes.len() / 2]).is_err());
    }
}
