//! The index file does not depend on the memory budget or the thread count.

mod naive;

use naive::{real_genome, reference_of, Genome};
use seqfarm_fmindex::{build, BuildError, BuildOptions};

/// The index file's bytes, and the number of buckets its suffix sort used.
fn file_of(genome: &Genome, options: &BuildOptions) -> (Vec<u8>, usize) {
    let image = build(reference_of(genome), options, &mut |_| {}).unwrap();
    let mut bytes = Vec::new();
    image.write_to(&mut bytes).unwrap();
    (bytes, image.buckets())
}

/// A genome with what makes suffix sorting hard: exact copies far apart, a tandem
/// repeat, a homopolymer, N runs, and contigs of one and two bases.
fn hard_genome() -> Genome {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut random = |len: usize| -> Vec<u8> {
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b"ACGT"[(x % 4) as usize]
            })
            .collect()
    };
    let unit = random(6000);
    let mut first = random(3000);
    first.extend_from_slice(&unit);
    first.extend_from_slice(b"NNNNN");
    first.extend(b"GATTACA".iter().cycle().take(4000));
    let mut second = unit.clone();
    second.extend(std::iter::repeat_n(b'A', 3000));
    second.extend(random(2000));
    vec![
        ("one".into(), first),
        ("two".into(), second),
        ("tiny".into(), b"C".to_vec()),
        ("pair".into(), b"NGTN".to_vec()),
    ]
}

/// The least budget the build accepts for `genome` (one prefix group per bucket).
fn least_budget(genome: &Genome, options: &BuildOptions) -> u64 {
    let tiny = BuildOptions {
        memory: Some(1),
        ..options.clone()
    };
    match build(reference_of(genome), &tiny, &mut |_| {}) {
        Err(BuildError::Budget { needed, .. }) => needed,
        Err(e) => panic!("expected a budget error, got {e}"),
        Ok(_) => panic!("a 1-byte budget was accepted"),
    }
}

#[test]
fn budget_and_threads_do_not_change_the_index() {
    for genome in [hard_genome(), real_genome()] {
        let base = BuildOptions {
            sa_rate: 8,
            ..BuildOptions::default()
        };
        let (one_bucket, buckets) = file_of(&genome, &base);
        assert_eq!(buckets, 1);
        for (extra, threads) in [(0, 1), (0, 3), (2, 2)] {
            let options = BuildOptions {
                threads,
                ..base.clone()
            };
            let least = least_budget(&genome, &options);
            let budget = least + extra * 4096;
            let options = BuildOptions {
                memory: Some(budget),
                ..options
            };
            let (bytes, buckets) = file_of(&genome, &options);
            assert!(buckets > 2, "{buckets} buckets at {budget} bytes");
            assert!(bytes == one_bucket, "budget {budget}, {threads} threads");
        }
        // Spilled sections give the same file.
        let dir = tempfile::tempdir().unwrap();
        let spilled = BuildOptions {
            spill_dir: Some(dir.path().to_path_buf()),
            threads: 2,
            ..base.clone()
        };
        let spilled = BuildOptions {
            memory: Some(least_budget(&genome, &spilled)),
            ..spilled
        };
        assert!(file_of(&genome, &spilled).0 == one_bucket);
    }
}

#[test]
fn a_budget_below_the_least_is_a_clear_error() {
    let genome = hard_genome();
    let least = least_budget(&genome, &BuildOptions::default());
    let options = BuildOptions {
        memory: Some(least - 1),
        ..BuildOptions::default()
    };
    let e = build(reference_of(&genome), &options, &mut |_| {})
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("too small") && e.contains(&least.to_string()),
        "{e}"
    );
}
