//! The input's header as duplicate marking needs it (its sort order and read groups),
//! the check that the records really are in coordinate order, and the header written
//! again at the top of the output.

use std::path::{Path, PathBuf};

use seqfarm_io::bam::Header;
use seqfarm_io::bgzf_writer::BgzfCompressor;
use seqfarm_io::sam::bam::encode_header_fields;
use seqfarm_regions::markdup::Libraries;

/// What the header says.
pub(super) struct ParsedHeader {
    /// The libraries of its read groups.
    pub libraries: Libraries,
}

/// The value of `TAG:` in the tab-separated fields of a header line.
fn field<'a>(line: &'a str, tag: &str) -> Option<&'a str> {
    line.split('\t')
        .skip(1)
        .find_map(|f| f.strip_prefix(tag)?.strip_prefix(':'))
}

/// Reads the sort order and read groups of `header` (of the file `path`); a header that
/// does not say `SO:coordinate` is refused, as Picard refuses it.
pub(super) fn parse(header: &Header, path: &Path) -> anyhow::Result<ParsedHeader> {
    let text = header.text.trim_end_matches('\0');
    let sort_order = text
        .lines()
        .find(|l| l.starts_with("@HD\t"))
        .and_then(|l| field(l, "SO"));
    if sort_order != Some("coordinate") {
        let said = sort_order.map_or("no sort order (no @HD SO)".to_string(), |so| {
            format!("@HD SO:{so}")
        });
        anyhow::bail!(
            "{}: the header says {said}; markdup needs a coordinate-sorted BAM \
             (samtools sort -o sorted.bam {})",
            path.display(),
            path.display()
        );
    }
    let groups: Vec<(Vec<u8>, Option<String>)> = text
        .lines()
        .filter(|l| l.starts_with("@RG\t"))
        .filter_map(|l| {
            let id = field(l, "ID")?;
            Some((id.as_bytes().to_vec(), field(l, "LB").map(str::to_string)))
        })
        .collect();
    Ok(ParsedHeader {
        libraries: Libraries::new(&groups),
    })
}

/// Checks, record by record, that a file is in coordinate order.
pub(super) struct SortCheck {
    path: PathBuf,
    names: Vec<String>,
    previous: Option<(u32, i32, Vec<u8>)>,
    records: u64,
}

impl SortCheck {
    /// A check of the file `path` with `header`.
    pub fn new(path: &Path, header: &Header) -> Self {
        Self {
            path: path.to_path_buf(),
            names: header.references.iter().map(|r| r.name.clone()).collect(),
            previous: None,
            records: 0,
        }
    }

    fn place(&self, ref_id: u32, pos: i32) -> String {
        match self.names.get(ref_id as usize) {
            Some(name) => format!("{name}:{}", i64::from(pos) + 1),
            None => "the unplaced reads".to_string(),
        }
    }

    /// Fails on the record named `name` at `ref_id`:`pos` (0-based) when it comes before
    /// the record preceding it.
    pub fn check(&mut self, ref_id: i32, pos: i32, name: &[u8]) -> anyhow::Result<()> {
        self.records += 1;
        let key = (ref_id as u32, pos);
        if let Some((ref_id, pos, previous)) = &self.previous {
            if key < (*ref_id, *pos) {
                anyhow::bail!(
                    "{}: record {} ({} at {}) comes after {} at {}: the BAM is not sorted by \
                     coordinate (samtools sort -o sorted.bam {})",
                    self.path.display(),
                    self.records,
                    String::from_utf8_lossy(name),
                    self.place(key.0, key.1),
                    String::from_utf8_lossy(previous),
                    self.place(*ref_id, *pos),
                    self.path.display()
                );
            }
        }
        let previous = self.previous.get_or_insert_with(|| (0, 0, Vec::new()));
        previous.0 = key.0;
        previous.1 = key.1;
        previous.2.clear();
        previous.2.extend_from_slice(name);
        Ok(())
    }
}

/// `header` as the BGZF blocks that start a BAM.
pub(super) fn bam_header_blocks(header: &Header, level: i32) -> Vec<u8> {
    let mut bytes = Vec::new();
    let references = header
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.length));
    encode_header_fields(&header.text, references, &mut bytes);
    let mut blocks = Vec::new();
    BgzfCompressor::new(level).compress(&bytes, &mut blocks);
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> Header {
        Header {
            text: text.into(),
            references: Vec::new(),
        }
    }

    #[test]
    fn only_coordinate_sorted_headers_pass() {
        let path = Path::new("x.bam");
        assert!(parse(&header("@HD\tVN:1.6\tSO:coordinate\n"), path).is_ok());
        let error = parse(&header("@HD\tVN:1.6\tSO:queryname\n"), path)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("SO:queryname"), "{error}");
        assert!(parse(&header(""), path).is_err());
    }

    #[test]
    fn read_groups_name_their_libraries() {
        let text = "@HD\tSO:coordinate\n@RG\tID:a\tLB:lib1\n@RG\tID:b\n";
        let parsed = parse(&header(text), Path::new("x.bam")).unwrap();
        let libraries = parsed.libraries;
        assert_eq!(libraries.names(), ["Unknown Library", "lib1"]);
        assert_eq!(libraries.library(Some(b"a")), 1);
        assert_eq!(libraries.library(Some(b"b")), 0);
        assert_eq!(libraries.library(None), 0);
    }
}
