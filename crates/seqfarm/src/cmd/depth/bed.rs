//! The BED regions of `seqfarm depth --bed`: their reading, and the warnings about those
//! the BAM cannot cover.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use seqfarm_io::input::{Input, LineReader};

/// One region: start, stop and its name (empty when unnamed).
#[derive(Debug, Clone)]
pub(super) struct Region {
    pub(super) start: i64,
    pub(super) stop: i64,
    pub(super) name: String,
}

/// BED regions by contig name, each list sorted by start (ties in file order).
pub(super) fn read_bed(path: &Path) -> anyhow::Result<HashMap<String, Vec<Region>>> {
    let mut lines = LineReader::new(Input::open(path)?);
    let mut by_contig: HashMap<String, Vec<Region>> = HashMap::new();
    while lines.next_line()? {
        let text = String::from_utf8_lossy(&lines.line);
        let line = text.trim();
        // UCSC header lines, as mosdepth and `count --bed` pass over them.
        if line.is_empty()
            || line.starts_with('#')
            || line.starts_with("track")
            || line.starts_with("browser")
        {
            continue;
        }
        let error = |m: String| seqfarm_io::Error::line(path, lines.number, m);
        let fields: Vec<&str> = line.splitn(6, '\t').collect();
        if fields.len() < 3 {
            return Err(error("fewer than 3 tab-separated columns".into()).into());
        }
        let number = |name: &str, t: &str| {
            t.parse::<u32>()
                .ok()
                .filter(|_| t.bytes().all(|b| b.is_ascii_digit()))
                .map(i64::from)
                .ok_or_else(|| error(format!("{name} {t:?} is not a non-negative integer")))
        };
        let start = number("start", fields[1])?;
        let stop = number("end", fields[2])?;
        if start > stop {
            return Err(error(format!("start {start} is greater than end {stop}")).into());
        }
        let name = fields.get(3).map_or("", |n| n.trim()).to_string();
        by_contig
            .entry(fields[0].to_string())
            .or_default()
            .push(Region { start, stop, name });
    }
    for regions in by_contig.values_mut() {
        regions.sort_by_key(|r| r.start);
    }
    Ok(by_contig)
}

/// Warnings about BED regions the BAM cannot cover: those on a contig its header lacks
/// (left out of the output, as mosdepth leaves them out and warns) and those running
/// past their contig's end (reported over their whole length, the bases past the end at
/// depth 0). One line per contig, in header order, then the absent ones by name.
pub(super) fn bed_warnings(
    bed: &HashMap<String, Vec<Region>>,
    names: &[String],
    lengths: &[i64],
) -> Vec<String> {
    let mut warnings = Vec::new();
    for (name, &len) in names.iter().zip(lengths) {
        let past: Vec<&Region> = bed
            .get(name)
            .map_or(&[][..], |v| v)
            .iter()
            .filter(|r| r.stop > len)
            .collect();
        if let Some(first) = past.first() {
            warnings.push(format!(
                "{} region(s) on {name} run past its end ({len} bp), e.g. {name}:{}-{}; \
                 their bases past the end count as depth 0",
                past.len(),
                first.start,
                first.stop
            ));
        }
    }
    let known: HashSet<&String> = names.iter().collect();
    let mut absent: Vec<(&String, usize)> = bed
        .iter()
        .filter(|(name, _)| !known.contains(name))
        .map(|(name, regions)| (name, regions.len()))
        .collect();
    absent.sort();
    for (name, n) in absent {
        warnings.push(format!(
            "{n} region(s) on {name}, which the BAM header lacks, are left out"
        ));
    }
    warnings
}
