//! The reference sequences a CRAM is decoded against: a FASTA given by the caller, or
//! the file its `@SQ UR:` names; checked against the header's lengths and `M5` digests.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use md5::{Digest, Md5};
use noodles_fasta as fasta;
use noodles_sam as sam;

use crate::bam::suffixed;
use crate::{Error, Result};

/// Fails unless the reference FASTA `path` given by the caller can be opened for reading,
/// whatever the inputs (as samtools fails when it cannot open `--reference`), so that a
/// mistyped path is not ignored where the inputs are BAMs.
pub fn check_reference(path: Option<&Path>) -> Result<()> {
    let Some(path) = path else {
        return Ok(());
    };
    let cannot = |cause: String| {
        Error::io(
            path,
            std::io::Error::other(format!(
                "cannot open the reference FASTA (--reference): {cause}"
            )),
        )
    };
    let file = std::fs::File::open(path).map_err(|e| cannot(e.to_string()))?;
    let is_dir = file.metadata().is_ok_and(|m| m.is_dir());
    if is_dir {
        return Err(cannot("it is a directory".into()));
    }
    Ok(())
}

/// A FASTA opened for decoding (or none), shared by every worker (the sequences are
/// read once, on first use, and cached).
#[derive(Clone)]
pub struct ReferenceSource {
    repository: fasta::Repository,
    path: Option<PathBuf>,
    /// The sequences checked so far ([`ReferenceSource::check_once`]), shared by clones.
    checked: Arc<Mutex<HashSet<Vec<u8>>>>,
}

impl std::fmt::Debug for ReferenceSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReferenceSource")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl ReferenceSource {
    /// The FASTA at `path` (through its `.fai` when there is one, else read whole), or the
    /// first `@SQ UR:` of `header` that names an existing file, or none.
    pub fn open(path: Option<&Path>, header: &sam::Header) -> Result<Self> {
        let path = match path {
            Some(p) => Some(p.to_path_buf()),
            None => header_reference(header),
        };
        let Some(path) = path else {
            return Ok(Self::none());
        };
        let repository = if suffixed(&path, ".fai").exists() {
            let reader = fasta::io::indexed_reader::Builder::default()
                .build_from_path(&path)
                .map_err(|e| Error::io(&path, e))?;
            fasta::Repository::new(fasta::repository::adapters::IndexedReader::new(reader))
        } else {
            // No .fai: the FASTA is read whole (gzip or plain).
            let input = crate::input::Input::open(&path)?;
            let mut reader = fasta::io::Reader::new(std::io::BufReader::new(input));
            let records = reader
                .records()
                .collect::<std::io::Result<Vec<_>>>()
                .map_err(|e| Error::format(&path, 0, format!("invalid FASTA: {e}")))?;
            fasta::Repository::new(records)
        };
        Ok(Self {
            repository,
            path: Some(path),
            checked: Arc::default(),
        })
    }

    /// No FASTA: decoding uses the reference the CRAM embeds, if any.
    pub fn none() -> Self {
        Self {
            repository: fasta::Repository::default(),
            path: None,
            checked: Arc::default(),
        }
    }

    /// The repository noodles-cram decodes with.
    pub fn repository(&self) -> &fasta::Repository {
        &self.repository
    }

    /// The FASTA's path, if there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The sequence `name`, if the FASTA has it.
    pub fn sequence(&self, name: &[u8]) -> Option<Arc<fasta::record::Sequence>> {
        self.path.as_ref()?;
        self.repository.get(name)?.ok()
    }

    /// [`ReferenceSource::check`] of reference `name`, once however many containers use
    /// it: a sequence is read and digested only when a container that needs it is
    /// decoded, not every one the CRAM names.
    pub fn check_once(&self, cram: &Path, header: &sam::Header, name: &[u8]) -> Result<()> {
        let mut checked = self.checked.lock().unwrap_or_else(|e| e.into_inner());
        if !checked.contains(name) {
            self.check(cram, header, name)?;
            checked.insert(name.to_vec());
        }
        Ok(())
    }

    /// Checks reference `name` against its `@SQ` length and `M5` digest (when the header
    /// gives one): `cram` names the CRAM in errors. Succeeds when the FASTA lacks it
    /// (decoding fails later, naming it, only if a container needs it).
    pub fn check(&self, cram: &Path, header: &sam::Header, name: &[u8]) -> Result<()> {
        let Some(sequence) = self.sequence(name) else {
            return Ok(());
        };
        let Some(fasta) = &self.path else {
            return Ok(());
        };
        let Some(map) = header.reference_sequences().get(name) else {
            return Ok(());
        };
        let shown = String::from_utf8_lossy(name);
        let length = usize::from(map.length());
        if sequence.len() != length {
            return Err(Error::format(
                cram,
                0,
                format!(
                    "reference {shown} is {} bp in {} but {length} bp in the CRAM header: pass the FASTA the CRAM was made with (--reference)",
                    sequence.len(),
                    fasta.display()
                ),
            ));
        }
        let m5 = map
            .other_fields()
            .get(&sam::header::record::value::map::reference_sequence::tag::MD5_CHECKSUM);
        if let Some(m5) = m5 {
            let digest = normalized_md5(AsRef::<[u8]>::as_ref(&*sequence));
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            if !hex.eq_ignore_ascii_case(&m5.to_string()) {
                return Err(Error::format(
                    cram,
                    0,
                    format!(
                        "reference {shown} in {} has MD5 {hex} but the CRAM header's M5 is {m5}: pass the FASTA the CRAM was made with (--reference)",
                        fasta.display()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The reference as a FASTA htslib can read: the caller's file when it has its `.fai`
/// (and `.gzi` when BGZF-compressed) beside it, else a copy in a temporary directory
/// where htslib builds its index (a link to the file, or the file decompressed when it
/// is gzip but not BGZF), so that nothing is written next to the caller's FASTA.
#[cfg(feature = "htslib")]
#[derive(Debug)]
pub struct HtsReference {
    path: Option<PathBuf>,
    _copy: Option<tempfile::TempDir>,
}

#[cfg(feature = "htslib")]
impl HtsReference {
    /// Prepares `source`'s FASTA (none when it has none).
    pub fn prepare(source: &ReferenceSource) -> Result<Self> {
        let Some(fasta) = source.path() else {
            return Ok(Self {
                path: None,
                _copy: None,
            });
        };
        let beside = |ext: &str| suffixed(fasta, ext).is_file();
        let mut head = [0u8; 16];
        let n = std::fs::File::open(fasta)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
            .map_err(|e| Error::io(fasta, e))?;
        let gzip = n >= 2 && head[..2] == [0x1f, 0x8b];
        let bgzf = gzip && n >= 14 && head[3] & 4 != 0 && head[12..14] == *b"BC";
        if beside(".fai") && (!gzip || bgzf && beside(".gzi")) {
            return Ok(Self {
                path: Some(fasta.to_path_buf()),
                _copy: None,
            });
        }
        let dir = tempfile::Builder::new()
            .prefix("seqfarm-reference-")
            .tempdir()
            .map_err(|e| Error::io(std::env::temp_dir(), e))?;
        let copy = dir.path().join("reference.fa");
        let made = if gzip && !bgzf {
            let mut input = crate::input::Input::open(fasta)?;
            std::fs::File::create(&copy).and_then(|mut out| std::io::copy(&mut input, &mut out))
        } else {
            let absolute = std::fs::canonicalize(fasta).map_err(|e| Error::io(fasta, e))?;
            std::os::unix::fs::symlink(absolute, &copy).map(|()| 0)
        };
        made.map_err(|e| Error::io(&copy, e))?;
        Ok(Self {
            path: Some(copy),
            _copy: Some(dir),
        })
    }

    /// The FASTA to give htslib, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

/// The MD5 of a sequence as `@SQ M5` defines it: upper case, printable bases only.
pub fn normalized_md5(sequence: &[u8]) -> [u8; 16] {
    let mut md5 = Md5::new();
    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in sequence.chunks(1 << 16) {
        buf.clear();
        buf.extend(
            chunk
                .iter()
                .filter(|b| (b'!'..=b'~').contains(*b))
                .map(u8::to_ascii_uppercase),
        );
        md5.update(&buf);
    }
    md5.finalize().into()
}

/// The first `@SQ UR:` that names an existing local file (`file://` or a plain path).
fn header_reference(header: &sam::Header) -> Option<PathBuf> {
    let tag = sam::header::record::value::map::reference_sequence::tag::URI;
    header.reference_sequences().values().find_map(|map| {
        let uri = map.other_fields().get(&tag)?.to_string();
        let path = PathBuf::from(uri.strip_prefix("file://").unwrap_or(&uri));
        path.is_file().then_some(path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_that_cannot_be_opened_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.fa");
        let e = check_reference(Some(&missing)).unwrap_err().to_string();
        assert!(
            e.contains("missing.fa: cannot open the reference FASTA"),
            "{e}"
        );
        let e = check_reference(Some(dir.path())).unwrap_err().to_string();
        assert!(e.contains("directory"), "{e}");
        let fasta = dir.path().join("r.fa");
        std::fs::write(&fasta, ">r\nACGT\n").unwrap();
        assert!(check_reference(Some(&fasta)).is_ok() && check_reference(None).is_ok());
    }

    #[test]
    fn md5_ignores_case_and_line_breaks() {
        let a = normalized_md5(b"ACGTN");
        assert_eq!(a, normalized_md5(b"acg\ntn"));
        // md5("ACGTN")
        let hex: String = a.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex.len(), 32);
        assert_ne!(a, normalized_md5(b"ACGTA"));
    }
}
