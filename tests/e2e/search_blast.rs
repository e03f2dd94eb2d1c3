//! `seqfarm search` against the installed BLAST+ (blastn, blastp) and parasail, run live
//! on the bundled DNA and protein test data: the same alignments, column for column.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::search::{parasail_scores, path, read_text, score_map, search};
use crate::support::{data, peer, reverse_complement, succeeded};

/// The columns compared with blastn's (the first three name an alignment).
const DNA_COLUMNS: &str = "qseqid sseqid sstrand qstart qend sstart send length nident \
                           mismatch gapopen gaps score qlen slen pident qcovhsp evalue bitscore";

/// The columns compared with blastp's (the first two name an alignment).
const PROTEIN_COLUMNS: &str = "qseqid sseqid qlen slen qstart qend sstart send length nident \
                               positive mismatch gapopen gaps ppos score qcovhsp evalue bitscore";

/// Tabular lines split into fields, keyed by their first `key` fields, which must name
/// one line each.
fn by_key(text: &str, key: usize) -> BTreeMap<Vec<String>, Vec<String>> {
    let mut lines = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<String> = line.split('\t').map(str::to_string).collect();
        let previous = lines.insert(fields[..key].to_vec(), fields);
        assert!(previous.is_none(), "two lines for one alignment: {line}");
    }
    lines
}

/// Field `name` of a line with the columns `columns`.
fn field<'a>(fields: &'a [String], columns: &str, name: &str) -> &'a str {
    let i = columns.split_whitespace().position(|c| c == name).unwrap();
    &fields[i]
}

/// The bundled database `name` written plain into `dir` and made a BLAST database of
/// `kind` (`nucl` or `prot`); returns the FASTA file and the BLAST database's prefix.
fn blast_database(dir: &Path, name: &str, kind: &str) -> (PathBuf, PathBuf) {
    let fasta = dir.join("db.fa");
    std::fs::write(&fasta, read_text(&data(name))).unwrap();
    let prefix = dir.join("blastdb");
    succeeded(
        Command::new("makeblastdb")
            .args(["-dbtype", kind, "-in"])
            .arg(&fasta)
            .arg("-out")
            .arg(&prefix),
    );
    (fasta, prefix)
}

/// Runs a BLAST+ program with classic statistics (`OLD_FSC=1`, as seqfarm's) and
/// returns its standard output.
fn blast(program: &str, args: &[&str]) -> String {
    let out = succeeded(Command::new(program).env("OLD_FSC", "1").args(args));
    String::from_utf8(out.stdout).unwrap()
}

/// blastn's scoring as seqfarm's `--dna` default (2/-3, gaps 5/2), with nothing masked.
const BLASTN_SCORING: [&str; 14] = [
    "-task",
    "blastn",
    "-dust",
    "no",
    "-soft_masking",
    "false",
    "-reward",
    "2",
    "-penalty",
    "-3",
    "-gapopen",
    "5",
    "-gapextend",
    "2",
];

/// Every strong blastn alignment (E-value at most 1e-5) that is the only best one of its
/// query, subject and strand is seqfarm's, in every column (E-value and bit score
/// included), and the strong alignments of each are the same.
#[test]
fn dna_alignments_equal_blastn_on_both_strands() {
    if !peer("blastn") || !peer("makeblastdb") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (db, prefix) = blast_database(dir.path(), "search_dna_db.fa.gz", "nucl");
    let query = data("search_dna_q.fa");
    let outfmt = format!("6 {DNA_COLUMNS}");
    let common = [
        &BLASTN_SCORING[..],
        &[
            "-query",
            path(&query),
            "-db",
            path(&prefix),
            "-outfmt",
            &outfmt,
        ],
    ]
    .concat();
    // Every alignment blastn finds, to tell a unique best one from ties.
    let mut scores: BTreeMap<Vec<String>, Vec<i64>> = BTreeMap::new();
    for line in blast("blastn", &common).lines() {
        let fields: Vec<String> = line.split('\t').map(str::to_string).collect();
        let score = field(&fields, DNA_COLUMNS, "score").parse().unwrap();
        scores.entry(fields[..3].to_vec()).or_default().push(score);
    }
    let mut best = BTreeMap::new();
    for strand in ["plus", "minus"] {
        let args = [&common[..], &["-max_hsps", "1", "-strand", strand]].concat();
        best.extend(by_key(&blast("blastn", &args), 3));
    }
    let (ours, _) = search(&[
        "--dna",
        "--top",
        "100",
        "--evalue",
        "1e-5",
        "--outfmt",
        &outfmt,
        path(&query),
        path(&db),
    ]);
    let ours = by_key(&ours, 3);
    let (mut compared, mut strong) = (0, 0);
    for (key, theirs) in &best {
        if field(theirs, DNA_COLUMNS, "evalue").parse::<f64>().unwrap() > 1e-5 {
            continue;
        }
        strong += 1;
        let mine = ours
            .get(key)
            .unwrap_or_else(|| panic!("seqfarm lacks {theirs:?}"));
        let score = |f: &[String]| field(f, DNA_COLUMNS, "score").parse::<i64>().unwrap();
        assert!(score(mine) >= score(theirs), "{mine:?}\n{theirs:?}");
        let mut hsps = scores[key].clone();
        hsps.sort_unstable_by(|a, b| b.cmp(a));
        if score(mine) == score(theirs) && hsps.get(1).is_none_or(|&s| s < hsps[0]) {
            assert_eq!(mine, theirs);
            compared += 1;
        }
    }
    // And blastn finds every alignment seqfarm reports as strong.
    assert_eq!(
        strong,
        ours.len(),
        "{:?}",
        ours.keys()
            .filter(|k| !best.contains_key(*k))
            .collect::<Vec<_>>()
    );
    assert!(strong >= 20, "{strong} strong blastn alignments");
    assert!(
        compared * 10 >= strong * 9,
        "{compared} of {strong} compared"
    );
}

/// The bundled DNA queries named `names` (in file order), written into `dir`.
pub(crate) fn dna_queries(dir: &Path, names: &[&str]) -> PathBuf {
    let text = read_text(&data("search_dna_q.fa"));
    let picked: String = text
        .split_inclusive('\n')
        .collect::<String>()
        .split('>')
        .skip(1)
        .filter(|r| names.contains(&r.split_whitespace().next().unwrap()))
        .map(|r| format!(">{r}"))
        .collect();
    let query = dir.join("queries.fa");
    std::fs::write(&query, picked).unwrap();
    query
}

/// The short bundled DNA queries (their searches are quick).
pub(crate) const SHORT_QUERIES: [&str; 8] =
    ["q01", "q02", "q05", "q07", "q08", "q09", "q11", "q16"];

/// `--strand plus` and `--strand minus` report exactly the plus and minus lines of a
/// search of both strands.
#[test]
fn one_strand_is_the_lines_of_that_strand() {
    let dir = tempfile::tempdir().unwrap();
    let query = dna_queries(dir.path(), &SHORT_QUERIES);
    let db = data("search_dna_db.fa.gz");
    let outfmt = "6 qseqid sseqid sstrand qstart qend sstart send score evalue bitscore";
    let run = |strand: &str| {
        let (out, _) = search(&[
            "--dna",
            "--strand",
            strand,
            "--top",
            "100",
            "--outfmt",
            outfmt,
            path(&query),
            path(&db),
        ]);
        out.lines().map(str::to_string).collect::<BTreeSet<_>>()
    };
    let both = run("both");
    let (plus, minus) = (run("plus"), run("minus"));
    assert!(plus.iter().all(|l| l.contains("\tplus\t")) && plus.len() > 20);
    assert!(minus.iter().all(|l| l.contains("\tminus\t")) && minus.len() > 20);
    assert_eq!(plus.union(&minus).cloned().collect::<BTreeSet<_>>(), both);
}

/// Of blastp's five best hits per query, those where it found the optimal alignment
/// (its score is seqfarm's) have seqfarm's score, E-value and bit score, and most of
/// them are seqfarm's lines in every column (BLAST's seeds and X-drop can miss the best
/// alignment, and its traceback may choose another of equally good ones).
#[test]
fn protein_top_hits_equal_blastp() {
    if !peer("blastp") || !peer("makeblastdb") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (db, prefix) = blast_database(dir.path(), "sw_db1500.fa.gz", "prot");
    let query = data("sw_q10.fa");
    let outfmt = format!("6 {PROTEIN_COLUMNS}");
    let theirs = blast(
        "blastp",
        &[
            "-comp_based_stats",
            "0",
            "-seg",
            "no",
            "-max_hsps",
            "1",
            "-query",
            path(&query),
            "-db",
            path(&prefix),
            "-outfmt",
            &outfmt,
        ],
    );
    let (ours, _) = search(&["--top", "50", "--outfmt", &outfmt, path(&query), path(&db)]);
    let ours = by_key(&ours, 2);
    let mut per_query: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut total, mut equal) = (0, 0);
    for line in theirs.lines() {
        let fields: Vec<String> = line.split('\t').map(str::to_string).collect();
        let rank = per_query
            .entry(line.split('\t').next().unwrap())
            .or_default();
        *rank += 1;
        if *rank > 5 {
            continue;
        }
        total += 1;
        let mine = ours
            .get(&fields[..2])
            .unwrap_or_else(|| panic!("seqfarm lacks {line}"));
        let score = |f: &[String]| field(f, PROTEIN_COLUMNS, "score").parse::<i64>().unwrap();
        assert!(score(mine) >= score(&fields), "{mine:?}\n{fields:?}");
        if score(mine) == score(&fields) {
            // Of equally good alignments, BLAST may trace another (a gap placed
            // elsewhere): the figures of the score are the same.
            for column in ["score", "evalue", "bitscore", "qlen", "slen"] {
                let (a, b) = (
                    field(mine, PROTEIN_COLUMNS, column),
                    field(&fields, PROTEIN_COLUMNS, column),
                );
                assert_eq!(a, b, "{column}\n{mine:?}\n{fields:?}");
            }
            if mine == &fields {
                equal += 1;
            } else {
                eprintln!("an equally good alignment:\n  {mine:?}\n  {fields:?}");
            }
        }
    }
    assert_eq!(per_query.len(), 10);
    assert!(equal * 5 >= total * 4, "{equal} of {total} equal");
}

/// Writes the reverse complements of the DNA sequences of FASTA file `fasta` to `out`,
/// under the same headers.
pub(crate) fn reverse_complements(fasta: &Path, out: &Path) {
    let mut text = String::new();
    for record in read_text(fasta).split('>').skip(1) {
        let (header, body) = record.split_once('\n').unwrap();
        let bases: Vec<u8> = body.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        let reversed = String::from_utf8(reverse_complement(&bases)).unwrap();
        text += &format!(">{header}\n{reversed}\n");
    }
    std::fs::write(out, text).unwrap();
}

/// seqfarm's DNA scores on the plus strand, the minus strand and both are parasail's
/// scores of `query` and of its reverse complements against `db`, and the better of the
/// two.
pub(crate) fn assert_strand_scores_are_parasail_scores(dir: &Path, query: &Path, db: &Path) {
    let reversed = dir.join("reverse_complements.fa");
    reverse_complements(query, &reversed);
    // seqfarm's gap of length k costs 5 + 2k; parasail's 7 + 2(k - 1).
    let scoring = "-d -M 2 -X 3 -o 7 -e 2";
    let plus = parasail_scores(dir, query, db, scoring);
    let minus = parasail_scores(dir, &reversed, db, scoring);
    let ours = |strand: &str| {
        let (out, _) = search(&[
            "--dna",
            "--strand",
            strand,
            "--scores-only",
            path(query),
            path(db),
        ]);
        score_map(&out)
    };
    assert_eq!(ours("minus"), minus);
    assert_eq!(ours("plus"), plus);
    let better: BTreeMap<_, _> = plus
        .iter()
        .map(|(k, &s)| (k.clone(), s.max(minus[k])))
        .collect();
    assert_eq!(ours("both"), better);
}

/// parasail scoring the queries and their reverse complements gives seqfarm's plus- and
/// minus-strand scores, and seqfarm's both-strand score is the better of the two.
#[test]
fn strand_scores_equal_parasail_on_reverse_complements() {
    if !peer("parasail_aligner") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.fa");
    std::fs::write(&db, read_text(&data("search_dna_db.fa.gz"))).unwrap();
    assert_strand_scores_are_parasail_scores(dir.path(), &data("search_dna_q.fa"), &db);
}

/// An RNA query (U for T, upper and lower case) finds its DNA source with 100 % identity
/// and the DNA query's score, and a DNA query its RNA source, as blastn reads U as T.
#[test]
fn rna_u_reads_as_t_in_dna_queries_and_databases() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let source = crate::support::random_dna(600, 58);
    let other = crate::support::random_dna(600, 85);
    let dna = String::from_utf8(source[150..350].to_vec()).unwrap();
    let rna = dna.replace('T', "U");
    let write = |name: &str, text: String| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let fasta = |seq: &[u8]| String::from_utf8(seq.to_vec()).unwrap();
    let db = write(
        "db.fa",
        format!(">source\n{}\n>other\n{}\n", fasta(&source), fasta(&other)),
    );
    let rna_db = write(
        "rna_db.fa",
        format!(">source\n{}\n", fasta(&source).replace('T', "U")),
    );
    let queries = write(
        "q.fa",
        format!(
            ">dna\n{dna}\n>rna\n{rna}\n>rna_lower\n{}\n",
            rna.to_lowercase()
        ),
    );
    let columns = "6 qseqid sseqid pident length score";
    let lines = |db: &Path| {
        let (out, _) = search(&[
            "--dna",
            "--top",
            "1",
            "--outfmt",
            columns,
            path(&queries),
            path(db),
        ]);
        let mut best: Vec<Vec<String>> = Vec::new();
        for line in out.lines() {
            let fields: Vec<String> = line.split('\t').map(str::to_string).collect();
            if best.last().is_none_or(|b| b[0] != fields[0]) {
                best.push(fields);
            }
        }
        best
    };
    for db in [&db, &rna_db] {
        let found = lines(db);
        assert_eq!(found.len(), 3, "{found:?}");
        for line in &found {
            assert_eq!(line[1..4], ["source", "100.000", "200"], "{found:?}");
            assert_eq!(line[4], found[0][4], "the DNA query's score: {found:?}");
        }
    }
    if peer("blastn") {
        let out = blast(
            "blastn",
            &[
                &BLASTN_SCORING[..],
                &[
                    "-outfmt",
                    "6 qseqid sseqid pident length score",
                    "-max_target_seqs",
                    "1",
                    "-max_hsps",
                    "1",
                    "-query",
                    path(&queries),
                    "-subject",
                    path(&db),
                ],
            ]
            .concat(),
        );
        let blastn: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert!(
            blastn.len() == 3
                && blastn
                    .iter()
                    .all(|l| l[2] == "100.000" && l[4] == lines(&db)[0][4]),
            "blastn: {out}"
        );
    }
}
