//! The VCF sites snp-pileup leaves out or reads unlike a user may expect, counted for the
//! warnings on standard error.
//!
//! FACETS snp-pileup says nothing when it skips a site whose contig is not in the BAMs
//! (after its `chr` rule), skips a site behind an earlier one of its contig (an unsorted
//! VCF), or compares the reads' uppercase bases with a lowercase REF letter (every read
//! then counts as ALT or as an error). The rows stay exactly as snp-pileup writes them;
//! these counts only feed warnings.

use std::path::Path;

use seqfarm_regions::pileup::visit::Site;

/// Distinct contig names a warning shows, at most, on each side.
const NAMES_SHOWN: usize = 4;

/// The counts of one run of VCF lines (a task's, or the planner's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkippedSites {
    /// Biallelic SNVs on contigs not in the BAMs.
    pub absent: u64,
    /// The first distinct VCF contig names of the `absent` sites.
    pub absent_names: Vec<Vec<u8>>,
    /// Whether `absent` sites name more contigs than `absent_names`.
    pub more_names: bool,
    /// Biallelic SNVs behind an earlier site of their contig.
    pub behind: u64,
    /// Biallelic SNVs whose REF letter is lowercase.
    pub lowercase_ref: u64,
}

impl SkippedSites {
    /// Counts a biallelic SNV with REF letter `reference` as read, before it is kept.
    pub fn note_snv(&mut self, reference: u8) {
        if reference.is_ascii_lowercase() {
            self.lowercase_ref += 1;
        }
    }

    /// Counts a site on VCF contig `chrom`, not in the BAMs.
    pub fn note_absent(&mut self, chrom: &[u8]) {
        self.absent += 1;
        self.note_absent_name(chrom);
    }

    fn note_absent_name(&mut self, chrom: &[u8]) {
        if self.absent_names.iter().any(|n| n == chrom) {
            return;
        }
        if self.absent_names.len() < NAMES_SHOWN {
            self.absent_names.push(chrom.to_vec());
        } else {
            self.more_names = true;
        }
    }

    fn add(&mut self, other: &SkippedSites) {
        self.absent += other.absent;
        for name in &other.absent_names {
            self.note_absent_name(name);
        }
        self.more_names |= other.more_names;
        self.behind += other.behind;
        self.lowercase_ref += other.lowercase_ref;
    }
}

/// The counts of a whole run, added task by task in VCF order (carried from one walk to
/// the next in a run in parts).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkipTally {
    /// The counts so far.
    pub total: SkippedSites,
    /// The furthest site kept so far: (reference index, position).
    pub furthest: Option<(i32, i64)>,
}

impl SkipTally {
    /// Adds a task's counts and its kept `sites`: those behind the furthest site of an
    /// earlier task (which the task alone could not see) count as behind too.
    pub fn add_task(&mut self, counts: &SkippedSites, sites: &[Site]) {
        self.total.add(counts);
        for site in sites.iter().filter(|s| s.ref_id >= 0) {
            match self.furthest {
                Some((id, pos)) if id == site.ref_id && site.pos < pos => self.total.behind += 1,
                _ => self.furthest = Some((site.ref_id, site.pos)),
            }
        }
    }

    /// Adds counts no task carried (the planner's, with pseudo-SNPs).
    pub fn add(&mut self, counts: &SkippedSites) {
        self.total.add(counts);
    }

    /// The warnings of the counts, for VCF `vcf` and BAM references `bam_names`.
    pub fn warnings(&self, vcf: &Path, bam_names: &[String]) -> Vec<String> {
        let SkippedSites {
            absent,
            absent_names,
            more_names,
            behind,
            lowercase_ref,
        } = &self.total;
        let vcf = vcf.display();
        let mut warnings = Vec::new();
        if *absent > 0 {
            let shown = |names: &[String], more: bool| {
                format!("{}{}", names.join(", "), if more { ", ..." } else { "" })
            };
            let vcf_names: Vec<String> = absent_names
                .iter()
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .collect();
            let exact: Vec<&String> = vcf_names.iter().filter(|n| bam_names.contains(n)).collect();
            let first_bam = bam_names.first().map_or("", String::as_str);
            let mut text = format!(
                "{vcf}: {absent} sites skipped: their contig is not in the BAMs (VCF contigs: \
                 {}; BAM references: {})",
                shown(&vcf_names, *more_names),
                shown(
                    &bam_names[..bam_names.len().min(NAMES_SHOWN)],
                    bam_names.len() > NAMES_SHOWN
                ),
            );
            if let Some(name) = exact.first() {
                text.push_str(&format!(
                    "; {name} is a BAM reference by that name, but as in FACETS snp-pileup \
                     `chr` is stripped from VCF contigs, and from BAM references only when \
                     the first ({first_bam}) starts with `chr`"
                ));
            }
            warnings.push(text);
        }
        if *behind > 0 {
            warnings.push(format!(
                "{vcf}: {behind} sites skipped as out of order: they come behind an earlier \
                 site of their contig, as FACETS snp-pileup skips them (sort the VCF by \
                 position)"
            ));
        }
        if *lowercase_ref > 0 {
            warnings.push(format!(
                "{vcf}: {lowercase_ref} sites have a lowercase REF allele: as in FACETS \
                 snp-pileup, the reads' uppercase bases never equal it, so they count as ALT \
                 or as errors (E), none as REF (uppercase the REF column)"
            ));
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::super::rows::tests::site;
    use super::*;

    #[test]
    fn counts_add_up_across_tasks() {
        let mut first = SkippedSites::default();
        for name in ["21", "Chr20", "21", "CHR20", "x", "y"] {
            first.note_absent(name.as_bytes());
        }
        first.note_snv(b'a');
        first.note_snv(b'A');
        let mut tally = SkipTally::default();
        tally.add_task(&first, &[site(0, 100), site(-1, 5)]);
        // A task whose first sites lie behind the earlier task's last one.
        let second = SkippedSites {
            behind: 1,
            ..SkippedSites::default()
        };
        tally.add_task(
            &second,
            &[site(0, 50), site(0, 60), site(0, 200), site(1, 3)],
        );
        assert_eq!(tally.total.absent, 6);
        assert_eq!(tally.total.absent_names.len(), NAMES_SHOWN);
        assert_eq!(tally.total.behind, 3);
        assert_eq!(tally.total.lowercase_ref, 1);
        let warnings = tally.warnings(Path::new("s.vcf"), &["20".into()]);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings[0].contains("6 sites skipped")
                && warnings[0].contains("VCF contigs: 21, Chr20, CHR20, x, ...")
                && warnings[0].contains("BAM references: 20)"),
            "{warnings:?}"
        );
        assert!(warnings[1].contains("3 sites skipped as out of order"));
        assert!(warnings[2].contains("1 sites have a lowercase REF"));
    }

    #[test]
    fn an_exact_name_dropped_by_the_chr_rule_is_explained() {
        let mut counts = SkippedSites::default();
        counts.note_absent(b"chr20_1_260000");
        let mut tally = SkipTally::default();
        tally.add(&counts);
        let names = ["20".to_string(), "chr20_1_260000".to_string()];
        let warnings = tally.warnings(Path::new("s.vcf"), &names);
        assert!(
            warnings[0].contains("chr20_1_260000 is a BAM reference by that name")
                && warnings[0].contains("the first (20)"),
            "{warnings:?}"
        );
        assert!(SkipTally::default()
            .warnings(Path::new("s"), &names)
            .is_empty());
    }
}
