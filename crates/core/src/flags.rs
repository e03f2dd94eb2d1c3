//! SAM FLAG bits (SAM specification, section 1.4), shared by the BAM reader and the
//! region kernels.

/// The template has several segments (paired in sequencing).
pub const PAIRED: u16 = 0x1;
/// Each segment is properly aligned.
pub const PROPER_PAIR: u16 = 0x2;
/// The segment is unmapped.
pub const UNMAPPED: u16 = 0x4;
/// The next segment (mate) is unmapped.
pub const MATE_UNMAPPED: u16 = 0x8;
/// The sequence is reverse complemented.
pub const REVERSE: u16 = 0x10;
/// The mate's sequence is reverse complemented.
pub const MATE_REVERSE: u16 = 0x20;
/// First segment of the template (read 1).
pub const READ1: u16 = 0x40;
/// Last segment of the template (read 2).
pub const READ2: u16 = 0x80;
/// Secondary alignment.
pub const SECONDARY: u16 = 0x100;
/// Did not pass quality controls.
pub const QC_FAIL: u16 = 0x200;
/// PCR or optical duplicate.
pub const DUPLICATE: u16 = 0x400;
/// Supplementary alignment.
pub const SUPPLEMENTARY: u16 = 0x800;
