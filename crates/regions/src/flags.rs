//! SAM FLAG bits the kernels look at.

/// Paired in sequencing.
pub const PAIRED: u16 = 0x1;
/// Properly paired.
pub const PROPER_PAIR: u16 = 0x2;
/// Unmapped.
pub const UNMAPPED: u16 = 0x4;
/// Mate unmapped.
pub const MATE_UNMAPPED: u16 = 0x8;
/// First segment of the template.
pub const READ1: u16 = 0x40;
/// Last segment of the template.
pub const READ2: u16 = 0x80;
/// Secondary alignment.
pub const SECONDARY: u16 = 0x100;
/// Failed quality checks.
pub const QC_FAIL: u16 = 0x200;
/// PCR or optical duplicate.
pub const DUPLICATE: u16 = 0x400;
/// Supplementary alignment.
pub const SUPPLEMENTARY: u16 = 0x800;
