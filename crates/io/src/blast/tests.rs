//! The writers' tests: parsing `--outfmt`, every column against BLAST's own text, and
//! whole documents in each layout. The fixtures are shared with
//! [`super::blast_program_tests`].

use super::cells::coverage;
use super::*;

/// `tr|H6QJ35|H6QJ35_RICMA` against `tr|Q03SP8|Q03SP8_LACBA`, a line BLAST wrote.
pub(super) fn checked_record() -> HspRecord {
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
pub(super) fn gapped_record() -> HspRecord {
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
        query_aligned: b"MKVLAAGIVGLLLAWQSSAEELRRKLEEALKRAGNWWTPDEQCKKLGHHHWSTRPLYDEVAKML".to_vec(),
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

pub(super) fn text_line(columns: &str, record: &HspRecord, dna: bool) -> String {
    let format = OutputFormat::parse(Some(&format!("6 {columns}")), false).unwrap();
    format.begin(&mut String::new(), &run_info(dna));
    let mut out = String::new();
    format.hsp(&mut out, record, 0);
    out.trim_end_matches('\n').to_string()
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
fn parse_errors_are_typed_with_the_options_messages() {
    let error = |outfmt: &str, json: bool| OutputFormat::parse(Some(outfmt), json).unwrap_err();
    assert_eq!(error("7 qseqid", true), BlastFormatError::CommentedJson);
    assert_eq!(
        error("7", true).to_string(),
        "--outfmt 7 and --json: choose one (--json takes the columns of --outfmt 6 ...)"
    );
    assert_eq!(
        error("5", false),
        BlastFormatError::UnknownLayout("5".into())
    );
    assert_eq!(
        error("5", false).to_string(),
        "--outfmt \"5\": seqfarm search writes 6 (tabular), 7 (commented tabular) or, with \
         --json, JSON"
    );
    assert_eq!(error(" ", false), BlastFormatError::Empty);
    assert_eq!(
        error("", true).to_string(),
        "--outfmt is empty: give 6 or 7, then columns if wanted"
    );
    assert_eq!(
        error("6 qcov", false),
        BlastFormatError::UnknownColumn("qcov".into())
    );
    assert_eq!(
        error("6 qcov", false).to_string(),
        "--outfmt: unknown column \"qcov\"; known columns: std qseqid qacc qaccver qlen \
         sseqid sacc saccver slen qstart qend sstart send qseq sseq evalue bitscore score \
         length pident nident mismatch positive gapopen gaps ppos sstrand qcovs qcovhsp btop"
    );
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
    assert_eq!(expected.len(), Column::all().count());
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
