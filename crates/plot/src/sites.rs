//! snp-pileup's picture: per-site B-allele fractions of the normal (file 1) and the
//! tumour (file 2) and the tumour/normal log2 depth ratio along the genome, as a FACETS
//! user draws them first.
//!
//! The table reads the rows as they are written (`Chromosome,Position,Ref,Alt` and
//! `R,A,E,D` per file). A site is drawn when its normal has at least
//! [`MIN_NORMAL_DEPTH`] reads of either allele (R + A). Its B-allele fraction in a file is
//! A / (R + A) (pseudo-SNP rows, `-P`, have no alleles and are left out of it); its log
//! ratio is log2((R + A in the tumour / the tumour's total) / (R + A in the normal / the
//! normal's total)), the totals over the sites drawn, pseudo-SNPs included, sites without
//! tumour reads left out. With one BAM only its B-allele fraction is drawn; BAMs after the
//! second are not drawn.

use std::collections::HashMap;
use std::path::Path;

use crate::genome::{self, Datum, GenomeAxis, GenomePanel, Series};
use crate::{file_label, Error};

/// Reads (Ref + Alt) the normal needs at a site for the site to be drawn.
pub const MIN_NORMAL_DEPTH: u32 = 10;

/// One site's counts: `[R, A]` of the normal and of the tumour.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SiteCounts {
    contig: u32,
    pos: i64,
    pseudo: bool,
    normal: [u32; 2],
    tumour: [u32; 2],
}

/// snp-pileup's rows, kept for the picture (the sites deep enough in the normal).
#[derive(Debug, Default)]
pub struct SiteTable {
    names: Vec<String>,
    ids: HashMap<Vec<u8>, u32>,
    sites: Vec<SiteCounts>,
    files: usize,
}

impl SiteTable {
    /// A table for rows of `files` BAMs.
    pub fn new(files: usize) -> Self {
        Self {
            files,
            ..Self::default()
        }
    }

    /// Takes the rows in `text` (whole lines, without the header).
    pub fn add_rows(&mut self, text: &[u8]) -> crate::Result<()> {
        for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            self.add_row(line).ok_or_else(|| Error::SiteRow {
                line: String::from_utf8_lossy(line).into_owned(),
            })?;
        }
        Ok(())
    }

    fn add_row(&mut self, line: &[u8]) -> Option<()> {
        let mut fields = line.split(|&b| b == b',');
        let chrom = fields.next()?;
        let number =
            |f: Option<&[u8]>| -> Option<u64> { std::str::from_utf8(f?).ok()?.parse().ok() };
        let pos = number(fields.next())? as i64;
        let pseudo = fields.next()? == b".";
        fields.next()?;
        let mut counts = [[0u32; 2]; 2];
        for file in 0..self.files {
            let r = number(fields.next())? as u32;
            let a = number(fields.next())? as u32;
            fields.next()?;
            fields.next()?;
            if let Some(c) = counts.get_mut(file) {
                *c = [r, a];
            }
        }
        if counts[0][0] + counts[0][1] < MIN_NORMAL_DEPTH {
            return Some(());
        }
        let next = self.names.len() as u32;
        let contig = *self.ids.entry(chrom.to_vec()).or_insert(next);
        if contig == next {
            self.names.push(String::from_utf8_lossy(chrom).into_owned());
        }
        self.sites.push(SiteCounts {
            contig,
            pos,
            pseudo,
            normal: counts[0],
            tumour: counts[1],
        });
        Some(())
    }

    /// B-allele fractions of the normal and the tumour, and log2 ratios, of the sites.
    fn values(&self) -> [Vec<Datum>; 3] {
        let depth = |c: [u32; 2]| u64::from(c[0]) + u64::from(c[1]);
        let total = |side: fn(&SiteCounts) -> [u32; 2]| -> f64 {
            self.sites.iter().map(|s| depth(side(s))).sum::<u64>() as f64
        };
        let (normal_total, tumour_total) = (total(|s| s.normal), total(|s| s.tumour));
        let fraction = |c: [u32; 2]| f64::from(c[1]) / depth(c) as f64;
        let mut baf_normal = Vec::new();
        let mut baf_tumour = Vec::new();
        let mut log_ratio = Vec::new();
        for s in &self.sites {
            let at = |v: f64| (s.contig, s.pos, v);
            if !s.pseudo {
                baf_normal.push(at(fraction(s.normal)));
                if depth(s.tumour) > 0 {
                    baf_tumour.push(at(fraction(s.tumour)));
                }
            }
            if depth(s.tumour) > 0 && tumour_total > 0.0 {
                let ratio = (depth(s.tumour) as f64 / tumour_total)
                    / (depth(s.normal) as f64 / normal_total);
                log_ratio.push(at(ratio.log2()));
            }
        }
        [baf_normal, baf_tumour, log_ratio]
    }

    /// The picture of the sites of `vcf` in `bams`, as SVG.
    pub fn draw(&self, vcf: &Path, bams: &[std::path::PathBuf]) -> crate::Result<String> {
        let axis = GenomeAxis::new(
            &self.names,
            self.sites.iter().map(|s| (s.contig, s.pos, s.pos)),
        );
        let [baf_normal, baf_tumour, log_ratio] = self.values();
        let baf = |y_title: &str, name: &str, data: Vec<Datum>| GenomePanel {
            y_title: y_title.to_string(),
            y_range: Some((0.0, 1.0)),
            from_zero: true,
            reference: Some(0.5),
            series: vec![Series {
                name: name.to_string(),
                data,
                lines: false,
            }],
        };
        let names: Vec<String> = bams.iter().map(|b| file_label(b)).collect();
        let (title, panels) = if self.files < 2 {
            (
                format!(
                    "snp-pileup: {} at the sites of {}",
                    names.join(", "),
                    file_label(vcf)
                ),
                vec![baf("B-allele fraction", "file 1", baf_normal)],
            )
        } else {
            let log_panel = GenomePanel {
                y_title: "log2 tumour/normal".to_string(),
                y_range: None,
                from_zero: false,
                reference: Some(0.0),
                series: vec![Series {
                    name: "log2 ratio".to_string(),
                    data: log_ratio,
                    lines: false,
                }],
            };
            (
                format!(
                    "snp-pileup: normal {}, tumour {}, sites of {} ({MIN_NORMAL_DEPTH}+ reads in the normal)",
                    names[0],
                    names[1],
                    file_label(vcf)
                ),
                vec![
                    baf("B-allele fraction (normal)", "normal", baf_normal),
                    baf("B-allele fraction (tumour)", "tumour", baf_tumour),
                    log_panel,
                ],
            )
        };
        genome::draw("snp-pileup", &title, &axis, &panels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_below_the_normal_depth_are_left_out() {
        let mut table = SiteTable::new(2);
        table
            .add_rows(b"20,100,A,G,6,4,0,0,3,0,0,0\n20,110,A,G,5,4,1,0,9,9,0,0\n")
            .unwrap();
        assert_eq!(table.sites.len(), 1);
        assert_eq!(table.sites[0].normal, [6, 4]);
        assert_eq!(table.sites[0].tumour, [3, 0]);
        assert!(table.add_rows(b"20,x,A,G,1,1,0,0\n").is_err());
    }

    #[test]
    fn fractions_and_ratios() {
        let mut table = SiteTable::new(2);
        table
            .add_rows(
                b"1,100,A,G,10,10,0,0,30,10,0,0\n\
                  1,200,.,.,20,0,0,0,0,0,0,0\n\
                  2,50,C,T,30,0,2,0,40,0,0,0\n",
            )
            .unwrap();
        let [normal, tumour, ratio] = table.values();
        assert_eq!(normal, [(0, 100, 0.5), (1, 50, 0.0)]);
        assert_eq!(tumour, [(0, 100, 0.25), (1, 50, 0.0)]);
        // Totals: normal 20 + 20 + 30 = 70, tumour 40 + 0 + 40 = 80.
        let expect = ((40.0 / 80.0) / (20.0 / 70.0f64)).log2();
        assert_eq!(ratio.len(), 2);
        assert!((ratio[0].2 - expect).abs() < 1e-12);
        assert_eq!(table.names, ["1", "2"]);
    }

    #[test]
    fn one_bam_gives_its_fractions() {
        let mut table = SiteTable::new(1);
        table.add_rows(b"chrM,7,A,G,4,12,0,0\n").unwrap();
        let [normal, tumour, ratio] = table.values();
        assert_eq!(normal, [(0, 7, 0.75)]);
        assert!(tumour.is_empty() && ratio.is_empty());
    }
}
