//! The layout of BAI and CSI files, walked before the index reader sees them: every count
//! (references, bins, chunks, intervals, auxiliary bytes) is checked against the bytes
//! that follow it, so a damaged count cannot make the reader reserve room for billions
//! of entries, and the error can say where the file is damaged.

/// Where an index's layout breaks, and how.
#[derive(Debug)]
pub struct LayoutError {
    /// Byte offset (in the decompressed stream for CSI) of the bad field.
    pub offset: u64,
    /// What is wrong there.
    pub message: String,
}

/// Little-endian fields read in order, each checked to be there.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Fields<'_> {
    fn fail(&self, message: String) -> LayoutError {
        LayoutError {
            offset: self.at as u64,
            message,
        }
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn skip(&mut self, n: usize, what: &str) -> Result<(), LayoutError> {
        if n > self.remaining() {
            return Err(self.fail(format!("the index ends inside {what}")));
        }
        self.at += n;
        Ok(())
    }

    fn i32(&mut self, what: &str) -> Result<i32, LayoutError> {
        let start = self.at;
        self.skip(4, what)?;
        let field: [u8; 4] = self.bytes[start..start + 4].try_into().expect("4 bytes");
        Ok(i32::from_le_bytes(field))
    }

    /// A count of entries of at least `each` bytes: not negative, and no more than the
    /// rest of the file can hold.
    fn count(&mut self, what: &str, each: usize) -> Result<usize, LayoutError> {
        let offset = self.at;
        let n = self.i32(what)?;
        let fits = usize::try_from(n)
            .ok()
            .filter(|&n| n.saturating_mul(each) <= self.remaining());
        fits.ok_or_else(|| LayoutError {
            offset: offset as u64,
            message: format!(
                "{what} {n} does not fit: {} bytes of the index follow",
                self.remaining()
            ),
        })
    }

    fn chunks(&mut self, reference: usize) -> Result<(), LayoutError> {
        let what = format!("the chunk count of a bin of reference {reference}");
        let chunks = self.count(&what, 16)?;
        self.skip(16 * chunks, "a chunk list")
    }
}

/// Checks the layout of a BAI file (`bytes` from its magic number on).
pub fn check_bai(bytes: &[u8]) -> Result<(), LayoutError> {
    let mut f = Fields { bytes, at: 0 };
    f.skip(4, "the magic number")?;
    let references = f.count("the reference count", 8)?;
    for r in 0..references {
        let bins = f.count(&format!("the bin count of reference {r}"), 8)?;
        for _ in 0..bins {
            f.skip(4, "a bin number")?;
            f.chunks(r)?;
        }
        let intervals = f.count(&format!("the linear index size of reference {r}"), 8)?;
        f.skip(8 * intervals, "a linear index")?;
    }
    check_tail(&f)
}

/// Checks the layout of a CSI file (`bytes` decompressed, from its magic number on).
pub fn check_csi(bytes: &[u8]) -> Result<(), LayoutError> {
    let mut f = Fields { bytes, at: 0 };
    f.skip(4, "the magic number")?;
    f.skip(8, "the binning scheme (min_shift, depth)")?;
    let aux = f.count("the auxiliary data length", 1)?;
    f.skip(aux, "the auxiliary data")?;
    let references = f.count("the reference count", 4)?;
    for r in 0..references {
        let bins = f.count(&format!("the bin count of reference {r}"), 16)?;
        for _ in 0..bins {
            f.skip(12, "a bin number and its offset")?;
            f.chunks(r)?;
        }
    }
    check_tail(&f)
}

/// After the references: nothing, or the 8-byte count of unplaced unmapped reads.
fn check_tail(f: &Fields<'_>) -> Result<(), LayoutError> {
    match f.remaining() {
        0 | 8 => Ok(()),
        n => Err(f.fail(format!(
            "{n} bytes after the last reference (expected none, or the 8-byte count of \
             unplaced reads)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bin number and its chunks (start and end virtual offsets).
    type Bin<'a> = (u32, &'a [[u64; 2]]);

    /// A BAI of references given as their bins and linear index.
    fn bai(references: &[(&[Bin<'_>], &[u64])]) -> Vec<u8> {
        let mut out = b"BAI\x01".to_vec();
        out.extend((references.len() as i32).to_le_bytes());
        for (bins, linear) in references {
            out.extend((bins.len() as i32).to_le_bytes());
            for (bin, chunks) in *bins {
                out.extend(bin.to_le_bytes());
                out.extend((chunks.len() as i32).to_le_bytes());
                for chunk in *chunks {
                    out.extend(chunk[0].to_le_bytes());
                    out.extend(chunk[1].to_le_bytes());
                }
            }
            out.extend((linear.len() as i32).to_le_bytes());
            for v in *linear {
                out.extend(v.to_le_bytes());
            }
        }
        out
    }

    #[test]
    fn a_well_formed_bai_passes_with_or_without_its_tail() {
        let mut index = bai(&[(&[(4681, &[[1 << 16, 2 << 16]])], &[1 << 16]), (&[], &[])]);
        check_bai(&index).unwrap();
        index.extend(7u64.to_le_bytes());
        check_bai(&index).unwrap();
        index.push(0);
        assert!(check_bai(&index)
            .unwrap_err()
            .message
            .contains("after the last"));
    }

    #[test]
    fn counts_larger_than_the_file_are_refused_where_they_stand() {
        let mut index = bai(&[(&[(4681, &[[1, 2]])], &[1])]);
        // The bin count of reference 0 sits at byte 8: claim a billion bins.
        index[8..12].copy_from_slice(&1_000_000_000i32.to_le_bytes());
        let e = check_bai(&index).unwrap_err();
        assert_eq!(e.offset, 8);
        assert!(
            e.message.contains("bin count of reference 0 1000000000"),
            "{e:?}"
        );
        index[8..12].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(check_bai(&index).is_err());
        let cut = bai(&[(&[(4681, &[[1, 2]])], &[1])]);
        assert!(check_bai(&cut[..cut.len() - 3])
            .unwrap_err()
            .message
            .contains("does not fit"));
        assert!(check_bai(&cut[..6])
            .unwrap_err()
            .message
            .contains("ends inside"));
    }

    #[test]
    fn csi_auxiliary_data_and_bins_are_checked() {
        let mut index = b"CSI\x01".to_vec();
        index.extend(14i32.to_le_bytes());
        index.extend(5i32.to_le_bytes());
        index.extend(3i32.to_le_bytes());
        index.extend(b"aux");
        index.extend(1i32.to_le_bytes());
        index.extend(1i32.to_le_bytes());
        index.extend(4681u32.to_le_bytes());
        index.extend(5u64.to_le_bytes());
        index.extend(1i32.to_le_bytes());
        index.extend([0u8; 16]);
        check_csi(&index).unwrap();
        index[12..16].copy_from_slice(&i32::MAX.to_le_bytes());
        let e = check_csi(&index).unwrap_err();
        assert!(e.offset == 12 && e.message.contains("auxiliary"), "{e:?}");
    }
}
