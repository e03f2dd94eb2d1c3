//! The reference as the index keeps it: contigs, packed bases, ambiguity mask, and the
//! fragments (maximal A/C/G/T runs) that make up the indexed text.
//!
//! Global coordinates number every base of every contig, in FASTA order, from 0 (contig
//! `i` occupies `offset..offset + len`). The indexed text is
//! `X · revcomp(X)` where `X = F1 $ F2 $ … Fm $` lists the fragments, so every match of
//! the FM-index lies inside one fragment: it never spans two contigs and never covers an
//! N or another ambiguous letter.

use std::collections::HashSet;

use seqfarm_core::nucleotide::{encode, AMBIGUOUS};
use seqfarm_core::{AmbiguityMask, PackedSeq, Strand};

use crate::error::BuildError;

/// A reference sequence (FASTA record) of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contig {
    /// The name (first word of the FASTA header).
    pub name: String,
    /// Length in bases, ambiguous letters included.
    pub len: u64,
    /// Global coordinate of its first base.
    pub offset: u64,
}

/// A maximal run of A/C/G/T inside one contig, as placed in the forward half of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fragment {
    /// Position of its first base in the text.
    pub text_start: u64,
    /// Global coordinate of its first base.
    pub global_start: u64,
    /// Number of bases.
    pub len: u64,
}

/// Contigs, fragments, and the text geometry: maps text positions to global ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    pub contigs: Vec<Contig>,
    pub fragments: Vec<Fragment>,
    /// Length of the forward half `X` (fragments plus one separator each).
    pub half_len: u64,
}

impl Layout {
    /// Total bases of all contigs.
    pub fn genome_len(&self) -> u64 {
        self.contigs.last().map_or(0, |c| c.offset + c.len)
    }

    /// Length of the indexed text `X · revcomp(X)`.
    pub fn text_len(&self) -> u64 {
        2 * self.half_len
    }

    /// The global start and strand of a match of length `len` at text position `pos`;
    /// `None` if it does not lie inside one fragment (only in a damaged index).
    pub fn text_to_global(&self, pos: u64, len: u64) -> Option<(u64, Strand)> {
        let (forward_start, strand) = if pos < self.half_len {
            (pos, Strand::Forward)
        } else {
            let mirrored_end = self.text_len().checked_sub(pos)?;
            (mirrored_end.checked_sub(len)?, Strand::Reverse)
        };
        let i = self
            .fragments
            .partition_point(|f| f.text_start <= forward_start)
            .checked_sub(1)?;
        let fragment = &self.fragments[i];
        let within = forward_start - fragment.text_start;
        (within + len <= fragment.len).then_some((fragment.global_start + within, strand))
    }

    /// The contig holding global coordinate `pos`: its index and the 0-based offset in it.
    pub fn contig_of(&self, pos: u64) -> Option<(usize, u64)> {
        let i = self
            .contigs
            .partition_point(|c| c.offset <= pos)
            .checked_sub(1)?;
        let contig = &self.contigs[i];
        (pos - contig.offset < contig.len).then_some((i, pos - contig.offset))
    }
}

/// Collects contigs from FASTA records into the packed reference and the layout.
#[derive(Debug, Default)]
pub struct ReferenceBuilder {
    pub(crate) layout: Layout,
    pub(crate) bases: PackedSeq,
    pub(crate) mask: AmbiguityMask,
    names: HashSet<String>,
}

impl ReferenceBuilder {
    /// An empty reference.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a contig. Letters may be upper or lower case (soft-masking is ignored);
    /// A/C/G/T (U as T) are indexed, IUPAC ambiguity letters (N, R, Y, …) are kept in
    /// the ambiguity mask and break the indexed text; blanks are skipped; anything else
    /// is an error naming the contig and 1-based position.
    pub fn add_contig(&mut self, name: &str, letters: &[u8]) -> Result<(), BuildError> {
        let record = self.layout.contigs.len() as u64 + 1;
        if !self.names.insert(name.to_string()) {
            return Err(BuildError::DuplicateContig {
                name: name.to_string(),
                record,
            });
        }
        let offset = self.bases.len();
        let mut fragment: Option<Fragment> = None;
        let mut len = 0u64;
        for (i, &letter) in letters.iter().enumerate() {
            if letter == b' ' || letter == b'\t' {
                continue;
            }
            let global = offset + len;
            match encode(letter) {
                Some(code) if code < AMBIGUOUS => {
                    self.bases.push(code);
                    match fragment.as_mut() {
                        Some(f) => f.len += 1,
                        None => {
                            fragment = Some(Fragment {
                                text_start: self.layout.half_len,
                                global_start: global,
                                len: 1,
                            })
                        }
                    }
                }
                Some(_) => {
                    self.bases.push(0);
                    self.mask.push(global, letter);
                    self.close(fragment.take());
                }
                None => {
                    return Err(BuildError::BadLetter {
                        name: name.to_string(),
                        record,
                        position: i as u64 + 1,
                        byte: char::from(letter),
                    })
                }
            }
            len += 1;
        }
        self.close(fragment.take());
        if len == 0 {
            return Err(BuildError::EmptyContig {
                name: name.to_string(),
                record,
            });
        }
        self.layout.contigs.push(Contig {
            name: name.to_string(),
            len,
            offset,
        });
        Ok(())
    }

    fn close(&mut self, fragment: Option<Fragment>) {
        if let Some(f) = fragment {
            self.layout.half_len += f.len + 1;
            self.layout.fragments.push(f);
        }
    }

    /// Contigs added so far.
    pub fn contigs(&self) -> &[Contig] {
        &self.layout.contigs
    }

    /// Total bases added so far.
    pub fn genome_len(&self) -> u64 {
        self.bases.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_split_at_ambiguity_and_contigs() {
        let mut b = ReferenceBuilder::new();
        b.add_contig("a", b"ACNNgt").unwrap();
        b.add_contig("b", b"NAC GTRT").unwrap();
        let l = &b.layout;
        assert_eq!(l.genome_len(), 13);
        assert_eq!(l.contigs[1].offset, 6);
        assert_eq!(l.contigs[1].len, 7);
        let starts: Vec<(u64, u64, u64)> = l
            .fragments
            .iter()
            .map(|f| (f.text_start, f.global_start, f.len))
            .collect();
        assert_eq!(starts, vec![(0, 0, 2), (3, 4, 2), (6, 7, 4), (11, 12, 1)]);
        assert_eq!(l.half_len, 13);
        assert_eq!(b.mask.masked_len(), 4);
        assert_eq!(l.text_to_global(6, 4), Some((7, Strand::Forward)));
        assert_eq!(l.text_to_global(6, 5), None);
        // The mirror of forward text 6..10 is 26-10 = 16..20.
        assert_eq!(l.text_to_global(16, 4), Some((7, Strand::Reverse)));
        assert_eq!(l.contig_of(6), Some((1, 0)));
        assert_eq!(l.contig_of(13), None);
    }

    #[test]
    fn bad_input_is_named() {
        let mut b = ReferenceBuilder::new();
        b.add_contig("a", b"ACGT").unwrap();
        let e = b.add_contig("a", b"AC").unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
        let e = b.add_contig("c", b"AC-GT").unwrap_err().to_string();
        assert!(e.contains("position 3") && e.contains("'-'"), "{e}");
        let e = b.add_contig("d", b"").unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
    }
}
