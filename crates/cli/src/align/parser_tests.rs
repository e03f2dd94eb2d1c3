//! bowtie2's options beyond its `--help`: the policy in command-line order, the seeds
//! bowtie2 uses, the MAPQ model, the quality scales, the optional fields and the
//! switches without effect.

use seqfarm_align::mapq::{Bowtie2MapqVersion, MapqModel};
use seqfarm_align::scoring::LengthFunction;
use seqfarm_align::seed::Bowtie2Seeding;
use seqfarm_align::{AlignMode, Preset};

use super::tests::{ok, parse, rejected};

fn seeding(line: &str) -> Bowtie2Seeding {
    ok(line).params().unwrap().bowtie2_seeding
}

fn sqrt(constant: f64, coefficient: f64) -> LengthFunction {
    LengthFunction::Sqrt {
        constant,
        coefficient,
    }
}

#[test]
fn the_policy_is_read_in_command_line_order() {
    assert_eq!(seeding("-x i -U r -L 20 --policy SEEDLEN=18").len, 18);
    assert_eq!(seeding("-x i -U r --policy SEEDLEN=18 -L 20").len, 20);
    assert_eq!(seeding("-x i -U r --multiseed 0,18 -L 20").len, 20);
    assert_eq!(seeding("-x i -U r -L 20 --multiseed 0,18").len, 18);
    let bonus = |line: &str| ok(line).scoring().unwrap().match_bonus;
    assert_eq!(bonus("-x i -U r --local --policy MA=3 --ma 5"), 5);
    assert_eq!(bonus("-x i -U r --ma 5 --local --policy MA=3"), 3);
    // Every --policy counts, in turn.
    let p = ok("-x i -U r --policy SEEDLEN=18 --policy IVAL=L,1,0.1 --policy SEEDLEN=24")
        .params()
        .unwrap();
    assert_eq!(p.bowtie2_seeding.len, 24);
    assert_eq!(
        p.bowtie2_seeding.interval,
        LengthFunction::Linear {
            constant: 1.0,
            coefficient: 0.1
        }
    );
    // A preset's settings come first, whatever its place.
    assert_eq!(seeding("-x i -U r -L 18 --very-sensitive").len, 18);
    // An empty policy is skipped, as bowtie2 skips it.
    assert_eq!(seeding("-x i -U r --policy="), seeding("-x i -U r"));
}

#[test]
fn policy_and_multiseed_are_the_options_they_spell() {
    let options = ok(
        "-x i -U r -N 1 -L 18 -i S,1,0.5 -D 20 -R 3 --ma 0 --mp 5,1 --np 2 \
         --rdg 6,2 --rfg 7,1 --score-min L,-1,-1 --n-ceil L,0,0.2",
    )
    .params()
    .unwrap();
    let policy = ok(
        "-x i -U r --policy SEED=1;SEEDLEN=18;IVAL=S,1,0.5;DPS=20;ROUNDS=3;MA=0;\
         MMP=Q,5,1;NP=C2;RDG=6,2;RFG=7,1;MIN=L,-1,-1;NCEIL=L,0,0.2",
    )
    .params()
    .unwrap();
    assert_eq!(policy, options);
    let multiseed = ok(
        "-x i -U r --multiseed 1,18,S,1,0.5 -D 20 -R 3 --ma 0 --mp 5,1 --np 2 \
         --rdg 6,2 --rfg 7,1 --score-min L,-1,-1 --n-ceil 0,0.2",
    )
    .params()
    .unwrap();
    assert_eq!(multiseed, options);
    // -N 1 searches as --very-sensitive (seqfarm's search), with bowtie2's seeds as given.
    assert_eq!(options.min_seed_len, 18);
    assert_eq!(options.bowtie2_seeding.len, 18);
    for line in [
        "-x i -U r --policy SEED=2",
        "-x i -U r --policy FOO=1",
        "-x i -U r --policy MMP=R",
        "-x i -U r --multiseed 0,20,S,1,2,3",
    ] {
        let e = rejected(line);
        assert!(
            e.contains("--policy") || e.contains("--multiseed"),
            "{line}: {e}"
        );
    }
}

#[test]
fn bowtie2_seeds_come_from_the_preset_and_the_seed_options() {
    let default = seeding("-x i -U r");
    assert_eq!((default.len, default.interval), (22, sqrt(1.0, 1.15)));
    assert_eq!(seeding("-x i -U r --local").len, 20);
    assert_eq!(
        seeding("-x i -U r --very-fast-local").interval,
        sqrt(1.0, 2.0)
    );
    assert_eq!(seeding("-x i -U r -L 10 -i S,0,2").len, 10);
    // -i with some terms keeps the preset's others; -N alone keeps the preset's seeds.
    assert_eq!(
        seeding("-x i -U r -i L").interval,
        LengthFunction::Linear {
            constant: 1.0,
            coefficient: 1.15
        }
    );
    assert_eq!(seeding("-x i -U r -N 1"), default);
    // --preset by name: the `-local` names have the local seeds and do not set --local.
    let a = ok("-x i -U r --preset very-fast-local");
    assert_eq!(a.mode().unwrap(), AlignMode::EndToEnd);
    assert_eq!(a.preset().unwrap(), (Preset::VeryFast, AlignMode::Local));
    assert_eq!(a.params().unwrap().bowtie2_seeding.len, 25);
    assert_eq!(
        ok("-x i -U r -P very-sensitive").params().unwrap(),
        ok("-x i -U r --very-sensitive").params().unwrap()
    );
    assert!(rejected("-x i -U r --preset quick").contains("unknown preset"));
    assert!(rejected("-x i -U r --preset fast --fast").contains("together"));
}

#[test]
fn mapq_models() {
    let model = |line: &str| ok(line).params().unwrap().mapq;
    assert_eq!(
        model("-x i -U r"),
        MapqModel::Bowtie2(Bowtie2MapqVersion::V2)
    );
    assert_eq!(
        model("-x i -U r --mapq-v 3"),
        MapqModel::Bowtie2(Bowtie2MapqVersion::V3)
    );
    assert_eq!(
        model("-x i -U r --mapq-v 7 --mapq bowtie2"),
        MapqModel::Bowtie2(Bowtie2MapqVersion::V1)
    );
    assert_eq!(model("-x i -U r --mapq calibrated"), MapqModel::Calibrated);
    assert!(rejected("-x i -U r --mapq calibrated --mapq-v 2").contains("--mapq-v"));
    assert!(rejected("-x i -U r --mapq-v x").contains("--mapq-v"));
    assert!(rejected("-x i -U r --mapq other").contains("--mapq"));
}

#[test]
fn bwa_sw_like_and_homopolymer_scoring() {
    let a = ok("-x i -U r --bwa-sw-like");
    let s = a.scoring().unwrap();
    assert_eq!(s.mode, AlignMode::Local);
    assert!(s.bwa_sw_minimum);
    assert_eq!((s.match_bonus, s.mismatch_max, s.mismatch_min), (1, 3, 3));
    assert_eq!((s.read_gap_open, s.read_gap_extend), (5, 2));
    assert_eq!(s.min_score(100), 30);
    // Options after it change its scoring as in bowtie2 (--rdg 7 resets the extension).
    let s = ok("-x i -U r --bwa-sw-like --rdg 7 --ma 2")
        .scoring()
        .unwrap();
    assert_eq!(
        (s.read_gap_open, s.read_gap_extend, s.match_bonus),
        (7, 3, 2)
    );
    let s = ok("-x i -U r --ma 2 --bwa-sw-like").scoring().unwrap();
    assert_eq!(s.match_bonus, 1);
    assert!(rejected("-x i -U r --bwa-sw-like --end-to-end").contains("--end-to-end"));
    let s = ok("-x i -U r --454").scoring().unwrap();
    assert_eq!((s.read_gap_open, s.read_gap_extend), (3, 1));
    assert_eq!((s.ref_gap_open, s.ref_gap_extend), (3, 1));
    let s = ok("-x i -U r --ion-torrent --rfg 4").scoring().unwrap();
    assert_eq!((s.ref_gap_open, s.ref_gap_extend), (4, 1));
}

#[test]
fn solexa_qualities_follow_the_last_quality_option() {
    let solexa = |line: &str| {
        let p = ok(line).input.parse_options().unwrap();
        (p.solexa, p.quality_offset)
    };
    assert_eq!(solexa("-x i -U r --solexa-quals"), (true, 64));
    assert_eq!(solexa("-x i -U r --solexa-quals --phred33"), (false, 33));
    assert_eq!(solexa("-x i -U r --phred33 --solexa-quals"), (true, 64));
    assert_eq!(solexa("-x i -U r --solexa-quals --phred64"), (true, 64));
    assert_eq!(solexa("-x i -U r --phred64"), (false, 64));
}

#[test]
fn sam_opt_config_turns_fields_on_and_off() {
    let a = ok("-x i -U r --sam-opt-config -md,-XS,yn,-yt");
    let (fields, skipped) = a.optional_fields().unwrap();
    assert!(!fields.md && !fields.xs && !fields.yt && fields.nm);
    assert!(fields.yn.is_some() && skipped.is_empty());
    // bowtie2's `as` switches YN, not AS.
    let (fields, _) = ok("-x i -U r --sam-opt-config as")
        .optional_fields()
        .unwrap();
    assert!(fields.yn.is_some());
    let (fields, _) = ok("-x i -U r --sam-opt-config yn,-as")
        .optional_fields()
        .unwrap();
    assert!(fields.yn.is_none());
    let (_, skipped) = ok("-x i -U r --sam-opt-config zs,-xt,x0,zs")
        .optional_fields()
        .unwrap();
    assert_eq!(skipped, ["zs"]);
    let warnings = ok("-x i -U r --sam-opt-config zs").warnings().unwrap();
    assert!(warnings.iter().any(|w| w.contains("zs")), "{warnings:?}");
    assert!(rejected("-x i -U r --sam-opt-config md,qq").contains("--sam-opt-config"));
    assert!(rejected("-x i -U r --sam-opt-config x").contains("--sam-opt-config"));
}

#[test]
fn switches_without_effect_are_checked_as_bowtie2_checks_them() {
    let line = "-x i -U r --verbose --startverbose --sanity --pause --orig ACGT --met-read \
        --filepar --refidx --fullref --partition 3 --cachelim 5 --cachesz 8 --shmem --mmsweep \
        --hadoopout --seed-summ --no-cache --cache --ungapped --no-ungapped --sse8 --no-sse8 \
        --tri --no-extend --1mm-minlen 40 -O 2 --seed-boost 300 --dp-fail-streak 9 \
        --ee-fail-streak 9 --ug-fail-streak 9 --dp-fails 300 --ug-fails 300 --extends 400 \
        --tighten 2 --cp-min 2000 --cp-ival 4 --local-seed-cache-sz 32 --seed-cache-sz 20 \
        --test-25 --desc-kb L,1024,0 --desc-fmops L,100,10 --desc-landing 20 --desc-exp 2 \
        --desc-prioritize --log-dp d.txt --log-dp-opp o.txt --thread-ceiling 4 \
        --thread-piddir pids --wrapper basic-0 --read-times --show-rand-seed --mapq-extra \
        --mapq-print-inputs --passthrough --seed-summary --overhang";
    assert_eq!(
        ok(line).params().unwrap(),
        ok("-x i -U r").params().unwrap()
    );
    assert_eq!(
        ok("-x i -U r --fail-streak 30").search.extend_tries,
        Some(30)
    );
    for (line, says) in [
        ("-x i -U r --cachelim 0", "--cachelim"),
        ("-x i -U r --seed-cache-sz 0", "--seed-cache-sz"),
        ("-x i -U r --desc-landing 0", "--desc-landing"),
        ("-x i -U r --desc-exp -1", "--desc-exp"),
        ("-x i -U r --desc-kb Q,1", "--desc-kb"),
        ("-x i -U r --thread-ceiling 2", "--thread-piddir"),
        (
            "-x i -U r --thread-ceiling -1 --thread-piddir p",
            "--thread-ceiling",
        ),
        ("-x i -U r --snpphred 30", "--snpphred"),
        ("-x i -U r --snpfrac 0.001", "--snpfrac"),
        ("-x i -U r --scan-narrowed", "--scan-narrowed"),
        ("-x i -U r --sra-acc SRR1", "--sra-acc"),
        ("-x i -U r -Q q.txt", "-f"),
        ("-x i -f -1 a -2 b --Q1 q1,q2", "--Q1"),
    ] {
        let e = rejected(line);
        assert!(e.contains(says), "{line}: {e}");
    }
    ok("-x i -f -U r -Q q.txt");
    ok("-x i -f -1 a -2 b --Q1 q1 --Q2 q2");
    assert_eq!(ok("-x i -U r --sample 0.5").input.sample, Some(0.5));
}

#[test]
fn the_order_is_read_before_the_groups_take_their_values() {
    let a = parse("-x i -U r --mp 4 --policy MA=0 -L 20 --policy SEED=0 --bwa-sw-like").unwrap();
    assert_eq!(
        a.order.sequence,
        [
            ("mp", 0),
            ("policy", 0),
            ("seed_len", 0),
            ("policy", 1),
            ("bwa_sw_like", 0)
        ]
    );
    // A repeated single-valued option stands where its last value does.
    let a = parse("-x i -U r -L 20 --policy MA=0 -L 18").unwrap();
    assert_eq!(a.order.sequence, [("policy", 0), ("seed_len", 0)]);
}
