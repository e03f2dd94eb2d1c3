use super::*;
use crate::pileup::rows::push_number;

/// A pileup given as its covered positions, each with one file's `(counted, depth)`.
struct Pileup {
    covered: Vec<((i32, i64), u32)>,
}

impl Pileup {
    fn next_from(&self, ref_id: i32, pos: i64) -> Next {
        self.covered
            .iter()
            .find(|(at, _)| at.0 == ref_id && at.1 >= pos)
            .map_or(Next::PastContig, |(at, _)| Next::At(at.1))
    }

    fn depth(&self, at: (i32, i64)) -> u32 {
        self.covered
            .iter()
            .find(|(p, _)| *p == at)
            .map_or(0, |(_, d)| *d)
    }

    fn counts(&self, site: &Site) -> [[u32; 5]; 1] {
        let d = self.depth((site.ref_id, site.pos));
        [[d, 0, 0, 0, d]]
    }

    fn finding<'a>(&self, site: &Site, counts: &'a [[u32; 5]]) -> SiteFinding<'a> {
        SiteFinding {
            next: self.next_from(site.ref_id, site.pos),
            next_after: self.next_from(site.ref_id, site.pos + 1),
            counts,
        }
    }

    /// The straightforward loop: positions one by one, as the pileup hands them out.
    fn reference_rows(&self, sites: &[Site], rules: &RowRules, names: &[String]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut next = 0usize;
        let mut at: Option<(i32, i64)> = None;
        for site in sites {
            if let Some((tid, pos)) = at {
                if tid > site.ref_id || (tid == site.ref_id && site.pos < pos) {
                    continue;
                }
            }
            while next < self.covered.len() {
                let ((tid, pos), d) = self.covered[next];
                next += 1;
                at = Some((tid, pos));
                if site.ref_id > tid {
                    continue;
                }
                if (tid, pos) == (site.ref_id, site.pos) {
                    if i64::from(d) >= rules.min_depth[0] && d > 0 {
                        out.extend_from_slice(
                            format!(
                                "{},{},{},{},{d},0,0,0\n",
                                names[tid as usize],
                                pos + 1,
                                site.reference as char,
                                site.alternate as char
                            )
                            .as_bytes(),
                        );
                    }
                    break;
                }
                if rules.pseudo_every != 0
                    && (pos + 1) % rules.pseudo_every == 0
                    && i64::from(d) >= rules.min_depth[0]
                    && d > 0
                {
                    out.extend_from_slice(
                        format!("{},{},.,.,{d},0,0,0\n", names[tid as usize], pos + 1).as_bytes(),
                    );
                }
                if tid > site.ref_id || pos > site.pos {
                    break;
                }
            }
        }
        out
    }
}

impl CoverageProbe for &Pileup {
    type Error = ();
    fn first_after_contig(&mut self, ref_id: i32) -> Result<Option<FoundPosition>, ()> {
        Ok(self
            .covered
            .iter()
            .find(|(at, _)| at.0 > ref_id)
            .map(|&((r, p), d)| FoundPosition {
                ref_id: r,
                pos: p,
                counts: vec![[d, d]],
            }))
    }
}

fn walk(pileup: &Pileup, sites: &[Site], rules: &RowRules, names: &[String]) -> Vec<u8> {
    let mut walker = SiteWalker::new(rules.clone(), 1);
    for &(at, d) in &pileup.covered {
        if walker.is_pseudo_position(at.1) {
            walker.offer_pseudo(at.0, at.1, &[[d, d]]);
        }
    }
    let mut out = Vec::new();
    let mut probe = pileup;
    for site in sites {
        let counts = pileup.counts(site);
        let finding = (site.ref_id >= 0).then(|| pileup.finding(site, &counts));
        walker
            .visit(site, finding, &mut probe, names, &mut out)
            .unwrap();
    }
    out
}

fn site(ref_id: i32, pos: i64) -> Site {
    Site {
        ref_id,
        pos,
        reference: b'A',
        alternate: b'C',
    }
}

#[test]
fn quirks_of_the_loop() {
    let names = vec!["1".to_string(), "2".to_string()];
    let covered: Vec<_> = [(0, 10), (0, 11), (0, 12), (0, 14), (0, 15), (1, 3), (1, 4)]
        .iter()
        .map(|&(r, p)| ((r, p), 5))
        .collect();
    let pileup = Pileup { covered };
    let rules = RowRules {
        min_depth: vec![0],
        pseudo_every: 0,
    };
    // 11 matched; 11 again takes 12 (so 12 is lost); 13 is not covered: 14 is consumed
    // and then 14 itself only takes 15; 9 is behind; 2:4 is matched.
    let sites = [
        site(0, 11),
        site(0, 11),
        site(0, 12),
        site(0, 13),
        site(0, 14),
        site(0, 9),
        site(1, 4),
    ];
    let out = walk(&pileup, &sites, &rules, &names);
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        "1,12,A,C,5,0,0,0\n2,5,A,C,5,0,0,0\n"
    );
    assert_eq!(out, pileup.reference_rows(&sites, &rules, &names));
}

#[test]
fn random_walks_match_the_straightforward_loop() {
    let names: Vec<String> = (1..=4).map(|i| i.to_string()).collect();
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut rand = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for round in 0..300 {
        let mut covered = Vec::new();
        for r in 0..4 {
            if rand(4) == 0 {
                continue;
            }
            for p in 0..60 {
                if rand(3) != 0 {
                    covered.push(((r, p), rand(4) as u32));
                }
            }
        }
        let pileup = Pileup { covered };
        let mut sites = Vec::new();
        let mut r = -1i32;
        let mut p = 0i64;
        for _ in 0..rand(40) {
            match rand(10) {
                0 => sites.push(site(-1, rand(50) as i64)),
                1 if r < 3 => {
                    r += 1;
                    p = rand(10) as i64;
                }
                2 => p = p.saturating_sub(rand(5) as i64),
                _ => p += rand(4) as i64,
            }
            if r >= 0 {
                sites.push(site(r, p));
            }
        }
        for (min_depth, pseudo_every) in [(0, 0), (2, 0), (0, 5), (1, 3)] {
            let rules = RowRules {
                min_depth: vec![min_depth],
                pseudo_every,
            };
            assert_eq!(
                String::from_utf8(walk(&pileup, &sites, &rules, &names)).unwrap(),
                String::from_utf8(pileup.reference_rows(&sites, &rules, &names)).unwrap(),
                "round {round} rules {rules:?} sites {sites:?}"
            );
        }
    }
}

#[test]
fn header_and_numbers() {
    let w = SiteWalker::new(
        RowRules {
            min_depth: vec![0, 0],
            pseudo_every: 0,
        },
        2,
    );
    assert_eq!(
        w.header(),
        b"Chromosome,Position,Ref,Alt,File1R,File1A,File1E,File1D,File2R,File2A,File2E,File2D\n"
    );
    let mut out = Vec::new();
    for n in [0u64, 7, 10, 4_294_967_295, u64::MAX] {
        push_number(&mut out, n);
        out.push(b' ');
    }
    assert_eq!(out, b"0 7 10 4294967295 18446744073709551615 ");
}
