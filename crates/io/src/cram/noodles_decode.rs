//! CRAM containers decoded by noodles-cram: the reader of a build without the `htslib`
//! feature. It is pure Rust (its bzip2, lzma and rANS codecs included) and decodes every
//! field whatever the command needs.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use noodles_sam::alignment::io::Write as _;

use super::{ContainerSpan, CramFile, ReferenceSource};
use crate::Result;

impl CramFile {
    /// Decodes container `span` with noodles-cram (the reader of a build without the
    /// `htslib` feature) and appends its records to `out` as BAM records (each with its
    /// 4-byte length), in file order. The caller has checked that `reference` has the
    /// sequences the container needs ([`Self::check_reference_for`]).
    pub(super) fn decode_container(
        &self,
        span: &ContainerSpan,
        reference: &ReferenceSource,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let at = |m: String| self.container_error(span, m);
        let bytes = self.container_bytes(span);
        let before = out.len();
        quiet_decoder_panics();
        DECODING.with(|d| d.set(true));
        let decoded = catch_unwind(AssertUnwindSafe(|| {
            self.decode_bytes(bytes, span, reference, out)
        }));
        DECODING.with(|d| d.set(false));
        match decoded {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                out.truncate(before);
                Err(e)
            }
            Err(panic) => {
                out.truncate(before);
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(at(format!(
                    "cannot decode ({message}): the file is damaged"
                )))
            }
        }
    }

    fn decode_bytes(
        &self,
        bytes: &[u8],
        span: &ContainerSpan,
        reference: &ReferenceSource,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let at = |m: String| self.container_error(span, m);
        let mut reader = noodles_cram::io::Reader::new(bytes);
        let mut container = noodles_cram::io::reader::Container::default();
        reader
            .read_container(&mut container)
            .map_err(|e| at(e.to_string()))?;
        let compression_header = container
            .compression_header()
            .map_err(|e| at(format!("compression header: {e}")))?;
        let mut writer = noodles_bam::io::Writer::from(std::mem::take(out));
        let result = (|| -> std::io::Result<()> {
            for slice in container.slices() {
                let slice = slice?;
                let (core, external) = slice.decode_blocks()?;
                let records = slice.records(
                    reference.repository().clone(),
                    &self.header,
                    &compression_header,
                    &core,
                    &external,
                )?;
                for record in &records {
                    let start = writer.get_ref().len();
                    writer.write_alignment_record(&self.header, record)?;
                    as_htslib_decodes(&mut writer.get_mut()[start..]);
                }
            }
            Ok(())
        })();
        *out = writer.into_inner();
        result.map_err(|e| at(e.to_string()))
    }
}

/// Makes a BAM record (with its 4-byte length) encoded from a CRAM record read as
/// htslib reads it: CRAM stores no mapping quality for an unmapped read, which htslib
/// decodes as 0 (noodles as missing, 255).
fn as_htslib_decodes(record: &mut [u8]) {
    const MAPQ: usize = 4 + 9;
    const FLAG: usize = 4 + 14;
    if record.len() >= FLAG + 2 {
        let flag = u16::from_le_bytes([record[FLAG], record[FLAG + 1]]);
        if flag & 0x4 != 0 {
            record[MAPQ] = 0;
        }
    }
}

thread_local! {
    /// Whether this thread is decoding a container (its panics become errors).
    static DECODING: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that stays silent for panics inside container decoding:
/// noodles-cram panics on some damaged data, which [`CramFile::decode_container`] turns
/// into an error naming the file and container; every other panic is reported as before.
fn quiet_decoder_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !DECODING.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmapped_records_get_mapping_quality_zero() {
        let mut record = vec![0u8; 40];
        record[4 + 9] = 255;
        record[4 + 14] = 0x4;
        as_htslib_decodes(&mut record);
        assert_eq!(record[4 + 9], 0);
        record[4 + 9] = 255;
        record[4 + 14] = 0x1;
        as_htslib_decodes(&mut record);
        assert_eq!(record[4 + 9], 255);
    }
}
