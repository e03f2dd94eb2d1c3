//! Reading an index file's bytes: the header, the section table and every section's
//! size checked (and, when asked, their checksums), then views of the BWT blocks, the
//! suffix-array samples, the k-mer table and the packed reference taken in place.

use std::path::Path;

use seqfarm_core::AmbiguityMask;
use xxhash_rust::xxh3::xxh3_64;

use crate::error::LoadError;
use crate::format::{self, Params, SectionId, BYTE_ORDER_MARK, FORMAT_VERSION, MAGIC, PAGE};
use crate::kmer::{self, MAX_KMER_LEN};
use crate::occ::{
    hardware_popcount, Bwt, DollarLookup, DollarRow, OccBlock, BLOCKS_PER_SUPER_SHIFT,
    ROWS_PER_BLOCK,
};
use crate::reference::Layout;
use crate::sa::{SampledSa, Samples};

pub(crate) struct Parsed<'a> {
    pub params: Params,
    pub bwt: Bwt<'a>,
    pub sa: SampledSa<'a>,
    pub kmers: &'a [u64],
    pub reference_words: &'a [u64],
    pub layout: Layout,
    pub mask: AmbiguityMask,
}

pub(crate) fn parse<'a>(
    bytes: &'a [u8],
    path: &Path,
    verify: bool,
) -> Result<Parsed<'a>, LoadError> {
    let corrupt = |m: String| LoadError::corrupt(path, m);
    if !bytes.starts_with(MAGIC) {
        return Err(LoadError::Foreign {
            path: path.to_path_buf(),
        });
    }
    let version = format::read_u32(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(LoadError::Version {
            path: path.to_path_buf(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    if format::read_u32(bytes, 12) != BYTE_ORDER_MARK {
        return Err(corrupt(
            "byte-order mark does not match this machine".into(),
        ));
    }
    let sections = format::read_u32(bytes, 60) as usize;
    if sections != SectionId::ALL.len() {
        return Err(corrupt(format!(
            "{sections} sections, expected {}",
            SectionId::ALL.len()
        )));
    }
    let header_len = format::FIXED_HEADER + format::SECTION_ENTRY * sections;
    if xxh3_64(&bytes[..header_len]) != format::read_u64(bytes, header_len) {
        return Err(LoadError::Checksum {
            path: path.to_path_buf(),
            section: "header",
        });
    }
    let (params, table) = format::decode_header(&bytes[..PAGE as usize]);
    let actual = bytes.len() as u64;
    if actual < params.file_len {
        return Err(LoadError::Truncated {
            path: path.to_path_buf(),
            expected: params.file_len,
            actual,
        });
    }
    if actual > params.file_len {
        return Err(corrupt(format!(
            "{actual} bytes, the header says {}",
            params.file_len
        )));
    }
    let mut slices: Vec<&'a [u8]> = Vec::with_capacity(sections);
    let mut end = PAGE;
    for (section, id) in table.iter().zip(SectionId::ALL) {
        let bad = section.id != id as u32
            || section.offset % PAGE != 0
            || section.offset < end
            || section
                .offset
                .checked_add(section.len)
                .is_none_or(|e| e > actual);
        if bad {
            return Err(corrupt(format!(
                "section table entry for the {} is invalid",
                id.name()
            )));
        }
        let slice = &bytes[section.offset as usize..(section.offset + section.len) as usize];
        if verify && xxh3_64(slice) != section.checksum {
            return Err(LoadError::Checksum {
                path: path.to_path_buf(),
                section: id.name(),
            });
        }
        end = section.offset + section.len;
        slices.push(slice);
    }
    check_params(&params).map_err(corrupt)?;
    let (layout, mask) = format::decode_meta(slices[0], params.half_len).map_err(corrupt)?;
    if layout.text_len() != params.text_len || layout.genome_len() != params.genome_len {
        return Err(corrupt("contig table does not match the header".into()));
    }
    let n = params.text_len;
    let rows = n + 1;
    let n_blocks = rows / ROWS_PER_BLOCK + 1;
    let n_supers = n_blocks.div_ceil(1 << params.super_shift);
    let n_samples = rows.div_ceil(u64::from(params.sa_rate));
    let expect = |k: usize, want: u64| -> Result<(), LoadError> {
        let got = table[k].len;
        if got != want {
            return Err(corrupt(format!(
                "{} has {got} bytes, expected {want}",
                SectionId::ALL[k].name()
            )));
        }
        Ok(())
    };
    expect(1, n_blocks * 64)?;
    expect(2, n_supers * 32)?;
    expect(3, (2 * layout.fragments.len() as u64 + 1) * 16)?;
    expect(4, n_samples * u64::from(params.sample_width))?;
    expect(5, kmer::table_len(params.kmer_len) as u64 * 8)?;
    expect(6, params.genome_len.div_ceil(32) * 8)?;
    let cast = |k: usize| -> Result<&'a [u64], LoadError> {
        bytemuck::try_cast_slice(slices[k])
            .map_err(|e| corrupt(format!("{}: {e}", SectionId::ALL[k].name())))
    };
    let blocks: &'a [OccBlock] =
        bytemuck::try_cast_slice(slices[1]).map_err(|e| corrupt(format!("BWT blocks: {e}")))?;
    let dollars: &'a [DollarRow] =
        bytemuck::try_cast_slice(slices[3]).map_err(|e| corrupt(format!("separator rows: {e}")))?;
    let samples = if params.sample_width == 4 {
        Samples::Narrow(
            bytemuck::try_cast_slice(slices[4]).map_err(|e| corrupt(format!("samples: {e}")))?,
        )
    } else {
        Samples::Wide(cast(4)?)
    };
    Ok(Parsed {
        bwt: Bwt {
            blocks,
            supers: cast(2)?,
            dollars,
            directory: DollarLookup::default(),
            super_shift: params.super_shift,
            c: params.c,
            popcnt: hardware_popcount(),
        },
        sa: SampledSa {
            samples,
            rate: u64::from(params.sa_rate),
        },
        kmers: cast(5)?,
        reference_words: cast(6)?,
        layout,
        mask,
        params,
    })
}

fn check_params(p: &Params) -> Result<(), String> {
    if !p.sa_rate.is_power_of_two() || p.sa_rate > 256 {
        return Err(format!("sampling rate {} is invalid", p.sa_rate));
    }
    if !(1..=MAX_KMER_LEN).contains(&p.kmer_len) {
        return Err(format!("k-mer length {} is invalid", p.kmer_len));
    }
    if p.sample_width != 4 && p.sample_width != 8
        || (p.sample_width == 4 && p.text_len >= u64::from(u32::MAX))
    {
        return Err(format!("sample width {} is invalid", p.sample_width));
    }
    if p.super_shift > BLOCKS_PER_SUPER_SHIFT {
        return Err(format!("superblock shift {} is invalid", p.super_shift));
    }
    if p.text_len != 2 * p.half_len || p.text_len == 0 || p.text_len >= 1 << 40 {
        return Err("text length is invalid".into());
    }
    if p.c.windows(2).any(|w| w[0] > w[1]) || p.c[4] != p.text_len + 1 {
        return Err("symbol counts are invalid".into());
    }
    Ok(())
}
