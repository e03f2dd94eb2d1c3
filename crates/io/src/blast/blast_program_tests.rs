//! Every column checked against BLAST+ itself: `blastp` and `blastn` (when installed;
//! required under CI) print their lines, and the writers print the same lines from
//! BLAST's own figures.

use seqfarm_core::nucleotide::reverse_complement_letters;

use super::tests::text_line;
use super::HspRecord;

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
                for c in
                    &mut covered[number(other, "qstart") as usize..=number(other, "qend") as usize]
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
    let genome = random_dna(&mut 7, 300);
    let mut read = genome[40..160].to_vec();
    read[30] = if read[30] == b'A' { b'C' } else { b'A' };
    read.drain(70..72);
    let mut reverse = genome.clone();
    reverse_complement_letters(&mut reverse);
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

/// Random A/C/G/T from a linear congruential generator at `state`.
fn random_dna(state: &mut u64, n: usize) -> Vec<u8> {
    (0..n)
        .map(|_| {
            *state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            b"ACGT"[(*state >> 33) as usize % 4]
        })
        .collect()
}
