//! The SAM header of an align run: its lines (`@RG`, `@PG` with the command line) and its
//! bytes as the output file starts.

use seqfarm_fmindex::FmIndex;
use seqfarm_io::bgzf_writer::BgzfCompressor;
use seqfarm_io::sam::bam::{check_reference_lengths, encode_header};
use seqfarm_io::sam::{SamHeader, SamReference};

use super::{AlignOptions, BAM_LEVEL};

/// The header as the output file starts: BGZF blocks of its own for BAM, text for SAM.
pub(crate) fn header_bytes(header: &SamHeader, bam: bool) -> Vec<u8> {
    if bam {
        let mut bytes = Vec::new();
        encode_header(header, &mut bytes);
        let mut blocks = Vec::new();
        BgzfCompressor::new(BAM_LEVEL).compress(&bytes, &mut blocks);
        blocks
    } else {
        header.text.as_bytes().to_vec()
    }
}

impl AlignOptions {
    /// The SAM header of a run on `index`, `command_line` its `@PG CL:` (see
    /// [`command_line`]).
    pub fn header(&self, index: &FmIndex, command_line: &str) -> anyhow::Result<SamHeader> {
        let references = index
            .contigs()
            .iter()
            .map(|c| SamReference {
                name: c.name.clone(),
                len: c.len,
            })
            .collect::<Vec<_>>();
        if self.style.bam {
            check_reference_lengths(&references).map_err(anyhow::Error::msg)?;
        }
        let mut lines = Vec::new();
        if let Some(rg) = &self.read_group_line {
            lines.push(rg.clone());
        }
        lines.push(format!(
            "@PG\tID:seqfarm\tPN:seqfarm\tVN:{}\tCL:{}",
            env!("CARGO_PKG_VERSION"),
            command_line
        ));
        let sort_order = if self.sort { "coordinate" } else { "unsorted" };
        let mut header = SamHeader::new(references, sort_order, &lines);
        if self.no_header {
            header.text.clear();
        } else if self.no_sq {
            header.text = header
                .text
                .lines()
                .filter(|l| !l.starts_with("@SQ\t"))
                .flat_map(|l| [l, "\n"])
                .collect();
        }
        Ok(header)
    }
}

/// The command line for `@PG CL:`, without the thread options (`-p`, `--threads`,
/// `--pin`), `--numa MODE`, `--mm`, `--stats FILE` and `--sort-memory SIZE`: they do not
/// change the alignments, and leaving them out keeps the output byte-identical at any
/// thread count, under any NUMA placement, with the index copied or memory-mapped, with or
/// without statistics and at any sort memory.
pub fn command_line(args: impl Iterator<Item = String>) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        match arg.as_str() {
            "-p" | "--threads" | "--stats" | "--numa" | "--sort-memory" => skip_value = true,
            "--pin" | "--mm" => {}
            a if a.starts_with("--threads=")
                || a.starts_with("--stats=")
                || a.starts_with("--numa=")
                || a.starts_with("--sort-memory=") => {}
            a if a.starts_with("-p")
                && a.len() > 2
                && a[2..].bytes().all(|b| b.is_ascii_digit()) => {}
            _ => kept.push(arg.replace(['\t', '\n', '\r'], " ")),
        }
    }
    kept.join(" ")
}
