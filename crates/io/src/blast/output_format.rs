//! An [`OutputFormat`]: the layout and columns `--outfmt` and `--json` ask for, parsed
//! once, and the calls that write the output in pieces, each layout's text coming from
//! [`super::tabular`] or [`super::json`]. A `--outfmt` that names no format is a
//! [`BlastFormatError`].

use std::borrow::Cow;
use std::sync::OnceLock;

use super::{json, tabular, Column, HspRecord, DEFAULT, JSON_EXTRA, STANDARD};

/// Why `--outfmt` (with or without `--json`) names no format `seqfarm search` writes.
/// The message names the option, as a usage error's does: the command reports it as
/// one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlastFormatError {
    /// `--outfmt 7` with `--json`.
    #[error("--outfmt 7 and --json: choose one (--json takes the columns of --outfmt 6 ...)")]
    CommentedJson,
    /// A first word other than `6` or `7` (`--outfmt 5`).
    #[error(
        "--outfmt {0:?}: seqfarm search writes 6 (tabular), 7 (commented tabular) or, with \
         --json, JSON"
    )]
    UnknownLayout(String),
    /// `--outfmt` without a word.
    #[error("--outfmt is empty: give 6 or 7, then columns if wanted")]
    Empty,
    /// A column name BLAST does not have (the message lists those it has).
    #[error("--outfmt: unknown column {0:?}; known columns: std {known}", known = known_names())]
    UnknownColumn(String),
}

/// Every column's name, space-separated, in BLAST's order.
fn known_names() -> String {
    let known: Vec<&str> = Column::all().map(Column::name).collect();
    known.join(" ")
}

/// How the lines are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Tab-separated lines, one per alignment (`-outfmt 6`).
    Tabular,
    /// Tabular lines under BLAST's comment lines for each query (`-outfmt 7`).
    Commented,
    /// One JSON document (`--json`).
    Json,
}

/// What the whole run shares: the header of `-outfmt 7`'s queries and of the JSON.
#[derive(Debug, Clone, Copy)]
pub struct RunInfo<'a> {
    /// seqfarm's version.
    pub version: &'a str,
    /// The database as given on the command line.
    pub database: &'a str,
    /// Whether the sequences are DNA (`sstrand` reads `plus`/`minus`, else `N/A`).
    pub dna: bool,
    /// The substitution matrix's name (`BLOSUM62`, a file name, or `match/mismatch`).
    pub matrix: &'a str,
    /// Cost of opening a gap (BLAST's convention: a gap of k costs open + k x extend).
    pub gap_open: i32,
    /// Cost of each gap column.
    pub gap_extend: i32,
}

/// One query, as `begin_query` and `end_query` write it.
#[derive(Debug, Clone, Copy)]
pub struct QueryInfo<'a> {
    /// 0-based position of the query in the input (JSON writes a comma before every
    /// query but the one at 0).
    pub index: usize,
    /// The query's name (the first word of its header).
    pub id: &'a str,
    /// The rest of its header line (may be empty).
    pub description: &'a str,
    /// Query residues.
    pub len: usize,
}

/// What `begin` records for the calls after it.
#[derive(Debug, Clone)]
pub(super) struct RunLines {
    /// `-outfmt 7`'s first line of every query.
    pub(super) program: String,
    /// `-outfmt 7`'s `# Database:` line.
    pub(super) database: String,
    /// DNA sequences.
    pub(super) dna: bool,
}

/// An output format: layout and columns.
#[derive(Debug, Clone)]
pub struct OutputFormat {
    /// How lines are laid out.
    pub layout: Layout,
    /// The columns of each alignment, in order (repeats allowed, as in BLAST; JSON keeps
    /// the first of a name).
    pub columns: Vec<Column>,
    run: OnceLock<RunLines>,
}

impl OutputFormat {
    /// The format of `--outfmt` text (`6`, `7`, `6 qseqid sseqid evalue`, `7 std qlen`)
    /// and `--json` (whose columns are `--outfmt`'s when both are given). Without either,
    /// the default columns as tabular lines. Errors name the unknown column and list the
    /// known ones.
    pub fn parse(outfmt: Option<&str>, json: bool) -> Result<Self, BlastFormatError> {
        let mut layout = if json { Layout::Json } else { Layout::Tabular };
        let mut columns = DEFAULT.to_vec();
        if json {
            columns.extend(JSON_EXTRA);
        }
        if let Some(text) = outfmt {
            let mut words = text.split_whitespace();
            match words.next() {
                Some("6") => {}
                Some("7") if !json => layout = Layout::Commented,
                Some("7") => return Err(BlastFormatError::CommentedJson),
                Some(other) => return Err(BlastFormatError::UnknownLayout(other.to_string())),
                None => return Err(BlastFormatError::Empty),
            }
            columns.clear();
            for word in words {
                if word == "std" {
                    columns.extend_from_slice(&STANDARD);
                    continue;
                }
                match Column::from_name(word) {
                    Some(column) => columns.push(column),
                    None => return Err(BlastFormatError::UnknownColumn(word.to_string())),
                }
            }
            if columns.is_empty() {
                columns = STANDARD.to_vec();
            }
        }
        Ok(Self {
            layout,
            columns,
            run: OnceLock::new(),
        })
    }

    /// Whether `column` is printed (the caller may skip computing what no column shows:
    /// `qcovs`'s coverage, `qseq`/`sseq`/`btop`'s aligned residues).
    pub fn uses(&self, column: Column) -> bool {
        self.columns.contains(&column)
    }

    /// What `begin` recorded, or a run of protein without a version or database (for
    /// calls made without `begin`).
    fn run_lines(&self) -> Cow<'_, RunLines> {
        match self.run.get() {
            Some(lines) => Cow::Borrowed(lines),
            None => Cow::Owned(RunLines {
                program: "# seqfarm search".to_string(),
                database: "# Database: ".to_string(),
                dna: false,
            }),
        }
    }

    /// Writes what comes before the first query (JSON: the document's head) and records
    /// what the later calls need from `run` (call it once, first).
    pub fn begin(&self, out: &mut String, run: &RunInfo<'_>) {
        let _ = self.run.set(RunLines {
            program: format!("# seqfarm search {}", run.version),
            database: format!("# Database: {}", run.database),
            dna: run.dna,
        });
        if self.layout == Layout::Json {
            json::document_head(out, run);
        }
    }

    /// Writes what comes before a query's alignments (`hsps` of them; every query gets
    /// this call, also one without alignments).
    pub fn begin_query(&self, out: &mut String, query: &QueryInfo<'_>, hsps: usize) {
        match self.layout {
            Layout::Tabular => {}
            Layout::Commented => {
                tabular::query_comments(out, &self.run_lines(), query, &self.columns, hsps)
            }
            Layout::Json => json::query_head(out, query),
        }
    }

    /// Writes one alignment: its tabular line, or its JSON object (`index_in_query`:
    /// 0-based position among the query's alignments).
    pub fn hsp(&self, out: &mut String, hsp: &HspRecord, index_in_query: usize) {
        let dna = self.run_lines().dna;
        match self.layout {
            Layout::Tabular | Layout::Commented => tabular::line(out, &self.columns, hsp, dna),
            Layout::Json => json::hsp_object(out, &self.columns, hsp, dna, index_in_query),
        }
    }

    /// Writes what follows a query's alignments.
    pub fn end_query(&self, out: &mut String, _query: &QueryInfo<'_>) {
        if self.layout == Layout::Json {
            json::query_tail(out);
        }
    }

    /// Writes what follows the last query (`queries`: how many there were).
    pub fn end(&self, out: &mut String, queries: usize) {
        match self.layout {
            Layout::Tabular => {}
            Layout::Commented => tabular::run_comment(out, queries),
            Layout::Json => json::document_tail(out),
        }
    }
}
