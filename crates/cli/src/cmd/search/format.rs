//! The output formats of `seqfarm search`: BLAST's tabular format (`-outfmt 6`) with
//! chosen columns, its commented form (`-outfmt 7`), and one JSON document (`--json`).
//!
//! An [`OutputFormat`] is parsed once from the command line and then writes pieces of
//! text that concatenate into the output: [`OutputFormat::begin`] once,
//! [`OutputFormat::begin_query`], [`OutputFormat::hsp`] per alignment and
//! [`OutputFormat::end_query`] for every query in input order (also those without
//! hits), [`OutputFormat::end`] last. `hsp` takes `&self` and may run on many threads
//! at once; the other calls come from one thread, in order.
//!
//! Every column prints as BLAST 2.12 prints it (names, rounding, `N/A` for the strand
//! of a protein hit); the one difference is `NA` for `evalue` and `bitscore` where the
//! scoring scheme has no Karlin-Altschul parameters (BLAST refuses such schemes).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::OnceLock;

use anyhow::Result;

use super::hsp::HspRecord;

/// A column of BLAST's tabular format, named as `-outfmt` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// `qseqid`: the query's name (the first word of its header).
    QuerySeqId,
    /// `qacc`: the query's accession.
    QueryAcc,
    /// `qaccver`: the query's accession with its version.
    QueryAccVer,
    /// `qlen`: query length.
    QueryLen,
    /// `sseqid`: the subject's name.
    SubjectSeqId,
    /// `sacc`: the subject's accession.
    SubjectAcc,
    /// `saccver`: the subject's accession with its version.
    SubjectAccVer,
    /// `slen`: subject length.
    SubjectLen,
    /// `qstart`: start of the alignment in the query.
    QueryStart,
    /// `qend`: end of the alignment in the query.
    QueryEnd,
    /// `sstart`: start of the alignment in the subject.
    SubjectStart,
    /// `send`: end of the alignment in the subject.
    SubjectEnd,
    /// `qseq`: aligned part of the query.
    QuerySeq,
    /// `sseq`: aligned part of the subject.
    SubjectSeq,
    /// `evalue`: expect value.
    Evalue,
    /// `bitscore`: bit score.
    BitScore,
    /// `score`: raw score.
    Score,
    /// `length`: alignment length.
    Length,
    /// `pident`: percentage of identical pairs.
    PercentIdentity,
    /// `nident`: identical pairs.
    Identities,
    /// `mismatch`: mismatched pairs.
    Mismatches,
    /// `positive`: pairs with a positive score.
    Positives,
    /// `gapopen`: gap openings.
    GapOpens,
    /// `gaps`: gap columns.
    Gaps,
    /// `ppos`: percentage of positive-scoring pairs.
    PercentPositives,
    /// `sstrand`: subject strand.
    SubjectStrand,
    /// `qcovs`: query coverage per subject.
    QueryCoverSubject,
    /// `qcovhsp`: query coverage per alignment.
    QueryCoverHsp,
    /// `btop`: blast traceback operations.
    Btop,
}

/// Every column: its `-outfmt` name, its label in `-outfmt 7`'s `# Fields:` line, and its
/// meaning (BLAST's), in BLAST's order of `-help`.
#[rustfmt::skip]
const COLUMNS: [(Column, &str, &str, &str); 29] = [
    (Column::QuerySeqId, "qseqid", "query id", "query name: the first word of its FASTA header"),
    (Column::QueryAcc, "qacc", "query acc.", "query accession, as a BLAST database built with `-parse_seqids` holds it (`P12345` for `sp|P12345|NAME_HUMAN`, `NC_045512` for `NC_045512.2`; a name that is no accession, like `chr1`, as it is)"),
    (Column::QueryAccVer, "qaccver", "query acc.ver", "query accession with its version (`NC_045512.2`)"),
    (Column::QueryLen, "qlen", "query length", "query length"),
    (Column::SubjectSeqId, "sseqid", "subject id", "subject name: the first word of its FASTA header"),
    (Column::SubjectAcc, "sacc", "subject acc.", "subject accession, as `qacc`"),
    (Column::SubjectAccVer, "saccver", "subject acc.ver", "subject accession with its version, as `qaccver`"),
    (Column::SubjectLen, "slen", "subject length", "subject length"),
    (Column::QueryStart, "qstart", "q. start", "first aligned query position (1-based)"),
    (Column::QueryEnd, "qend", "q. end", "last aligned query position"),
    (Column::SubjectStart, "sstart", "s. start", "subject position aligned to `qstart` (the larger one on the minus strand)"),
    (Column::SubjectEnd, "send", "s. end", "subject position aligned to `qend`"),
    (Column::QuerySeq, "qseq", "query seq", "aligned query residues, `-` for gaps"),
    (Column::SubjectSeq, "sseq", "subject seq", "aligned subject residues, `-` for gaps (reverse complement on the minus strand)"),
    (Column::Evalue, "evalue", "evalue", "expect value: alignments scoring as well expected by chance in a database of this size"),
    (Column::BitScore, "bitscore", "bit score", "bit score: the raw score normalized by the Karlin-Altschul lambda and K"),
    (Column::Score, "score", "score", "raw score"),
    (Column::Length, "length", "alignment length", "alignment columns: pairs and gaps"),
    (Column::PercentIdentity, "pident", "% identity", "100 x nident / length, 3 decimals"),
    (Column::Identities, "nident", "identical", "identical pairs"),
    (Column::Mismatches, "mismatch", "mismatches", "pairs of different residues"),
    (Column::Positives, "positive", "positives", "pairs scoring above 0 (identities included)"),
    (Column::GapOpens, "gapopen", "gap opens", "runs of gap columns"),
    (Column::Gaps, "gaps", "gaps", "gap columns"),
    (Column::PercentPositives, "ppos", "% positives", "100 x positive / length, 2 decimals"),
    (Column::SubjectStrand, "sstrand", "subject strand", "`plus` or `minus` (DNA), `N/A` (protein)"),
    (Column::QueryCoverSubject, "qcovs", "% query coverage per subject", "percentage of the query covered by all the reported alignments to this subject together (an integer: rounded half up below 99, truncated from 99 on)"),
    (Column::QueryCoverHsp, "qcovhsp", "% query coverage per hsp", "percentage of the query covered by this alignment, qend - qstart + 1 residues (an integer, rounded as `qcovs`)"),
    (Column::Btop, "btop", "BTOP", "blast traceback operations: runs of identities as numbers, other columns as query then subject letter"),
];

/// BLAST's `std`: what `-outfmt 6` and `-outfmt 7` print without a column list.
pub const STANDARD: [Column; 12] = [
    Column::QueryAccVer,
    Column::SubjectAccVer,
    Column::PercentIdentity,
    Column::Length,
    Column::Mismatches,
    Column::GapOpens,
    Column::QueryStart,
    Column::QueryEnd,
    Column::SubjectStart,
    Column::SubjectEnd,
    Column::Evalue,
    Column::BitScore,
];

/// What `seqfarm search` prints without `--outfmt`: `std` with the full names
/// (`qseqid sseqid`) in place of the accessions.
pub const DEFAULT: [Column; 12] = {
    let mut columns = STANDARD;
    columns[0] = Column::QuerySeqId;
    columns[1] = Column::SubjectSeqId;
    columns
};

/// What `--json` adds to [`DEFAULT`] without `--outfmt`.
pub const JSON_EXTRA: [Column; 3] = [Column::QueryLen, Column::SubjectLen, Column::Score];

impl Column {
    /// Every column, in the order of BLAST's `-help`.
    pub fn all() -> impl Iterator<Item = Column> {
        COLUMNS.iter().map(|c| c.0)
    }

    fn entry(self) -> &'static (Column, &'static str, &'static str, &'static str) {
        COLUMNS
            .iter()
            .find(|c| c.0 == self)
            .expect("every column is in the table")
    }

    /// The `-outfmt` name (`qseqid`).
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// The label in `-outfmt 7`'s `# Fields:` line (`query id`).
    pub fn label(self) -> &'static str {
        self.entry().2
    }

    /// BLAST's meaning of the column, one line (the README's table is checked against
    /// it).
    #[cfg(test)]
    pub fn meaning(self) -> &'static str {
        self.entry().3
    }

    /// The column of this `-outfmt` name.
    pub fn from_name(name: &str) -> Option<Column> {
        COLUMNS.iter().find(|c| c.1 == name).map(|c| c.0)
    }
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
struct RunLines {
    /// `-outfmt 7`'s first line of every query.
    program: String,
    /// `-outfmt 7`'s `# Database:` line.
    database: String,
    /// DNA sequences.
    dna: bool,
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
    pub fn parse(outfmt: Option<&str>, json: bool) -> Result<Self> {
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
                Some("7") => option_error!(
                    "--outfmt 7 and --json: choose one (--json takes the columns of \
                     --outfmt 6 ...)"
                ),
                Some(other) => option_error!(
                    "--outfmt {other:?}: seqfarm search writes 6 (tabular), 7 (commented \
                     tabular) or, with --json, JSON"
                ),
                None => option_error!("--outfmt is empty: give 6 or 7, then columns if wanted"),
            }
            columns.clear();
            for word in words {
                if word == "std" {
                    columns.extend_from_slice(&STANDARD);
                    continue;
                }
                match Column::from_name(word) {
                    Some(column) => columns.push(column),
                    None => {
                        let known: Vec<&str> = Column::all().map(Column::name).collect();
                        option_error!(
                            "--outfmt: unknown column {word:?}; known columns: std {}",
                            known.join(" ")
                        )
                    }
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
            let _ = write!(
                out,
                "{{\"program\":\"seqfarm search\",\"version\":{},\"database\":{},\
                 \"parameters\":{{\"dna\":{},\"matrix\":{},\"gap_open\":{},\"gap_extend\":{}}},\
                 \"queries\":[",
                json_string(run.version),
                json_string(run.database),
                run.dna,
                json_string(run.matrix),
                run.gap_open,
                run.gap_extend,
            );
        }
    }

    /// Writes what comes before a query's alignments (`hsps` of them; every query gets
    /// this call, also one without alignments).
    pub fn begin_query(&self, out: &mut String, query: &QueryInfo<'_>, hsps: usize) {
        match self.layout {
            Layout::Tabular => {}
            Layout::Commented => {
                let run = self.run_lines();
                out.push_str(&run.program);
                out.push_str("\n# Query: ");
                out.push_str(query.id);
                if !query.description.is_empty() {
                    out.push(' ');
                    out.push_str(query.description);
                }
                out.push('\n');
                out.push_str(&run.database);
                out.push('\n');
                if hsps > 0 {
                    out.push_str("# Fields: ");
                    for (i, column) in self.columns.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(column.label());
                    }
                    out.push('\n');
                }
                let _ = writeln!(out, "# {hsps} hits found");
            }
            Layout::Json => {
                if query.index > 0 {
                    out.push(',');
                }
                let _ = write!(
                    out,
                    "\n{{\"id\":{},\"description\":{},\"length\":{},\"hits\":[",
                    json_string(query.id),
                    json_string(query.description),
                    query.len
                );
            }
        }
    }

    /// Writes one alignment: its tabular line, or its JSON object (`index_in_query`:
    /// 0-based position among the query's alignments).
    pub fn hsp(&self, out: &mut String, hsp: &HspRecord, index_in_query: usize) {
        let dna = self.run_lines().dna;
        match self.layout {
            Layout::Tabular | Layout::Commented => {
                for (i, &column) in self.columns.iter().enumerate() {
                    if i > 0 {
                        out.push('\t');
                    }
                    cell(column, hsp, dna).write_text(out);
                }
                out.push('\n');
            }
            Layout::Json => {
                if index_in_query > 0 {
                    out.push(',');
                }
                out.push_str("\n{");
                for (i, &column) in self.columns.iter().enumerate() {
                    if self.columns[..i].contains(&column) {
                        continue;
                    }
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "\"{}\":", column.name());
                    cell(column, hsp, dna).write_json(out);
                }
                out.push('}');
            }
        }
    }

    /// Writes what follows a query's alignments.
    pub fn end_query(&self, out: &mut String, _query: &QueryInfo<'_>) {
        if self.layout == Layout::Json {
            out.push_str("]}");
        }
    }

    /// Writes what follows the last query (`queries`: how many there were).
    pub fn end(&self, out: &mut String, queries: usize) {
        match self.layout {
            Layout::Tabular => {}
            Layout::Commented => {
                let _ = writeln!(out, "# seqfarm processed {queries} queries");
            }
            Layout::Json => out.push_str("\n]}\n"),
        }
    }
}

/// One column's value of one alignment, before it is written as text or JSON.
enum Cell<'a> {
    Text(Cow<'a, str>),
    Int(i64),
    /// A percentage: full precision in JSON, `decimals` in text.
    Percent(f64, usize),
    Evalue(Option<f64>),
    BitScore(Option<f64>),
    /// `plus`/`minus`, or `None` for protein (`N/A` in text, null in JSON).
    Strand(Option<&'static str>),
}

impl Cell<'_> {
    fn write_text(&self, out: &mut String) {
        match self {
            Cell::Text(text) => out.push_str(text),
            Cell::Int(value) => {
                let _ = write!(out, "{value}");
            }
            Cell::Percent(value, decimals) => {
                let _ = write!(out, "{value:.decimals$}");
            }
            Cell::Evalue(Some(value)) => out.push_str(&format_evalue(*value)),
            Cell::BitScore(Some(value)) => out.push_str(&format_bit_score(*value)),
            Cell::Evalue(None) | Cell::BitScore(None) => out.push_str("NA"),
            Cell::Strand(strand) => out.push_str(strand.unwrap_or("N/A")),
        }
    }

    fn write_json(&self, out: &mut String) {
        match self {
            Cell::Text(text) => out.push_str(&json_string(text)),
            Cell::Int(value) => {
                let _ = write!(out, "{value}");
            }
            Cell::Percent(value, _) | Cell::Evalue(Some(value)) | Cell::BitScore(Some(value)) => {
                out.push_str(&json_number(*value))
            }
            Cell::Evalue(None) | Cell::BitScore(None) | Cell::Strand(None) => out.push_str("null"),
            Cell::Strand(Some(strand)) => out.push_str(&json_string(strand)),
        }
    }
}

fn cell(column: Column, hsp: &HspRecord, dna: bool) -> Cell<'_> {
    let int = |value: usize| Cell::Int(value as i64);
    let long = |value: u64| Cell::Int(value as i64);
    match column {
        Column::QuerySeqId => Cell::Text(Cow::Borrowed(&hsp.query_id)),
        Column::QueryAcc => Cell::Text(accession(&hsp.query_id).0),
        Column::QueryAccVer => Cell::Text(accession(&hsp.query_id).1),
        Column::QueryLen => int(hsp.query_len),
        Column::SubjectSeqId => Cell::Text(Cow::Borrowed(&hsp.subject_id)),
        Column::SubjectAcc => Cell::Text(accession(&hsp.subject_id).0),
        Column::SubjectAccVer => Cell::Text(accession(&hsp.subject_id).1),
        Column::SubjectLen => long(hsp.subject_len),
        Column::QueryStart => int(hsp.query_start),
        Column::QueryEnd => int(hsp.query_end),
        Column::SubjectStart => long(hsp.subject_start),
        Column::SubjectEnd => long(hsp.subject_end),
        Column::QuerySeq => Cell::Text(String::from_utf8_lossy(&hsp.query_aligned)),
        Column::SubjectSeq => Cell::Text(String::from_utf8_lossy(&hsp.subject_aligned)),
        Column::Evalue => Cell::Evalue(hsp.evalue),
        Column::BitScore => Cell::BitScore(hsp.bit_score),
        Column::Score => Cell::Int(i64::from(hsp.score)),
        Column::Length => int(hsp.length),
        Column::PercentIdentity => Cell::Percent(percent(hsp.identities, hsp.length), 3),
        Column::Identities => int(hsp.identities),
        Column::Mismatches => int(hsp.mismatches),
        Column::Positives => int(hsp.positives),
        Column::GapOpens => int(hsp.gap_opens),
        Column::Gaps => int(hsp.gaps),
        Column::PercentPositives => Cell::Percent(percent(hsp.positives, hsp.length), 2),
        Column::SubjectStrand => Cell::Strand(match (dna, hsp.minus) {
            (false, _) => None,
            (true, false) => Some("plus"),
            (true, true) => Some("minus"),
        }),
        Column::QueryCoverSubject => {
            Cell::Int(coverage(hsp.query_covered_by_subject, hsp.query_len))
        }
        Column::QueryCoverHsp => {
            let span = (hsp.query_end + 1).saturating_sub(hsp.query_start);
            Cell::Int(coverage(span, hsp.query_len))
        }
        Column::Btop => Cell::Text(Cow::Owned(btop(&hsp.query_aligned, &hsp.subject_aligned))),
    }
}

/// `100 x part / whole`, 0 when `whole` is 0.
fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// BLAST's integer query coverage: rounded half up below 99 %, truncated from 99 % on
/// (so 99.6 % reads 99, and only a whole query reads 100).
fn coverage(covered: usize, query_len: usize) -> i64 {
    let value = percent(covered, query_len);
    if value < 99.0 {
        (value + 0.5) as i64
    } else {
        value as i64
    }
}

/// BLAST's traceback operations: the length of each run of identical pairs, and for
/// every other column the query letter then the subject letter (`-` for a gap).
fn btop(query: &[u8], subject: &[u8]) -> String {
    let mut text = String::new();
    let mut run = 0usize;
    for (&q, &s) in query.iter().zip(subject) {
        if q != b'-' && q.eq_ignore_ascii_case(&s) {
            run += 1;
            continue;
        }
        if run > 0 {
            let _ = write!(text, "{run}");
            run = 0;
        }
        text.push(q as char);
        text.push(s as char);
    }
    if run > 0 {
        let _ = write!(text, "{run}");
    }
    text
}

/// Tags of FASTA identifiers (NCBI's `tag|accession|name` form) whose next field is an
/// accession.
const ACCESSION_TAGS: [&str; 13] = [
    "ref", "gb", "emb", "dbj", "sp", "tr", "pir", "prf", "tpg", "tpe", "tpd", "gpp", "nat",
];

/// RefSeq's accession prefixes (before the `_`).
const REFSEQ_PREFIXES: [&str; 15] = [
    "AC", "AP", "NC", "NG", "NM", "NP", "NR", "NT", "NW", "NZ", "XM", "XP", "XR", "YP", "WP",
];

/// The accession and the accession with its version of a sequence name, as BLAST reads
/// them from a database built with `-parse_seqids`: `sp|P12345|NAME_HUMAN` gives
/// `P12345` twice, `NC_045512.2` gives `NC_045512` and `NC_045512.2`,
/// `gi|123|ref|NM_000001.2|` gives `NM_000001`, `lcl|x` gives `x`, `gnl|db|x` gives
/// `db:x`, `pdb|1ABC|A` gives `1ABC_A`; a name that is no accession (`chr1`, `seq.1`)
/// gives itself twice.
pub fn accession(id: &str) -> (Cow<'_, str>, Cow<'_, str>) {
    let whole = || (Cow::Borrowed(id), Cow::Borrowed(id));
    if !id.contains('|') {
        return match split_version(id) {
            Some((base, _)) if is_accession(base) => (
                Cow::Owned(base.to_ascii_uppercase()),
                Cow::Owned(id.to_ascii_uppercase()),
            ),
            None if is_accession(id) => {
                let upper = id.to_ascii_uppercase();
                (Cow::Owned(upper.clone()), Cow::Owned(upper))
            }
            _ => whole(),
        };
    }
    let fields: Vec<&str> = id.split('|').collect();
    let field = |i: usize| fields.get(i).copied().unwrap_or("");
    let mut fallback: Option<String> = None;
    let mut i = 0;
    while i < fields.len() {
        let tag = fields[i].to_ascii_lowercase();
        match tag.as_str() {
            "gi" | "bbs" | "lcl" => {
                fallback.get_or_insert_with(|| field(i + 1).to_string());
                i += 2;
            }
            "gnl" => {
                fallback.get_or_insert_with(|| format!("{}:{}", field(i + 1), field(i + 2)));
                i += 3;
            }
            "pdb" => {
                let text = match field(i + 2) {
                    "" => field(i + 1).to_string(),
                    chain => format!("{}_{chain}", field(i + 1)),
                };
                return (Cow::Owned(text.clone()), Cow::Owned(text));
            }
            tag if ACCESSION_TAGS.contains(&tag) => {
                let accver = match field(i + 1) {
                    "" => field(i + 2),
                    accver => accver,
                };
                let acc = split_version(accver).map_or(accver, |(base, _)| base);
                return (Cow::Owned(acc.to_string()), Cow::Owned(accver.to_string()));
            }
            _ => break,
        }
    }
    match fallback {
        Some(text) => (Cow::Owned(text.clone()), Cow::Owned(text)),
        None => whole(),
    }
}

/// `NC_045512.2` as (`NC_045512`, `2`): a version is digits after the last dot.
fn split_version(text: &str) -> Option<(&str, &str)> {
    let (base, version) = text.rsplit_once('.')?;
    (!base.is_empty() && !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit()))
        .then_some((base, version))
}

/// Whether a bare name (no version) has the shape of an INSDC, RefSeq or UniProt
/// accession, which BLAST recognizes without a tag.
fn is_accession(text: &str) -> bool {
    let upper = text.to_ascii_uppercase();
    if let Some((prefix, rest)) = upper.split_once('_') {
        return REFSEQ_PREFIXES.contains(&prefix)
            && rest.len() >= 5
            && rest.bytes().all(|b| b.is_ascii_alphanumeric())
            && rest.bytes().any(|b| b.is_ascii_digit());
    }
    let bytes = upper.as_bytes();
    if !bytes.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let letters = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let digits = bytes.len() - letters;
    let digits_only = bytes[letters..].iter().all(u8::is_ascii_digit);
    let insdc = digits_only
        && matches!(
            (letters, digits),
            (1, 5) | (2, 6) | (2, 8) | (3, 5) | (3, 7) | (4, 8..=10) | (6, 9..=11)
        );
    insdc || is_uniprot(bytes)
}

/// UniProt's accession shapes: `[OPQ][0-9][A-Z0-9]{3}[0-9]` and
/// `[A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2}`.
fn is_uniprot(b: &[u8]) -> bool {
    let alnum = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
    let block =
        |s: &[u8]| s[0].is_ascii_uppercase() && alnum(s[1]) && alnum(s[2]) && s[3].is_ascii_digit();
    match b.len() {
        6 if matches!(b[0], b'O' | b'P' | b'Q') => {
            b[1].is_ascii_digit() && b[2..5].iter().all(|&c| alnum(c)) && b[5].is_ascii_digit()
        }
        6 | 10 => {
            b[0].is_ascii_uppercase()
                && !matches!(b[0], b'O' | b'P' | b'Q')
                && b[1].is_ascii_digit()
                && b[2..].chunks(4).all(block)
        }
        _ => false,
    }
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// A JSON number (shortest text that reads back as the same `f64`), `null` if not
/// finite.
fn json_number(value: f64) -> String {
    if value.is_finite() {
        serde_json::to_string(&value).expect("a finite number serializes")
    } else {
        "null".to_string()
    }
}

/// E-values as BLAST's tabular output prints them.
pub fn format_evalue(evalue: f64) -> String {
    if evalue < 1.0e-180 {
        "0.0".to_string()
    } else if evalue < 0.0009 {
        scientific(evalue, 2)
    } else if evalue < 0.1 {
        format!("{evalue:.3}")
    } else if evalue < 1.0 {
        format!("{evalue:.2}")
    } else if evalue < 10.0 {
        format!("{evalue:.1}")
    } else {
        format!("{evalue:.0}")
    }
}

/// Bit scores as BLAST's tabular output prints them.
pub fn format_bit_score(bits: f64) -> String {
    if bits > 9999.0 {
        scientific(bits, 3)
    } else if bits > 99.9 {
        format!("{}", bits as i64)
    } else {
        format!("{bits:.1}")
    }
}

/// C's `%.{precision}e`: a two-digit (at least) exponent with its sign.
fn scientific(value: f64, precision: usize) -> String {
    let text = format!("{value:.precision$e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, digits) = match exponent.strip_prefix('-') {
                Some(digits) => ('-', digits),
                None => ('+', exponent),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tr|H6QJ35|H6QJ35_RICMA` against `tr|Q03SP8|Q03SP8_LACBA`, a line BLAST wrote.
    fn checked_record() -> HspRecord {
        HspRecord {
            query_id: "tr|H6QJ35|H6QJ35_RICMA".into(),
            query_len: 352,
            subject_id: "tr|Q03SP8|Q03SP8_LACBA".into(),
            subject_len: 340,
            score: 474,
            evalue: Some(7.3712e-49),
            bit_score: Some(187.2),
            query_start: 39,
            query_end: 344,
            subject_start: 30,
            subject_end: 333,
            length: 311,
            identities: 116,
            mismatches: 183,
            positives: 170,
            gap_opens: 7,
            gaps: 12,
            query_covered_by_subject: 306,
            ..HspRecord::default()
        }
    }

    /// An alignment with a gap, BLAST's first hit of `sp|P12345|NAME_HUMAN`.
    fn gapped_record() -> HspRecord {
        HspRecord {
            query_id: "sp|P12345|NAME_HUMAN".into(),
            query_len: 64,
            subject_id: "NC_045512.2".into(),
            subject_len: 78,
            minus: false,
            score: 325,
            evalue: Some(9.56e-47),
            bit_score: Some(129.4),
            query_start: 1,
            query_end: 64,
            subject_start: 1,
            subject_end: 63,
            length: 64,
            identities: 61,
            mismatches: 2,
            positives: 63,
            gap_opens: 1,
            gaps: 1,
            query_aligned: b"MKVLAAGIVGLLLAWQSSAEELRRKLEEALKRAGNWWTPDEQCKKLGHHHWSTRPLYDEVAKML"
                .to_vec(),
            subject_aligned: b"MKVLAAGIVGLL-AWQSSAEDLRRKIEEALKRAGNWWTPDEQCKKLGHHHWSTRPLYDEVAKML"
                .to_vec(),
            query_covered_by_subject: 64,
        }
    }

    fn run_info(dna: bool) -> RunInfo<'static> {
        RunInfo {
            version: "0.1.0",
            database: "db.fa",
            dna,
            matrix: "BLOSUM62",
            gap_open: 11,
            gap_extend: 1,
        }
    }

    fn query(index: usize, id: &str) -> QueryInfo<'_> {
        QueryInfo {
            index,
            id,
            description: "some protein",
            len: 64,
        }
    }

    /// The whole output of `format` for queries given as (id, records).
    fn document(format: &OutputFormat, dna: bool, queries: &[(&str, Vec<HspRecord>)]) -> String {
        let mut out = String::new();
        format.begin(&mut out, &run_info(dna));
        for (index, (id, records)) in queries.iter().enumerate() {
            let info = query(index, id);
            format.begin_query(&mut out, &info, records.len());
            for (i, record) in records.iter().enumerate() {
                format.hsp(&mut out, record, i);
            }
            format.end_query(&mut out, &info);
        }
        format.end(&mut out, queries.len());
        out
    }

    fn text_line(columns: &str, record: &HspRecord, dna: bool) -> String {
        let format = OutputFormat::parse(Some(&format!("6 {columns}")), false).unwrap();
        format.begin(&mut String::new(), &run_info(dna));
        let mut out = String::new();
        format.hsp(&mut out, record, 0);
        out.trim_end_matches('\n').to_string()
    }

    #[test]
    fn numbers_as_blast_prints_them() {
        assert_eq!(format_evalue(2.3112e-174), "2.31e-174");
        assert_eq!(format_evalue(3.0e-5), "3.00e-05");
        assert_eq!(format_evalue(1.0e-200), "0.0");
        assert_eq!(format_evalue(0.0123), "0.012");
        assert_eq!(format_evalue(0.5), "0.50");
        assert_eq!(format_evalue(3.24), "3.2");
        assert_eq!(format_evalue(123.4), "123");
        assert_eq!(format_bit_score(679.9), "679");
        assert_eq!(format_bit_score(43.128), "43.1");
        assert_eq!(format_bit_score(12345.0), "1.234e+04");
    }

    #[test]
    fn parse_layouts_and_columns() {
        let default = OutputFormat::parse(None, false).unwrap();
        assert_eq!(
            (default.layout, default.columns),
            (Layout::Tabular, DEFAULT.to_vec())
        );
        let six = OutputFormat::parse(Some("6"), false).unwrap();
        assert_eq!(
            (six.layout, six.columns),
            (Layout::Tabular, STANDARD.to_vec())
        );
        let seven = OutputFormat::parse(Some(" 7  std qlen "), false).unwrap();
        let mut expected = STANDARD.to_vec();
        expected.push(Column::QueryLen);
        assert_eq!((seven.layout, seven.columns), (Layout::Commented, expected));
        let chosen = OutputFormat::parse(Some("6 qseqid sseqid evalue"), false).unwrap();
        assert_eq!(
            chosen.columns,
            [Column::QuerySeqId, Column::SubjectSeqId, Column::Evalue]
        );
        let json = OutputFormat::parse(None, true).unwrap();
        assert_eq!(
            (json.layout, json.columns),
            (Layout::Json, [&DEFAULT[..], &JSON_EXTRA[..]].concat())
        );
        let json = OutputFormat::parse(Some("6 qseqid qcovs"), true).unwrap();
        assert_eq!(
            (json.layout, json.columns),
            (
                Layout::Json,
                vec![Column::QuerySeqId, Column::QueryCoverSubject]
            )
        );
    }

    #[test]
    fn std_is_blast_2_12_std() {
        let names: Vec<&str> = STANDARD.iter().map(|c| c.name()).collect();
        assert_eq!(
            names.join(" "),
            "qaccver saccver pident length mismatch gapopen qstart qend sstart send evalue bitscore"
        );
    }

    #[test]
    fn parse_errors_name_the_problem() {
        let error = OutputFormat::parse(Some("6 qseqid qcov evalue"), false)
            .unwrap_err()
            .to_string();
        assert!(error.contains("\"qcov\""), "{error}");
        assert!(
            error.contains("qcovhsp") && error.contains("std"),
            "{error}"
        );
        let error = OutputFormat::parse(Some("5"), false)
            .unwrap_err()
            .to_string();
        assert!(error.contains("\"5\""), "{error}");
        assert!(OutputFormat::parse(Some(""), false).is_err());
        assert!(OutputFormat::parse(Some("7 qseqid"), true).is_err());
        let format = OutputFormat::parse(Some("6 qseqid qcovs"), false).unwrap();
        assert!(format.uses(Column::QueryCoverSubject) && !format.uses(Column::QuerySeq));
    }

    #[test]
    fn column_names_are_unique_and_every_column_is_listed() {
        let names: Vec<&str> = Column::all().map(Column::name).collect();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "{name}");
            assert_eq!(Column::from_name(name).map(Column::name), Some(*name));
        }
        assert_eq!(names.len(), COLUMNS.len());
    }

    #[test]
    fn readme_lists_every_column_with_its_meaning() {
        let readme = include_str!("../../../../../README.md");
        for column in Column::all() {
            let (name, label) = (column.name(), column.label());
            let meaning = column.meaning().replace('|', "\\|");
            let row = format!("| `{name}` | {label} | {meaning} |");
            assert!(readme.contains(&row), "README lacks the row\n{row}");
        }
    }

    #[test]
    fn default_line_is_the_twelve_column_line() {
        let format = OutputFormat::parse(None, false).unwrap();
        let mut out = String::new();
        format.hsp(&mut out, &checked_record(), 0);
        assert_eq!(
            out,
            "tr|H6QJ35|H6QJ35_RICMA\ttr|Q03SP8|Q03SP8_LACBA\t37.299\t311\t183\t7\t39\t344\t30\t333\t7.37e-49\t187\n"
        );
        let mut record = checked_record();
        record.evalue = None;
        record.bit_score = None;
        out.clear();
        format.hsp(&mut out, &record, 0);
        assert!(out.ends_with("\t30\t333\tNA\tNA\n"), "{out}");
    }

    #[test]
    fn every_column_as_blast_prints_it() {
        let record = gapped_record();
        let expected = [
            ("qseqid", "sp|P12345|NAME_HUMAN"),
            ("qacc", "P12345"),
            ("qaccver", "P12345"),
            ("qlen", "64"),
            ("sseqid", "NC_045512.2"),
            ("sacc", "NC_045512"),
            ("saccver", "NC_045512.2"),
            ("slen", "78"),
            ("qstart", "1"),
            ("qend", "64"),
            ("sstart", "1"),
            ("send", "63"),
            (
                "qseq",
                "MKVLAAGIVGLLLAWQSSAEELRRKLEEALKRAGNWWTPDEQCKKLGHHHWSTRPLYDEVAKML",
            ),
            (
                "sseq",
                "MKVLAAGIVGLL-AWQSSAEDLRRKIEEALKRAGNWWTPDEQCKKLGHHHWSTRPLYDEVAKML",
            ),
            ("evalue", "9.56e-47"),
            ("bitscore", "129"),
            ("score", "325"),
            ("length", "64"),
            ("pident", "95.312"),
            ("nident", "61"),
            ("mismatch", "2"),
            ("positive", "63"),
            ("gapopen", "1"),
            ("gaps", "1"),
            ("ppos", "98.44"),
            ("sstrand", "N/A"),
            ("qcovs", "100"),
            ("qcovhsp", "100"),
            ("btop", "12L-7ED4LI38"),
        ];
        assert_eq!(expected.len(), COLUMNS.len());
        for (name, text) in expected {
            assert_eq!(text_line(name, &record, false), text, "{name}");
        }
        let all: Vec<&str> = expected.iter().map(|e| e.0).collect();
        let texts: Vec<&str> = expected.iter().map(|e| e.1).collect();
        assert_eq!(text_line(&all.join(" "), &record, false), texts.join("\t"));
        let mut minus = record.clone();
        minus.minus = true;
        assert_eq!(text_line("sstrand", &record, true), "plus");
        assert_eq!(text_line("sstrand", &minus, true), "minus");
    }

    #[test]
    fn coverage_rounds_as_blast_does() {
        // Figures from blastn 2.12: 249/250 and 199/200 read 99, 30/31 reads 97.
        assert_eq!(coverage(249, 250), 99);
        assert_eq!(coverage(199, 200), 99);
        assert_eq!(coverage(30, 31), 97);
        assert_eq!(coverage(12, 64), 19);
        assert_eq!(coverage(20, 64), 31);
        assert_eq!(coverage(64, 64), 100);
        assert_eq!(coverage(0, 0), 0);
        let mut record = gapped_record();
        record.query_start = 3;
        record.query_end = 14;
        record.query_covered_by_subject = 20;
        assert_eq!(text_line("qcovhsp qcovs", &record, false), "19\t31");
    }

    #[test]
    fn percentages_round_as_printf_does() {
        // C's printf rounds the exact binary value, ties to even: 3.125 reads 3.12.
        let mut record = gapped_record();
        record.length = 32;
        record.positives = 1;
        record.identities = 3;
        assert_eq!(text_line("ppos pident", &record, false), "3.12\t9.375");
        record.length = 64;
        record.identities = 1;
        assert_eq!(text_line("pident", &record, false), "1.562");
    }

    #[test]
    fn accessions_as_blast_parses_them() {
        // What blastn 2.12 -parse_deflines prints as qacc and qaccver for these names.
        let cases = [
            ("sp|P12345|NAME_HUMAN", "P12345", "P12345"),
            ("sp|P12345.3|NAME_HUMAN", "P12345", "P12345.3"),
            ("tr|A0A0W7XYV8|A0A0W7XYV8_9BACI", "A0A0W7XYV8", "A0A0W7XYV8"),
            ("NC_045512.2", "NC_045512", "NC_045512.2"),
            ("nc_045512.2", "NC_045512", "NC_045512.2"),
            ("NM_000001", "NM_000001", "NM_000001"),
            ("WP_012345678.1", "WP_012345678", "WP_012345678.1"),
            ("NZ_CP012345.1", "NZ_CP012345", "NZ_CP012345.1"),
            ("AB123456.1", "AB123456", "AB123456.1"),
            ("CAA12345.1", "CAA12345", "CAA12345.1"),
            ("ABCD01000001.1", "ABCD01000001", "ABCD01000001.1"),
            ("P12345.3", "P12345", "P12345.3"),
            ("A0A0W7XYV8.2", "A0A0W7XYV8", "A0A0W7XYV8.2"),
            ("gi|123|ref|NM_000001.2|", "NM_000001", "NM_000001.2"),
            ("emb|CAA12345.1|x", "CAA12345", "CAA12345.1"),
            ("gb|AB123456.1|", "AB123456", "AB123456.1"),
            ("ref|NM_000001|", "NM_000001", "NM_000001"),
            ("gi|5", "5", "5"),
            ("lcl|myseq", "myseq", "myseq"),
            ("gnl|db|id7", "db:id7", "db:id7"),
            ("pdb|1ABC|A", "1ABC_A", "1ABC_A"),
            ("prf||1234A", "1234A", "1234A"),
            ("bbs|123", "123", "123"),
            ("chr1", "chr1", "chr1"),
            ("seq.1", "seq.1", "seq.1"),
            (
                "ENST00000456328.2",
                "ENST00000456328.2",
                "ENST00000456328.2",
            ),
            ("XP_1.2.3", "XP_1.2.3", "XP_1.2.3"),
            ("NC_045512.2.1", "NC_045512.2.1", "NC_045512.2.1"),
            ("AB_1", "AB_1", "AB_1"),
        ];
        for (id, acc, accver) in cases {
            let (a, v) = accession(id);
            assert_eq!((a.as_ref(), v.as_ref()), (acc, accver), "{id}");
        }
    }

    #[test]
    fn commented_with_and_without_hits() {
        let format = OutputFormat::parse(Some("7 qseqid sseqid qcovs sstrand"), false).unwrap();
        let text = document(
            &format,
            false,
            &[
                (
                    "sp|P12345|NAME_HUMAN",
                    vec![gapped_record(), checked_record()],
                ),
                ("q2", vec![]),
            ],
        );
        assert_eq!(
            text,
            "# seqfarm search 0.1.0\n\
             # Query: sp|P12345|NAME_HUMAN some protein\n\
             # Database: db.fa\n\
             # Fields: query id, subject id, % query coverage per subject, subject strand\n\
             # 2 hits found\n\
             sp|P12345|NAME_HUMAN\tNC_045512.2\t100\tN/A\n\
             tr|H6QJ35|H6QJ35_RICMA\ttr|Q03SP8|Q03SP8_LACBA\t87\tN/A\n\
             # seqfarm search 0.1.0\n\
             # Query: q2 some protein\n\
             # Database: db.fa\n\
             # 0 hits found\n\
             # seqfarm processed 2 queries\n"
        );
        let format = OutputFormat::parse(Some("7"), false).unwrap();
        let text = document(&format, false, &[("q", vec![gapped_record()])]);
        assert!(text.contains(
            "# Fields: query acc.ver, subject acc.ver, % identity, alignment length, \
             mismatches, gap opens, q. start, q. end, s. start, s. end, evalue, bit score\n"
        ));
    }

    #[test]
    fn commented_query_line_without_description() {
        let format = OutputFormat::parse(Some("7"), false).unwrap();
        format.begin(&mut String::new(), &run_info(false));
        let mut out = String::new();
        let info = QueryInfo {
            index: 0,
            id: "q2",
            description: "",
            len: 5,
        };
        format.begin_query(&mut out, &info, 0);
        assert_eq!(
            out,
            "# seqfarm search 0.1.0\n# Query: q2\n# Database: db.fa\n# 0 hits found\n"
        );
    }

    #[test]
    fn tabular_has_no_header_or_trailer() {
        let format = OutputFormat::parse(None, false).unwrap();
        let text = document(
            &format,
            false,
            &[("q", vec![checked_record()]), ("q2", vec![])],
        );
        assert_eq!(text.lines().count(), 1);
    }

    #[test]
    fn json_is_one_document_with_typed_values() {
        let format = OutputFormat::parse(
            Some("6 std qseqid qlen score pident ppos qcovs sstrand qseq"),
            true,
        )
        .unwrap();
        let mut no_stats = checked_record();
        no_stats.evalue = None;
        no_stats.bit_score = None;
        let queries = [
            ("sp|P12345|NAME_HUMAN", vec![gapped_record(), no_stats]),
            ("q\"2\"", vec![]),
            ("q3", vec![checked_record()]),
        ];
        let text = document(&format, false, &queries);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["program"], "seqfarm search");
        assert_eq!(value["version"], "0.1.0");
        assert_eq!(value["database"], "db.fa");
        assert_eq!(value["parameters"]["matrix"], "BLOSUM62");
        assert_eq!(value["parameters"]["gap_open"], 11);
        let parsed = value["queries"].as_array().unwrap();
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed[1]["id"], "q\"2\"");
        assert_eq!(parsed[1]["hits"].as_array().unwrap().len(), 0);
        assert_eq!(parsed[0]["description"], "some protein");
        assert_eq!(parsed[0]["length"], 64);
        let hit = &parsed[0]["hits"][0];
        let record = gapped_record();
        assert_eq!(hit["qaccver"], "P12345");
        assert_eq!(hit["saccver"], "NC_045512.2");
        assert_eq!(hit["qseqid"], "sp|P12345|NAME_HUMAN");
        assert_eq!(hit["qlen"], 64);
        assert_eq!(hit["score"], 325);
        assert_eq!(hit["length"], 64);
        assert_eq!(hit["sstart"], 1);
        assert_eq!(hit["evalue"].as_f64(), record.evalue);
        assert_eq!(hit["bitscore"].as_f64(), record.bit_score);
        assert_eq!(hit["pident"].as_f64(), Some(100.0 * 61.0 / 64.0));
        assert_eq!(hit["ppos"].as_f64(), Some(100.0 * 63.0 / 64.0));
        assert_eq!(hit["qcovs"], 100);
        assert!(hit["sstrand"].is_null());
        assert_eq!(
            hit["qseq"].as_str().map(str::as_bytes),
            Some(&record.query_aligned[..])
        );
        // `pident` is in `std` and repeated: it appears once.
        assert_eq!(hit.as_object().unwrap().len(), 19);
        let bare = &parsed[0]["hits"][1];
        assert!(bare["evalue"].is_null() && bare["bitscore"].is_null());
        assert_eq!(parsed[2]["hits"][0]["evalue"].as_f64(), Some(7.3712e-49));
    }

    #[test]
    fn json_repeated_columns_appear_once() {
        let format = OutputFormat::parse(Some("6 qlen qlen slen qlen"), true).unwrap();
        let text = document(&format, false, &[("q", vec![gapped_record()])]);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let hit = value["queries"][0]["hits"][0].as_object().unwrap();
        assert_eq!(hit.len(), 2);
        assert_eq!(hit["slen"], 78);
    }

    #[test]
    fn json_without_queries_or_with_dna_strands() {
        let format = OutputFormat::parse(Some("6 sstrand"), true).unwrap();
        let value: serde_json::Value = serde_json::from_str(&document(&format, true, &[])).unwrap();
        assert_eq!(value["queries"].as_array().unwrap().len(), 0);
        assert_eq!(value["parameters"]["dna"], true);
        let mut minus = gapped_record();
        minus.minus = true;
        let text = document(&format, true, &[("q", vec![gapped_record(), minus])]);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["queries"][0]["hits"][0]["sstrand"], "plus");
        assert_eq!(value["queries"][0]["hits"][1]["sstrand"], "minus");
    }

    /// Runs a BLAST program on `query` and `subject` FASTA texts with tabular `columns`;
    /// `None` (after a note) where the program is not installed, outside CI.
    fn run_blast(
        program: &str,
        args: &[&str],
        query: &str,
        subject: &str,
        columns: &str,
    ) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let (q, s) = (dir.path().join("q.fa"), dir.path().join("s.fa"));
        std::fs::write(&q, query).unwrap();
        std::fs::write(&s, subject).unwrap();
        let outfmt = format!("6 {columns}");
        let result = std::process::Command::new(program)
            .args([
                "-parse_deflines",
                "-query",
                q.to_str().unwrap(),
                "-subject",
                s.to_str().unwrap(),
            ])
            .args(args)
            .args(["-outfmt", &outfmt])
            .output();
        match result {
            Ok(output) => {
                assert!(
                    output.status.success(),
                    "{program}: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
                Some(String::from_utf8(output.stdout).unwrap())
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "{program} is not installed (CI)"
                );
                eprintln!("note: {program} not installed; BLAST column comparison skipped");
                None
            }
            Err(error) => panic!("{program}: {error}"),
        }
    }

    /// Fills a record from BLAST's own figures (a line of `BLAST_COLUMNS`) and checks that
    /// every column prints as BLAST printed it; `qcovs` from the union of the query ranges
    /// of the subject's lines.
    fn check_blast_lines(text: &str, dna: bool) {
        let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
        assert!(lines.len() >= 2, "{text}");
        let names: Vec<&str> = BLAST_COLUMNS.split_whitespace().collect();
        let field = |line: &[&str], name: &str| -> String {
            line[names.iter().position(|n| *n == name).unwrap()].to_string()
        };
        let number = |line: &[&str], name: &str| -> u64 { field(line, name).parse().unwrap() };
        for line in &lines {
            assert_eq!(line.len(), names.len(), "{line:?}");
            let (qstart, qend) = (
                number(line, "qstart") as usize,
                number(line, "qend") as usize,
            );
            let mut covered = vec![false; number(line, "qlen") as usize + 1];
            for other in &lines {
                if field(other, "qseqid") == field(line, "qseqid")
                    && field(other, "sseqid") == field(line, "sseqid")
                {
                    for c in &mut covered
                        [number(other, "qstart") as usize..=number(other, "qend") as usize]
                    {
                        *c = true;
                    }
                }
            }
            let record = HspRecord {
                query_id: field(line, "qseqid"),
                query_len: number(line, "qlen") as usize,
                subject_id: field(line, "sseqid"),
                subject_len: number(line, "slen"),
                minus: field(line, "sstrand") == "minus",
                score: number(line, "score") as i32,
                evalue: Some(field(line, "evalue").parse().unwrap()),
                bit_score: Some(field(line, "bitscore").parse().unwrap()),
                query_start: qstart,
                query_end: qend,
                subject_start: number(line, "sstart"),
                subject_end: number(line, "send"),
                length: number(line, "length") as usize,
                identities: number(line, "nident") as usize,
                mismatches: number(line, "mismatch") as usize,
                positives: number(line, "positive") as usize,
                gap_opens: number(line, "gapopen") as usize,
                gaps: number(line, "gaps") as usize,
                query_aligned: field(line, "qseq").into_bytes(),
                subject_aligned: field(line, "sseq").into_bytes(),
                query_covered_by_subject: covered.iter().filter(|&&c| c).count(),
            };
            assert_eq!(text_line(BLAST_COLUMNS, &record, dna), line.join("\t"));
        }
    }

    /// The columns compared with BLAST's own text.
    const BLAST_COLUMNS: &str = "qseqid sseqid qacc qaccver sacc saccver qlen slen qcovs \
        qcovhsp nident positive gaps ppos pident length mismatch gapopen qstart qend sstart \
        send sstrand qseq sseq score evalue bitscore btop";

    #[test]
    fn columns_print_as_blastp_and_blastn_print_them() {
        let query = ">sp|P12345|NAME_HUMAN some protein\n\
            MKVLAAGIVGLLLAWQSSAEELRRKLEEALKRAGNWWTPDEQCKKLGHHHWSTRPLYDEVAKML\n";
        let subject = ">tr|Q9XYZ1|Q9XYZ1_MOUSE one\n\
            MKVLAAGIVGLLAWQSSAEDLRRKIEEALKRAGNWWTPDEQCKKLGHHHWSTRPLYDEVAKMLAAAMKVLAAGIVGLL\n\
            >NC_045512.2 two\nPPPPPPMKVLAAGIVGLLAWQSSAEPPPPP\n";
        let args = ["-comp_based_stats", "0", "-seg", "no"];
        if let Some(text) = run_blast("blastp", &args, query, subject, BLAST_COLUMNS) {
            check_blast_lines(&text, false);
        }
        // A DNA subject holding the query's region on both strands, with a mismatch
        // and a two-base deletion in the query.
        let genome = crate::cmd::search::records::random_dna(&mut 7, 300);
        let mut read = genome[40..160].to_vec();
        read[30] = if read[30] == b'A' { b'C' } else { b'A' };
        read.drain(70..72);
        let mut reverse = genome.clone();
        crate::cmd::search::traceback::reverse_complement(&mut reverse);
        let query = format!(">NM_000001.2 read\n{}\n", String::from_utf8(read).unwrap());
        let subject = format!(
            ">NC_045512.2 minus\n{}\n>chr1 plus\n{}\n",
            String::from_utf8(reverse).unwrap(),
            String::from_utf8(genome).unwrap()
        );
        let args = [
            "-task",
            "blastn",
            "-dust",
            "no",
            "-reward",
            "2",
            "-penalty",
            "-3",
            "-gapopen",
            "5",
            "-gapextend",
            "2",
        ];
        if let Some(text) = run_blast("blastn", &args, &query, &subject, BLAST_COLUMNS) {
            assert!(
                text.contains("\tminus\t") && text.contains("\tplus\t"),
                "{text}"
            );
            check_blast_lines(&text, true);
        }
    }
}
