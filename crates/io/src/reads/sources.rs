//! What to read: the input files of a run, grouped as bowtie2 groups them, their format,
//! and the parse-time trimming options.

use std::path::PathBuf;

/// The format of every read input of a run (bowtie2 has one format for all inputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputFormat {
    /// FASTQ or FASTA, detected per file from its first record (`-q`, `-f`).
    #[default]
    Auto,
    /// One read or pair per line: `name seq qual` or `name seq1 qual1 seq2 qual2`
    /// (tab-separated, `--tab5`).
    Tab5,
    /// One read or pair per line: `name seq qual` or `name1 seq1 qual1 name2 seq2 qual2`
    /// (tab-separated, `--tab6`).
    Tab6,
    /// One sequence per line, no name or qualities (`-r`); reads are named by their
    /// 0-based number in the input.
    Raw,
    /// Illumina QSEQ (`--qseq`): 11 tab-separated fields per line, with a filter flag.
    Qseq,
    /// Reads cut from FASTA sequences (`-F k:<k>,i:<interval>`): every `interval`-th
    /// k-mer, named `<sequence name>_<0-based offset>`.
    KmerFasta {
        /// Length of the k-mers.
        k: usize,
        /// Distance between the starts of consecutive k-mers.
        interval: usize,
    },
    /// The "files" are the reads themselves (`-c`): `SEQ` or `SEQ:QUALS`, named by
    /// their 0-based index in their list.
    CommandLine,
    /// Unaligned BAM (`-b`).
    Bam {
        /// Pairs are read from flags 0x40/0x80 (`--align-paired-reads`); otherwise
        /// paired records are skipped, as bowtie2 does.
        paired: bool,
        /// Keep the records' tags, as SAM text in each FASTQ header's comment
        /// (`--preserve-tags`).
        preserve_tags: bool,
    },
}

impl InputFormat {
    /// Parses `-F`'s argument: `k:<int>,i:<int>` as bowtie2's manual writes it, or
    /// `<int>,<int>` as its binary reads it (both at least 1).
    pub fn parse_kmers(arg: &str) -> Result<Self, String> {
        let usage = || {
            "expected k:<int>,i:<int> or <int>,<int> (k-mer length, interval; both above 0)"
                .to_string()
        };
        let (first, second) = arg.split_once(',').ok_or_else(usage)?;
        let value = |part: &str, key: &str| -> Result<usize, String> {
            let number = part
                .strip_prefix(key)
                .and_then(|p| p.strip_prefix(':'))
                .unwrap_or(part);
            number.parse().ok().filter(|&v| v > 0).ok_or_else(usage)
        };
        Ok(InputFormat::KmerFasta {
            k: value(first, "k")?,
            interval: value(second, "i")?,
        })
    }
}

/// Every read input of a run, in bowtie2's order: first the `interleaved` files (also
/// the `--tab5`/`--tab6` files), then the `-1`/`-2` pairs (file `i` of `mate1` with
/// file `i` of `mate2`), then the `unpaired` files (`-U`). `-` is standard input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadSources {
    /// Files of pairs, mates one after the other (`--interleaved`, `--tab5`, `--tab6`).
    pub interleaved: Vec<PathBuf>,
    /// First mates (`-1`).
    pub mate1: Vec<PathBuf>,
    /// Second mates (`-2`), as many files as `mate1`.
    pub mate2: Vec<PathBuf>,
    /// Unpaired reads (`-U`).
    pub unpaired: Vec<PathBuf>,
    /// The format of all of them.
    pub format: InputFormat,
    /// Reads or pairs skipped at the start of the input (`-s/--skip`).
    pub skip: u64,
    /// Reads or pairs read after the skipped ones, at most (`-u/--upto`).
    pub upto: Option<u64>,
}

impl ReadSources {
    /// Splits a comma-separated list of files (or of `-c` sequences), as bowtie2 does.
    pub fn split_list(list: &str) -> Vec<PathBuf> {
        list.split(',')
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect()
    }

    /// The read files in the order they are read (bowtie2's: interleaved files, pairs of
    /// `-1`/`-2` files, unpaired files), each source with its kind: `Interleaved` (also
    /// `--tab5`/`--tab6` files), `TwoFiles` (its two files) or `Unpaired`.
    pub fn file_sources(&self) -> Vec<(super::Layout, Vec<PathBuf>)> {
        use super::Layout;
        let interleaved = self
            .interleaved
            .iter()
            .map(|p| (Layout::Interleaved, vec![p.clone()]));
        let pairs = (self.mate1.iter().zip(&self.mate2))
            .map(|(a, b)| (Layout::TwoFiles, vec![a.clone(), b.clone()]));
        let unpaired = self
            .unpaired
            .iter()
            .map(|p| (Layout::Unpaired, vec![p.clone()]));
        interleaved.chain(pairs).chain(unpaired).collect()
    }

    /// Checks the combination before anything is opened.
    pub fn check(&self) -> Result<(), String> {
        if self.mate1.len() != self.mate2.len() && self.format != InputFormat::CommandLine {
            return Err(format!(
                "{} files were given with -1 but {} with -2: each -1 file needs its -2 file",
                self.mate1.len(),
                self.mate2.len()
            ));
        }
        if self.interleaved.is_empty() && self.mate1.is_empty() && self.unpaired.is_empty() {
            return Err("no reads: give -U, -1/-2, --interleaved, --tab5 or --tab6".into());
        }
        let stdin = |v: &[PathBuf]| v.iter().filter(|p| p.as_os_str() == "-").count();
        let from_stdin = [&self.interleaved, &self.mate1, &self.mate2, &self.unpaired]
            .iter()
            .map(|v| stdin(v))
            .sum::<usize>();
        if from_stdin > 1 && self.format != InputFormat::CommandLine {
            return Err("standard input (-) can be read only once".into());
        }
        match self.format {
            InputFormat::Tab5 | InputFormat::Tab6 if !self.mate1.is_empty() => Err(
                "--tab5/--tab6 lines hold both mates: they cannot be combined with -1/-2".into(),
            ),
            InputFormat::KmerFasta { .. }
                if !self.mate1.is_empty() || !self.interleaved.is_empty() =>
            {
                Err(
                    "-F makes unpaired reads: it cannot be combined with -1/-2 or --interleaved"
                        .into(),
                )
            }
            InputFormat::Bam { .. } if !self.mate1.is_empty() => {
                Err("-b files cannot be combined with -1/-2".into())
            }
            _ => Ok(()),
        }
    }
}

/// Which end `--trim-to` trims from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimEnd {
    /// Bases are removed from the 3' end (`--trim-to 3:<n>`, or a bare `<n>`).
    Three,
    /// Bases are removed from the 5' end (`--trim-to 5:<n>`).
    Five,
}

/// `--trim-to [3:|5:]<n>`: reads longer than `len` are cut to `len` bases from `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrimTo {
    /// The end bases are removed from.
    pub end: TrimEnd,
    /// Longest read kept; 0 keeps reads whole (as in bowtie2).
    pub len: usize,
}

impl TrimTo {
    /// Parses `--trim-to`'s argument: `<n>`, `3:<n>` or `5:<n>` (the error does not
    /// repeat the argument: the caller names the option and its value).
    pub fn parse(arg: &str) -> Result<Self, String> {
        let (end, n) = match arg.split_once(':') {
            None => (TrimEnd::Three, arg),
            Some(("3", n)) => (TrimEnd::Three, n),
            Some(("5", n)) => (TrimEnd::Five, n),
            Some(_) => return Err("the trim position must be 3 or 5".into()),
        };
        let len = n
            .parse()
            .map_err(|_| format!("{n:?}: the number of bases must be an integer of at least 0"))?;
        Ok(TrimTo { end, len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kmer_and_trim_arguments() {
        assert_eq!(
            InputFormat::parse_kmers("k:10,i:3"),
            Ok(InputFormat::KmerFasta { k: 10, interval: 3 })
        );
        assert!(InputFormat::parse_kmers("k:10").is_err());
        assert!(InputFormat::parse_kmers("k:0,i:1").is_err());
        assert!(InputFormat::parse_kmers("x:1,i:1").is_err());
        assert_eq!(
            InputFormat::parse_kmers("10,3"),
            InputFormat::parse_kmers("k:10,i:3")
        );
        assert_eq!(
            TrimTo::parse("20"),
            Ok(TrimTo {
                end: TrimEnd::Three,
                len: 20
            })
        );
        assert_eq!(TrimTo::parse("5:7").unwrap().end, TrimEnd::Five);
        assert!(TrimTo::parse("4:7").is_err());
        assert!(TrimTo::parse("3:-1").is_err());
    }

    #[test]
    fn source_combinations() {
        let p = |s: &str| ReadSources::split_list(s);
        assert_eq!(p("a.fq,b.fq,"), vec![PathBuf::from("a.fq"), "b.fq".into()]);
        let mut s = ReadSources {
            mate1: p("a"),
            mate2: p("b,c"),
            ..ReadSources::default()
        };
        assert!(s
            .check()
            .unwrap_err()
            .contains("1 files were given with -1 but 2"));
        s.mate2 = p("-");
        s.unpaired = p("-");
        assert!(s.check().unwrap_err().contains("only once"));
        s.unpaired.clear();
        assert!(s.check().is_ok());
        s.format = InputFormat::Tab5;
        assert!(s.check().is_err());
        assert!(ReadSources::default().check().is_err());
    }
}
