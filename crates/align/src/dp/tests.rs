//! The kernels against an independent textbook DP, and the SIMD kernels against the
//! scalar reference.

use proptest::prelude::*;

use super::scalar::{pair_score, row_scores};
use super::*;
use crate::cigar::CigarOp;
use crate::scoring::Scoring;

/// Score of `ext` recomputed from its CIGAR.
fn rescore(job: &ExtendJob<'_>, scoring: &Scoring, ext: &Extension) -> i32 {
    let p = KernelParams::new(scoring);
    let mut score = 0i32;
    let (mut i, mut j) = (ext.read_start, ext.window_start);
    for (op, len) in ext.cigar.ops() {
        let len = len as usize;
        match op {
            CigarOp::Match => {
                for _ in 0..len {
                    let (ma, mm) = row_scores(job, &p, i);
                    score += i32::from(pair_score(job.read[i], job.window[j], ma, mm, p.n_penalty));
                    i += 1;
                    j += 1;
                }
            }
            CigarOp::Insertion => {
                assert!(
                    p.gaps_allowed(i, job.read.len()),
                    "insertion in the gap barrier"
                );
                score -= i32::from(p.ins_first) + (len as i32 - 1) * i32::from(p.ins_extend);
                i += len;
            }
            CigarOp::Deletion => {
                score -= i32::from(p.del_first) + (len as i32 - 1) * i32::from(p.del_extend);
                j += len;
            }
            CigarOp::SoftClip => i += len,
            other => panic!("{other:?} in an extension's CIGAR"),
        }
    }
    assert_eq!(i, ext.read_end, "CIGAR read length");
    assert_eq!(j, ext.window_end, "CIGAR reference length");
    score
}

/// The optimal score by a textbook Gotoh DP over the band, in `i32`, without the
/// kernels' layout or tie rules.
fn textbook(job: &ExtendJob<'_>, scoring: &Scoring) -> Option<i32> {
    let p = KernelParams::new(scoring);
    let (n, m) = (job.read.len(), job.window.len());
    let band = job.band as isize;
    let inf = i32::MIN / 4;
    let in_band = |i: usize, j: usize| {
        let k = j as isize - i as isize;
        (0..=2 * band).contains(&k)
    };
    // Index [i+1][j+1]; row 0 = before the read.
    let mut h = vec![vec![inf; m + 1]; n + 1];
    let mut e = vec![vec![inf; m + 1]; n + 1];
    let mut f = vec![vec![inf; m + 1]; n + 1];
    for cell in h[0].iter_mut() {
        *cell = 0;
    }
    let mut best = if p.local { 0 } else { inf };
    for i in 0..n {
        let gaps = p.gaps_allowed(i, n);
        let (ma, mm) = row_scores(job, &p, i);
        for j in 0..m {
            if !in_band(i, j) {
                continue;
            }
            let s = i32::from(pair_score(job.read[i], job.window[j], ma, mm, p.n_penalty));
            let diag = if j == 0 {
                if i == 0 {
                    0
                } else {
                    inf
                }
            } else {
                h[i][j]
            };
            let diag = if diag == inf { inf } else { diag + s };
            let (ee, ff) = if gaps {
                let left_h = h[i + 1][j];
                let left_e = e[i + 1][j];
                let up_h = h[i][j + 1];
                let up_f = f[i][j + 1];
                (
                    (left_h - i32::from(p.del_first)).max(left_e - i32::from(p.del_extend)),
                    (up_h - i32::from(p.ins_first)).max(up_f - i32::from(p.ins_extend)),
                )
            } else {
                (inf, inf)
            };
            e[i + 1][j + 1] = ee.max(inf);
            f[i + 1][j + 1] = ff.max(inf);
            let mut hh = diag.max(ee).max(ff).max(inf);
            if p.local {
                hh = hh.max(0);
                best = best.max(hh);
            }
            h[i + 1][j + 1] = hh;
        }
    }
    if !p.local && n > 0 {
        for j in 0..m {
            if in_band(n - 1, j) {
                best = best.max(h[n][j + 1]);
            }
        }
    }
    (best > inf / 2).then_some(best)
}

#[derive(Debug, Clone)]
struct OwnedJob {
    read: Vec<u8>,
    penalties: Vec<i16>,
    window: Vec<u8>,
    band: usize,
}

impl OwnedJob {
    fn job(&self, min_score: i32) -> ExtendJob<'_> {
        ExtendJob {
            read: &self.read,
            penalties: &self.penalties,
            window: &self.window,
            band: self.band,
            min_score,
        }
    }
}

/// A read drawn from a random window with substitutions, indels and Ns, plus pads.
fn job_strategy(max_len: usize) -> impl Strategy<Value = OwnedJob> {
    (1..max_len, 0usize..20, any::<u64>()).prop_map(|(len, band, seed)| {
        let mut state = seed | 1;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let window_len = len + 2 * band;
        let mut window: Vec<u8> = (0..window_len).map(|_| next(4) as u8).collect();
        for c in window.iter_mut() {
            match next(100) {
                0 => *c = REF_N,
                1 => *c = REF_PAD,
                _ => {}
            }
        }
        if next(4) == 0 {
            let pad = next(window_len as u64 / 2 + 1) as usize;
            window[..pad].fill(REF_PAD);
        }
        let mut read = Vec::with_capacity(len);
        let mut j = band;
        while read.len() < len {
            match next(40) {
                0 => read.push(next(4) as u8),
                1 => j += 1 + next(3) as usize,
                2 => read.push(4),
                3..=6 => {
                    read.push(next(4) as u8);
                    j += 1;
                }
                _ => {
                    read.push(window.get(j).copied().unwrap_or(0).min(3));
                    j += 1;
                }
            }
        }
        let penalties = (0..len).map(|_| 2 + next(5) as i16).collect();
        OwnedJob {
            read,
            penalties,
            window,
            band,
        }
    })
}

fn run(level: SimdLevel, jobs: &[OwnedJob], scoring: &Scoring, min: i32) -> Vec<Option<Extension>> {
    let views: Vec<ExtendJob<'_>> = jobs.iter().map(|j| j.job(min)).collect();
    let mut out = Vec::new();
    Extender::with_level(level).extend(&views, scoring, &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn scalar_is_optimal_and_consistent(job in job_strategy(90), local in any::<bool>()) {
        let scoring = if local { Scoring::local() } else { Scoring::end_to_end() };
        // Scores below -8000 only come from crossing a pad (a wall): no alignment.
        let out = run(SimdLevel::Scalar, std::slice::from_ref(&job), &scoring, -8000);
        let expected = textbook(&job.job(-8000), &scoring).filter(|&s| s >= -8000);
        match (&out[0], expected) {
            (Some(ext), Some(best)) => {
                prop_assert_eq!(ext.score, best);
                prop_assert_eq!(rescore(&job.job(0), &scoring, ext), ext.score);
                if !local {
                    prop_assert_eq!((ext.read_start, ext.read_end), (0, job.read.len()));
                }
            }
            (None, Some(best)) => prop_assert!(local && best == 0, "missed {best}"),
            (got, None) => prop_assert!(got.is_none()),
        }
    }

    #[test]
    fn simd_equals_scalar(jobs in prop::collection::vec(job_strategy(120), 1..70), local in any::<bool>()) {
        let scoring = if local { Scoring::local() } else { Scoring::end_to_end() };
        let min = if local { 10 } else { -60 };
        let reference = run(SimdLevel::Scalar, &jobs, &scoring, min);
        for level in [SimdLevel::Avx2, SimdLevel::Avx512] {
            if level.is_supported() {
                prop_assert_eq!(&run(level, &jobs, &scoring, min), &reference, "{}", level.name());
            } else {
                // Not run here: forcing it must be refused, not fall back silently.
                prop_assert!(SimdLevel::checked(level.name()).is_err());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Direction matrices are not cleared between jobs: nothing a larger matrix of an
    /// earlier call left behind shows in a later call's alignments, on any kernel.
    #[test]
    fn a_reused_extender_equals_a_fresh_one(
        earlier in prop::collection::vec(job_strategy(120), 1..40),
        later in prop::collection::vec(job_strategy(60), 1..40),
        local in any::<bool>(),
    ) {
        let scoring = if local { Scoring::local() } else { Scoring::end_to_end() };
        let min = if local { 10 } else { -60 };
        let earlier: Vec<ExtendJob<'_>> = earlier.iter().map(|j| j.job(min)).collect();
        for level in [SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512] {
            if !level.is_supported() {
                continue;
            }
            let mut extender = Extender::with_level(level);
            let mut out = Vec::new();
            extender.extend(&earlier, &scoring, &mut out);
            let later_views: Vec<ExtendJob<'_>> = later.iter().map(|j| j.job(min)).collect();
            extender.extend(&later_views, &scoring, &mut out);
            prop_assert_eq!(&out, &run(level, &later, &scoring, min), "{}", level.name());
        }
    }
}

/// Where the CPU has the level, its kernel equals the scalar one on jobs that fill
/// several groups; where it lacks it, asking for it is an error (the extender never
/// runs a kernel the CPU lacks, and never silently runs another).
fn check_level(level: SimdLevel) {
    if !level.is_supported() {
        let e = SimdLevel::checked(level.name()).unwrap_err().to_string();
        assert!(e.contains("which this CPU lacks"), "{e}");
        eprintln!("note: this CPU lacks {level}; only its refusal is tested here");
        return;
    }
    let jobs: Vec<OwnedJob> = (0..70u32)
        .map(|j| {
            let window: Vec<u8> = (0..90u32)
                .map(|i| ((i * 7 + i / 3 + j) % 4) as u8)
                .collect();
            let band = 3 + (j as usize % 5);
            let mut read: Vec<u8> = window[band..band + 60].to_vec();
            read[(j as usize * 13) % 60] ^= 1;
            if j % 3 == 0 {
                read.remove(30);
            }
            let len = read.len();
            OwnedJob {
                read,
                penalties: vec![6; len],
                window: window[..len + 2 * band].to_vec(),
                band,
            }
        })
        .collect();
    for (scoring, min) in [(Scoring::end_to_end(), -60), (Scoring::local(), 10)] {
        let reference = run(SimdLevel::Scalar, &jobs, &scoring, min);
        assert!(reference.iter().any(Option::is_some));
        assert_eq!(run(level, &jobs, &scoring, min), reference, "{level}");
    }
}

#[test]
fn avx2_equals_scalar_or_is_refused() {
    check_level(SimdLevel::Avx2);
}

#[test]
fn avx512_equals_scalar_or_is_refused() {
    check_level(SimdLevel::Avx512);
}

#[test]
fn exact_and_gapped_reads_align_as_expected() {
    let window: Vec<u8> = (0..60u32).map(|i| ((i * 7 + i / 3) % 4) as u8).collect();
    let band = 5;
    // Exact copy at offset band.
    let read: Vec<u8> = window[band..band + 50].to_vec();
    let pens = vec![6i16; read.len()];
    let mut w = window.clone();
    w.truncate(read.len() + 2 * band);
    let job = OwnedJob {
        read: read.clone(),
        penalties: pens.clone(),
        window: w.clone(),
        band,
    };
    let e2e = run(
        SimdLevel::Scalar,
        std::slice::from_ref(&job),
        &Scoring::end_to_end(),
        -100,
    );
    let ext = e2e[0].as_ref().unwrap();
    assert_eq!(
        (ext.score, ext.cigar.to_string(), ext.window_start),
        (0, "50M".into(), band)
    );
    let local = run(
        SimdLevel::Scalar,
        std::slice::from_ref(&job),
        &Scoring::local(),
        1,
    );
    assert_eq!(local[0].as_ref().unwrap().score, 100);
    // Two bases deleted from the read in the middle: 25M2D23M (or an equivalent
    // placement of the gap), score -(5 + 3·2).
    let mut gapped = read[..25].to_vec();
    gapped.extend_from_slice(&read[27..]);
    let job = OwnedJob {
        read: gapped.clone(),
        penalties: vec![6; gapped.len()],
        window: window[..gapped.len() + 2 * band].to_vec(),
        band,
    };
    let out = run(
        SimdLevel::Scalar,
        std::slice::from_ref(&job),
        &Scoring::end_to_end(),
        -100,
    );
    let ext = out[0].as_ref().unwrap();
    assert_eq!(ext.score, -11);
    assert_eq!(ext.cigar.reference_len(), 50);
    assert!(ext.cigar.to_string().contains("2D"), "{}", ext.cigar);
}

/// Equally scored end cells: the last in row-major order is kept, as bowtie2 keeps
/// them, at every SIMD level.
#[test]
fn ties_between_end_cells_go_to_the_later_cell() {
    let window: Vec<u8> = (0..60u32).map(|i| ((i * 7 + i / 3) % 4) as u8).collect();
    let band = 5;
    // A mismatch 4 bases from the end: 46 matches (92), -6, 3 matches (+6) ties.
    let mut read: Vec<u8> = window[band..band + 50].to_vec();
    read[46] = (read[46] + 1) % 4;
    let job = OwnedJob {
        penalties: vec![6; read.len()],
        window: window[..read.len() + 2 * band].to_vec(),
        read,
        band,
    };
    for level in [SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512] {
        if !level.is_supported() {
            continue;
        }
        let jobs = vec![job.clone(); lanes(level)];
        let local = run(level, &jobs, &Scoring::local(), 1);
        let ext = local[0].as_ref().unwrap();
        assert_eq!(
            (ext.score, ext.cigar.to_string()),
            (92, "50M".into()),
            "{level:?}"
        );
    }
}
