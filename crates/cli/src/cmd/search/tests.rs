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
