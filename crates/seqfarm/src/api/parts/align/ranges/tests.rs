use std::io::{BufRead, BufReader, Write};

use seqfarm_io::reads::ReadSources;

use super::*;

/// `n` FASTQ records named `{tag}{i}`, some after an empty line, as text and each
/// record's first line.
fn fastq(tag: &str, n: usize) -> (Vec<u8>, Vec<String>) {
    let (mut out, mut names) = (Vec::new(), Vec::new());
    for i in 0..n {
        if i % 7 == 3 {
            out.push(b'\n');
        }
        let len = 20 + i % 50;
        let bases: String = (0..len)
            .map(|k| ['A', 'C', 'G', 'T'][(i * 7 + k) % 4])
            .collect();
        let quals: String = (0..len).map(|k| ['@', 'I', '+'][(i + k) % 3]).collect();
        names.push(format!("@{tag}{i}"));
        out.extend_from_slice(format!("@{tag}{i}\n{bases}\n+\n{quals}\n").as_bytes());
    }
    (out, names)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A run aligning the pairs of `r1` and `r2`.
fn pairs_options(r1: &Path, r2: &Path, skip: u64, upto: Option<u64>) -> AlignOptions {
    AlignOptions {
        reads: ReadSources {
            mate1: vec![r1.to_path_buf()],
            mate2: vec![r2.to_path_buf()],
            skip,
            upto,
            ..ReadSources::default()
        },
        ..AlignOptions::default()
    }
}

/// Plans the pairs `r1`/`r2` by ranges into parts as `split` says and checks that they
/// cover every pair once, each starting, in each file, at its first record, and ending
/// at a task boundary.
fn check_pairs(
    r1: &Path,
    r2: &Path,
    names: [&[String]; 2],
    (skip, upto): (u64, Option<u64>),
    split: PartSize,
) {
    let options = pairs_options(r1, r2, skip, upto);
    let layout = ReadLayout::new(&options).unwrap();
    let (access, known): (Vec<ReadAccess>, Vec<_>) = layout
        .files()
        .iter()
        .map(|f| match read_storage(f) {
            ReadStorage::Plain { len } => (ReadAccess::Plain { len }, None),
            ReadStorage::Gzip => gzip_access(&options, f, 10_000).unwrap(),
            ReadStorage::Other => unreachable!(),
        })
        .unzip();
    let ranges = layout.ranges(&access, 40_000);
    assert!(ranges.len() > 4, "{}", ranges.len());
    let counted: Vec<_> = ranges
        .iter()
        .map(|r| (r.clone(), count_range(&options, r).unwrap()))
        .collect();
    let parts = layout.parts(&access, &counted, split).unwrap();
    // A gzip file's records counted whole by its index's pass place the same parts.
    let known: Vec<_> = known.into_iter().flatten().collect();
    assert!(!known.is_empty());
    let mut by_index = known.clone();
    by_index.extend(
        counted
            .iter()
            .filter(|(r, _)| known.iter().all(|(whole, _)| whole.path != r.path))
            .cloned(),
    );
    assert_eq!(layout.parts(&access, &by_index, split).unwrap(), parts);
    // Counted from the files' starts together (the first range of each, then the
    // second...), the counts suffice once they place these same parts; with --upto,
    // before the files' ends.
    let mut seen: HashMap<&Path, usize> = HashMap::new();
    let place: Vec<usize> = ranges
        .iter()
        .map(|r| {
            let n = seen.entry(r.path.as_path()).or_default();
            *n += 1;
            *n - 1
        })
        .collect();
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| (place[i], i));
    let first_counts = |k: usize| {
        let mut first: Vec<usize> = order[..k].to_vec();
        first.sort_unstable();
        first
            .iter()
            .map(|&i| counted[i].clone())
            .collect::<Vec<_>>()
    };
    let enough = (0..=order.len())
        .find(|&k| layout.counts_suffice(&access, &first_counts(k)))
        .unwrap();
    assert_eq!(
        layout.parts(&access, &first_counts(enough), split).unwrap(),
        parts
    );
    assert!(!layout.counts_suffice(&access, &[]));
    assert_eq!(
        enough < counted.len(),
        upto.is_some(),
        "{enough} of {}",
        counted.len()
    );
    let total = names[0].len() as u64;
    let end = upto.map_or(total, |u| (skip + u).min(total));
    let tasks = end.div_ceil(ANCHOR_EVERY) - skip / ANCHOR_EVERY;
    match split {
        PartSize::Tasks(n) => assert!(parts.iter().all(|p| p.fragments <= n * ANCHOR_EVERY)),
        PartSize::About(n) => {
            assert_eq!(parts.len() as u64, tasks.min(n as u64));
            // As equal as task boundaries allow.
            let most = parts.iter().map(|p| p.fragments).max().unwrap();
            assert!(parts[1..]
                .iter()
                .all(|p| p.fragments + ANCHOR_EVERY >= most));
        }
    }
    let mut next = skip;
    for part in &parts {
        assert_eq!(part.first_fragment, next);
        let part_end = next + part.fragments;
        assert!(part_end == end || part_end.is_multiple_of(ANCHOR_EVERY));
        assert_eq!(part.records_before, [next, next]);
        for (file, names) in part.files.iter().zip(names) {
            let mut input = BufReader::new(part_stream(&options, file).unwrap());
            let mut line = String::new();
            while line.trim().is_empty() {
                line.clear();
                input.read_line(&mut line).unwrap();
            }
            assert_eq!(line.trim_end(), names[next as usize]);
        }
        next += part.fragments;
    }
    assert_eq!(next, end);
}

#[test]
fn plain_and_gzip_pairs_are_cut_at_records_found_by_range() {
    let dir = tempfile::tempdir().unwrap();
    let (one, names1) = fastq("a", 5000);
    let (two, names2) = fastq("b", 5000);
    let (p1, p2) = (dir.path().join("r1.fq"), dir.path().join("r2.fq.gz"));
    std::fs::write(&p1, &one).unwrap();
    std::fs::write(&p2, gzip(&two)).unwrap();
    let names = [&names1[..], &names2[..]];
    for split in [PartSize::Tasks(2), PartSize::About(3), PartSize::About(9)] {
        check_pairs(&p1, &p2, names, (0, None), split);
    }
    for split in [PartSize::Tasks(2), PartSize::About(2)] {
        check_pairs(&p1, &p2, names, (1500, Some(2100)), split);
    }
    assert!(GzipIndex::path_for(&p2).exists());
}

#[test]
fn mates_missing_from_a_file_are_an_error_where_the_command_reads_that_far() {
    let dir = tempfile::tempdir().unwrap();
    let (p1, p2) = (dir.path().join("r1.fq"), dir.path().join("r2.fq"));
    let plan = |n1: usize, n2: usize, upto: Option<u64>| {
        std::fs::write(&p1, fastq("a", n1).0).unwrap();
        std::fs::write(&p2, fastq("b", n2).0).unwrap();
        let options = pairs_options(&p1, &p2, 0, upto);
        let layout = ReadLayout::new(&options).unwrap();
        let access: Vec<ReadAccess> = layout
            .files()
            .iter()
            .map(|f| ReadAccess::Plain {
                len: std::fs::metadata(f).unwrap().len(),
            })
            .collect();
        let counted: Vec<_> = layout
            .ranges(&access, 100)
            .into_iter()
            .map(|r| {
                let c = count_range(&options, &r).unwrap();
                (r, c)
            })
            .collect();
        layout
            .parts(&access, &counted, PartSize::Tasks(1))
            .map_err(|e| e.to_string())
    };
    for (n1, n2) in [(30, 29), (29, 30)] {
        let e = plan(n1, n2, None).unwrap_err();
        assert!(
            e.contains(&format!("holds {n1} records but its mate file"))
                && e.contains(&format!("holds {n2}")),
            "{e}"
        );
        // The command stops after 29 pairs, before the shorter file's end; past it, it
        // finds the missing mate.
        assert_eq!(
            plan(n1, n2, Some(29))
                .unwrap()
                .iter()
                .map(|p| p.fragments)
                .sum::<u64>(),
            29
        );
        assert!(plan(n1, n2, Some(30)).is_err());
    }
}
