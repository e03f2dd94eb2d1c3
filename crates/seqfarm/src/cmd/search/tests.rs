use super::*;

#[test]
fn queries_are_grouped_only_when_the_database_has_too_few_chunks() {
    let residues = [300u64; 10];
    let one_group = |workers, chunks| {
        let groups = QueryGroups::plan(workers, chunks, &residues);
        !groups.splits() && groups.ranges[0] == (0..10)
    };
    assert!(one_group(1, Some(1)));
    assert!(one_group(2, None));
    assert!(one_group(2, Some(8)));
    assert!(one_group(16, Some(1000)));
    // 2 workers want 8 tasks; 3,000 residues make at most 5 groups of 512.
    let groups = QueryGroups::plan(2, Some(1), &residues);
    assert_eq!(groups.ranges, vec![0..2, 2..4, 4..6, 6..8, 8..10]);
    assert!(groups.splits());
    assert_eq!(
        QueryGroups::plan(2, Some(4), &residues).ranges,
        vec![0..5, 5..10]
    );
    // Never more groups than queries, nor an empty one.
    assert_eq!(
        QueryGroups::plan(16, Some(1), &[5000, 5000]).ranges,
        vec![0..1, 1..2]
    );
}

#[test]
fn query_groups_share_the_residues() {
    let residues = [4000, 100, 100, 100, 100, 1000, 1000, 1000, 1000];
    let groups = QueryGroups::plan(4, Some(4), &residues);
    assert_eq!(groups.ranges, vec![0..1, 1..6, 6..8, 8..9]);
    let total: u64 = residues.iter().sum();
    for range in &groups.ranges {
        assert!(!range.is_empty());
        assert!(residues[range.clone()].iter().sum::<u64>() <= total / 2);
    }
}

#[test]
fn group_lines_are_joined_record_by_record_in_query_order() {
    let texts = [
        ("q1\ta\t5\nq2\ta\t6\nq1\tb\t7\nq2\tb\t8\n".to_string(), 2),
        ("q3\ta\t9\nq3\tb\t10\n".to_string(), 1),
    ];
    let mut out = Vec::new();
    join_group_lines(&texts, 2, &mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "q1\ta\t5\nq2\ta\t6\nq3\ta\t9\nq1\tb\t7\nq2\tb\t8\nq3\tb\t10\n"
    );
}

/// `--scores-only` kept as values holds the rows the command prints: with the database
/// in one chunk (scored by groups of queries at 2 workers), in many chunks, and with DNA
/// records cut into pieces.
#[test]
fn score_values_are_the_printed_lines() {
    use std::fmt::Write as _;
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/");
    let runs: [(&[&str], &str, &str); 3] = [
        (&[], "sw_q10.fa", "sw_db1500.fa.gz"),
        (&["--chunk-size=100000"], "sw_q10.fa", "sw_db1500.fa.gz"),
        (
            &["--dna", "--chunk-size=4096"],
            "search_dna_q.fa",
            "search_dna_db.fa.gz",
        ),
    ];
    for (extra, query, database) in runs {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("scores.tsv");
        let (query, database) = (format!("{data}{query}"), format!("{data}{database}"));
        let mut options = SearchOptions {
            query: query.into(),
            database: database.into(),
            output: out.clone(),
            scores_only: true,
            dna: extra.contains(&"--dna"),
            chunk_size: extra
                .iter()
                .find_map(|e| e.strip_prefix("--chunk-size=")?.parse().ok()),
            ..SearchOptions::default()
        };
        options.farm.threads = Some(2);
        run(&options).unwrap();
        let Ok(SearchResults::Scores(table)) = results(&options) else {
            panic!("scores kept as values");
        };
        let mut lines = String::new();
        for row in 0..table.len() {
            let query = &table.query_names[table.query[row] as usize];
            let _ = writeln!(
                lines,
                "{query}\t{}\t{}",
                table.subject[row], table.score[row]
            );
        }
        assert!(!lines.is_empty());
        assert_eq!(lines, std::fs::read_to_string(&out).unwrap(), "{extra:?}");
    }
}
