use seqfarm_align::{PairClass, PairResult, Placement, ReadResult, Unaligned};
use seqfarm_core::cigar::{Cigar, CigarOp};
use seqfarm_io::reads::ReadRef;
use seqfarm_io::sam::{SamHeader, SamReference};

use super::*;

fn header() -> SamHeader {
    SamHeader::new(
        vec![
            SamReference {
                name: "c1".into(),
                len: 100_000,
            },
            SamReference {
                name: "c2".into(),
                len: 100_000,
            },
        ],
        "unsorted",
        &[],
    )
}

fn placed(
    contig: usize,
    position: u64,
    reverse: bool,
    ops: &[(CigarOp, u32)],
    score: i32,
) -> Placement {
    let mut cigar = Cigar::new();
    for &(op, len) in ops {
        cigar.push(op, len);
    }
    let mut p = Placement {
        contig,
        position,
        reverse,
        score,
        cigar,
        ..Placement::default()
    };
    p.edits.md = b"4".to_vec();
    p
}

fn aligned(p: Placement, mapq: u8) -> ReadResult {
    ReadResult::Aligned {
        placements: vec![p],
        second_best: None,
        mapq,
    }
}

fn lines(result: &PairResult, style: &RecordStyle) -> Vec<Vec<String>> {
    commented_lines(result, style, b"")
}

/// The records of a pair whose mates' headers carry `comment`.
fn commented_lines(result: &PairResult, style: &RecordStyle, comment: &[u8]) -> Vec<Vec<String>> {
    let h = header();
    let full_name = [
        &b"frag"[..],
        if comment.is_empty() { b"" } else { b"\t" },
        comment,
    ]
    .concat();
    // Mates reach the writer without their /1 /2 suffix (the reader strips it).
    let r1 = ReadRef {
        name: b"frag",
        bases: b"ACGT",
        qualities: Some(&[30, 30, 30, 30]),
        full_name: &full_name,
        comment,
        original: b"",
        filtered: false,
    };
    let r2 = ReadRef {
        name: b"frag",
        bases: b"TTGA",
        qualities: None,
        full_name: &full_name,
        comment,
        original: b"",
        filtered: false,
    };
    let mut out = Vec::new();
    RecordWriter::default().write_pair(&h, style, [&r1, &r2], result, &mut out);
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

const M4: &[(CigarOp, u32)] = &[(CigarOp::Match, 4)];

#[test]
fn concordant_pair_fields() {
    let result = PairResult {
        class: PairClass::Concordant,
        mates: [
            aligned(placed(0, 1000, false, M4, -3), 42),
            aligned(placed(0, 1200, true, M4, 0), 40),
        ],
        other_pairs: false,
    };
    let l = lines(&result, &RecordStyle::default());
    assert_eq!(
        l[0][..9],
        ["frag", "99", "c1", "1001", "42", "4M", "=", "1201", "204"]
    );
    assert_eq!(
        l[1][..9],
        ["frag", "147", "c1", "1201", "40", "4M", "=", "1001", "-204"]
    );
    assert_eq!(
        l[0][11..],
        [
            "AS:i:-3", "XN:i:0", "XM:i:0", "XO:i:0", "XG:i:0", "NM:i:0", "MD:Z:4", "YS:i:0",
            "YT:Z:CP"
        ]
    );
    // Reads without qualities get bowtie2's `I` for every base.
    assert_eq!(l[1][9..11], ["TCAA", "IIII"]);
}

#[test]
fn one_mate_aligned_places_the_other_beside_it() {
    let result = PairResult {
        class: PairClass::Unpaired,
        mates: [
            ReadResult::Unaligned(Unaligned::NoAlignment),
            ReadResult::Aligned {
                placements: vec![placed(1, 500, true, M4, -5)],
                second_best: Some(-5),
                mapq: 1,
            },
        ],
        other_pairs: false,
    };
    let l = lines(&result, &RecordStyle::default());
    // The aligned mate 2 first, as bowtie2 writes it, without YS, and without XS (it
    // has a runner-up, but bowtie2 writes none for a mate aligned on its own).
    assert_eq!(
        l[0][..9],
        ["frag", "153", "c2", "501", "1", "4M", "=", "501", "0"]
    );
    assert!(!l[0]
        .iter()
        .any(|f| f.starts_with("YS") || f.starts_with("XS")));
    assert_eq!(
        l[1][..9],
        ["frag", "101", "c2", "501", "0", "*", "=", "501", "0"]
    );
    assert_eq!(l[1][11..], ["YT:Z:UP"]);
    let no_unal = RecordStyle {
        no_unaligned: true,
        ..RecordStyle::default()
    };
    assert_eq!(lines(&result, &no_unal).len(), 1);
}

#[test]
fn unaligned_pair_and_discordant_pair() {
    let result = PairResult {
        class: PairClass::Unpaired,
        mates: [
            ReadResult::Unaligned(Unaligned::TooManyNs),
            ReadResult::Unaligned(Unaligned::NoAlignment),
        ],
        other_pairs: false,
    };
    let l = lines(&result, &RecordStyle::default());
    assert_eq!(l[0][..9], ["frag", "77", "*", "0", "0", "*", "*", "0", "0"]);
    assert_eq!(l[0][11..], ["YT:Z:UP", "YF:Z:NS"]);
    assert_eq!(l[1][1], "141");
    let result = PairResult {
        class: PairClass::Discordant,
        mates: [
            aligned(placed(0, 10, false, M4, 0), 42),
            aligned(placed(1, 20, false, M4, -6), 42),
        ],
        other_pairs: false,
    };
    let l = lines(&result, &RecordStyle::default());
    assert_eq!(
        l[0][..9],
        ["frag", "65", "c1", "11", "42", "4M", "c2", "21", "0"]
    );
    assert_eq!(
        l[1][..9],
        ["frag", "129", "c2", "21", "42", "4M", "c1", "11", "0"]
    );
    assert!(l[0].contains(&"YS:i:-6".to_string()) && l[0].contains(&"YT:Z:DP".to_string()));
}

#[test]
fn tlen_counts_soft_clips_unless_asked() {
    let clipped = [(CigarOp::SoftClip, 2), (CigarOp::Match, 2)];
    let result = PairResult {
        class: PairClass::Concordant,
        mates: [
            aligned(placed(0, 100, false, &clipped, 4), 42),
            aligned(placed(0, 150, true, M4, 8), 42),
        ],
        other_pairs: false,
    };
    assert_eq!(lines(&result, &RecordStyle::default())[0][8], "56");
    let without = RecordStyle {
        tlen_without_clips: true,
        ..RecordStyle::default()
    };
    assert_eq!(lines(&result, &without)[0][8], "54");
    assert_eq!(lines(&result, &without)[1][8], "-54");
}

#[test]
fn preserved_tags_follow_seqfarms_own_and_never_repeat_one() {
    let result = PairResult {
        class: PairClass::Concordant,
        mates: [
            aligned(placed(0, 100, false, M4, 0), 42),
            aligned(placed(0, 150, true, M4, 0), 42),
        ],
        other_pairs: false,
    };
    let comment = b"NM:i:99\tBC:Z:AC GT\tXB:B:c,1,-2\tnot a tag";
    let style = RecordStyle {
        preserve_tags: true,
        full_names: true,
        ..RecordStyle::default()
    };
    for record in commented_lines(&result, &style, comment) {
        assert_eq!(record[0], "frag");
        assert_eq!(record.iter().filter(|f| f.starts_with("NM:")).count(), 1);
        assert_eq!(
            record.iter().find(|f| f.starts_with("NM:")).unwrap(),
            "NM:i:0"
        );
        assert_eq!(record[record.len() - 2..], ["BC:Z:AC GT", "XB:B:c,1,-2"]);
    }
    // Without the option, the comment is no tag (nor is it with --sam-append-comment's
    // other rule, which makes one tag of a comment).
    let plain = commented_lines(&result, &RecordStyle::default(), comment);
    assert!(plain[0].iter().all(|f| !f.starts_with("BC:")));
}

#[test]
fn secondary_pairs_with_k() {
    let two = |a: Placement, b: Placement| ReadResult::Aligned {
        placements: vec![a, b],
        second_best: Some(-10),
        mapq: 1,
    };
    let result = PairResult {
        class: PairClass::Concordant,
        mates: [
            two(
                placed(0, 100, false, M4, 0),
                placed(0, 5000, false, M4, -10),
            ),
            two(placed(0, 300, true, M4, 0), placed(0, 5200, true, M4, 0)),
        ],
        other_pairs: true,
    };
    let style = RecordStyle {
        omit_secondary_seq: true,
        ..RecordStyle::default()
    };
    let l = lines(&result, &style);
    let flags: Vec<&str> = l.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(flags, ["99", "147", "355", "403"]);
    assert_eq!(
        l[2][..11],
        ["frag", "355", "c1", "5001", "255", "4M", "=", "5201", "204", "*", "*"]
    );
}

#[test]
fn xeq_splits_matches_by_md() {
    let mut p = placed(
        0,
        0,
        false,
        &[
            (CigarOp::SoftClip, 1),
            (CigarOp::Match, 5),
            (CigarOp::Deletion, 2),
            (CigarOp::Match, 3),
        ],
        0,
    );
    p.edits.md = b"2A0C1^GG0T2".to_vec();
    let mut out = Cigar::new();
    xeq_cigar(&p, &mut out);
    assert_eq!(out.to_string(), "1S2=2X1=2D1X2=");
}

#[test]
fn mapq_is_255_under_k_when_one_alignment_was_found() {
    let h = header();
    let read = ReadRef {
        name: b"r",
        bases: b"ACGT",
        qualities: None,
        full_name: b"r",
        comment: b"",
        original: b"",
        filtered: false,
    };
    let mapqs = |result: &ReadResult, style: &RecordStyle| {
        let mut out = Vec::new();
        RecordWriter::default().write(&h, style, &read, result, &mut out);
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').nth(4).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let unique = aligned(placed(0, 100, false, M4, 0), 42);
    let repeated = ReadResult::Aligned {
        placements: vec![placed(0, 100, false, M4, 0), placed(1, 7, false, M4, 0)],
        second_best: Some(0),
        mapq: 1,
    };
    let one_reported = ReadResult::Aligned {
        placements: vec![placed(0, 100, false, M4, 0)],
        second_best: Some(0),
        mapq: 1,
    };
    let style = |report_limit| RecordStyle {
        report_limit,
        ..RecordStyle::default()
    };
    // Without -k/-a: always computed.
    assert_eq!(mapqs(&unique, &style(None)), ["42"]);
    assert_eq!(mapqs(&one_reported, &style(None)), ["1"]);
    // -k 1 stops at the first alignment: 255.
    assert_eq!(mapqs(&one_reported, &style(Some(1))), ["255"]);
    // -k 3 / -a: 255 when one alignment only, else computed; secondaries 255.
    for limit in [3, usize::MAX] {
        assert_eq!(mapqs(&unique, &style(Some(limit))), ["255"]);
        assert_eq!(mapqs(&repeated, &style(Some(limit))), ["1", "255"]);
    }

    // Pairs: a concordant pair's count is of concordant pairs.
    let pair = |mates: [ReadResult; 2], class, other_pairs| PairResult {
        class,
        mates,
        other_pairs,
    };
    let mapq_column = |l: Vec<Vec<String>>| l.into_iter().map(|r| r[4].clone()).collect::<Vec<_>>();
    let one_pair = || {
        [
            aligned(placed(0, 100, false, M4, 0), 42),
            ReadResult::Aligned {
                placements: vec![placed(0, 300, true, M4, 0)],
                second_best: Some(-5),
                mapq: 40,
            },
        ]
    };
    let k3 = style(Some(3));
    let l = lines(&pair(one_pair(), PairClass::Concordant, false), &k3);
    assert_eq!(mapq_column(l), ["255", "255"]);
    let l = lines(&pair(one_pair(), PairClass::Concordant, true), &k3);
    assert_eq!(mapq_column(l), ["42", "40"]);
    let l = lines(
        &pair(one_pair(), PairClass::Concordant, true),
        &style(Some(1)),
    );
    assert_eq!(mapq_column(l), ["255", "255"]);
    // Unpaired mates: each mate's own alignments (bowtie2: 255 for a unique mate 1,
    // computed for a repeated mate 2 next to it).
    let l = lines(&pair(one_pair(), PairClass::Unpaired, false), &k3);
    assert_eq!(mapq_column(l), ["255", "40"]);
    let l = lines(&pair(one_pair(), PairClass::Unpaired, false), &style(None));
    assert_eq!(mapq_column(l), ["42", "40"]);
}

#[test]
fn mates_starting_together_get_bowtie2s_tlen_signs() {
    // (mate 1 reverse, mate 2 reverse) -> (mate 1's TLEN, mate 2's), as bowtie2 signs
    // them when both mates start at the same base.
    for (strands, signs) in [
        ((true, false), ("-4", "4")),
        ((false, true), ("4", "-4")),
        ((false, false), ("4", "-4")),
        ((true, true), ("-4", "-4")),
    ] {
        let result = PairResult {
            class: PairClass::Discordant,
            mates: [
                aligned(placed(0, 1000, strands.0, M4, 0), 42),
                aligned(placed(0, 1000, strands.1, M4, 0), 42),
            ],
            other_pairs: false,
        };
        let l = lines(&result, &RecordStyle::default());
        assert_eq!((&*l[0][8], &*l[1][8]), signs, "reverse: {strands:?}");
    }
}

#[test]
fn sam_opt_config_drops_and_adds_fields_where_bowtie2_writes_them() {
    let pair = PairResult {
        class: PairClass::Concordant,
        mates: [
            aligned(placed(0, 1000, false, M4, -3), 42),
            aligned(placed(0, 1200, true, M4, 0), 40),
        ],
        other_pairs: false,
    };
    let mut fields = OptionalFields::default();
    let range = ScoreRange {
        min_score: seqfarm_align::scoring::LengthFunction::Linear {
            constant: -0.6,
            coefficient: -0.6,
        },
        match_bonus: 0,
    };
    let skipped = fields
        .configure("-md,-XN,-xm,-xo,-xg,yn,-ys", range)
        .unwrap();
    assert!(skipped.is_empty());
    let style = RecordStyle {
        fields: fields.clone(),
        ..RecordStyle::default()
    };
    // YN/Yn (and the mate's ZN/Zn) after NM, before YT, as bowtie2 writes them.
    assert_eq!(
        lines(&pair, &style)[0][11..],
        ["AS:i:-3", "NM:i:0", "YN:i:-3", "Yn:i:0", "ZN:i:-3", "Zn:i:0", "YT:Z:CP"]
    );
    let unaligned = PairResult {
        class: PairClass::Unpaired,
        mates: [
            ReadResult::Unaligned(Unaligned::TooManyNs),
            ReadResult::Unaligned(Unaligned::NoAlignment),
        ],
        other_pairs: false,
    };
    assert_eq!(
        lines(&unaligned, &style)[0][11..],
        ["YN:i:-3", "Yn:i:0", "YT:Z:UP", "YF:Z:NS"]
    );
    fields.configure("-yt,-yf,-as", range).unwrap();
    let style = RecordStyle {
        fields,
        ..RecordStyle::default()
    };
    assert!(lines(&unaligned, &style)[0].len() == 11);
    // AS stays: bowtie2's `as` switches YN.
    assert_eq!(lines(&pair, &style)[0][11..], ["AS:i:-3", "NM:i:0"]);
}
