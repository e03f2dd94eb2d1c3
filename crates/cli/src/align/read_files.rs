//! The read files by outcome (`--un`, `--al`, `--un-conc`, `--al-conc`, each plain,
//! `-gz`, `-bz2` or `-lz4`), as bowtie2 writes them.

use std::path::PathBuf;

use seqfarm::cmd::align::{ReadFileCompression, ReadFileKind, ReadFileSpec};

/// Where reads go by outcome.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Reads by outcome")]
pub struct ReadFileArgs {
    /// Write unpaired reads that did not align to FILE
    #[arg(long, value_name = "FILE")]
    pub un: Option<PathBuf>,
    /// --un, gzip-compressed
    #[arg(long, value_name = "FILE", conflicts_with = "un")]
    pub un_gz: Option<PathBuf>,
    /// --un, bzip2-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["un", "un_gz"])]
    pub un_bz2: Option<PathBuf>,
    /// --un, lz4-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["un", "un_gz", "un_bz2"])]
    pub un_lz4: Option<PathBuf>,
    /// Write unpaired reads that aligned at least once to FILE
    #[arg(long, value_name = "FILE")]
    pub al: Option<PathBuf>,
    /// --al, gzip-compressed
    #[arg(long, value_name = "FILE", conflicts_with = "al")]
    pub al_gz: Option<PathBuf>,
    /// --al, bzip2-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["al", "al_gz"])]
    pub al_bz2: Option<PathBuf>,
    /// --al, lz4-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["al", "al_gz", "al_bz2"])]
    pub al_lz4: Option<PathBuf>,
    /// Write pairs that did not align concordantly to FILE (% becomes the mate number)
    #[arg(long, value_name = "FILE")]
    pub un_conc: Option<PathBuf>,
    /// --un-conc, gzip-compressed
    #[arg(long, value_name = "FILE", conflicts_with = "un_conc")]
    pub un_conc_gz: Option<PathBuf>,
    /// --un-conc, bzip2-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["un_conc", "un_conc_gz"])]
    pub un_conc_bz2: Option<PathBuf>,
    /// --un-conc, lz4-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["un_conc", "un_conc_gz", "un_conc_bz2"])]
    pub un_conc_lz4: Option<PathBuf>,
    /// Write pairs that aligned concordantly at least once to FILE
    #[arg(long, value_name = "FILE")]
    pub al_conc: Option<PathBuf>,
    /// --al-conc, gzip-compressed
    #[arg(long, value_name = "FILE", conflicts_with = "al_conc")]
    pub al_conc_gz: Option<PathBuf>,
    /// --al-conc, bzip2-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["al_conc", "al_conc_gz"])]
    pub al_conc_bz2: Option<PathBuf>,
    /// --al-conc, lz4-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["al_conc", "al_conc_gz", "al_conc_bz2"])]
    pub al_conc_lz4: Option<PathBuf>,
}

impl ReadFileArgs {
    /// The `--un`/`--al`/`--un-conc`/`--al-conc` files asked for (each option's plain,
    /// `-gz`, `-bz2` and `-lz4` forms).
    pub fn read_file_specs(&self) -> Vec<ReadFileSpec> {
        use ReadFileCompression::{Bzip2, Gzip, Lz4, Plain};
        let options = [
            (
                ReadFileKind::Unaligned,
                [&self.un, &self.un_gz, &self.un_bz2, &self.un_lz4],
            ),
            (
                ReadFileKind::Aligned,
                [&self.al, &self.al_gz, &self.al_bz2, &self.al_lz4],
            ),
            (
                ReadFileKind::UnalignedPairs,
                [
                    &self.un_conc,
                    &self.un_conc_gz,
                    &self.un_conc_bz2,
                    &self.un_conc_lz4,
                ],
            ),
            (
                ReadFileKind::AlignedPairs,
                [
                    &self.al_conc,
                    &self.al_conc_gz,
                    &self.al_conc_bz2,
                    &self.al_conc_lz4,
                ],
            ),
        ];
        options
            .into_iter()
            .flat_map(|(kind, paths)| {
                [Plain, Gzip, Bzip2, Lz4].into_iter().zip(paths).filter_map(
                    move |(compression, path)| {
                        path.clone().map(|path| ReadFileSpec {
                            kind,
                            path,
                            compression,
                        })
                    },
                )
            })
            .collect()
    }
}
