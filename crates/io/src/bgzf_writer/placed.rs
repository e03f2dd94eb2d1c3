//! A BGZF stream written in parts, byte for byte the file [`BgzfWriter`](super::BgzfWriter)
//! writes from the whole stream: blocks are cut every [`BLOCK_INPUT`] bytes of the
//! stream, wherever the parts end. A part knows where its bytes lie in the stream
//! ([`PartSpan`]); it compresses the blocks lying wholly inside it, and the blocks it
//! shares with its neighbours (a stream's seams) are compressed from the pieces of every
//! part that shares them ([`StreamLayout::seams`]). Once every compressed size is known,
//! [`StreamLayout::place`] gives each part's and each seam's offset in the file, and each
//! part the offsets that resolve the virtual offset of any of its bytes
//! ([`SpanOffsets`]), so that it indexes its own lines.

use std::borrow::Cow;
use std::ops::Range;

use super::BLOCK_INPUT;

const BLOCK: u64 = BLOCK_INPUT as u64;

/// Where a part's bytes `[start, end)` lie in a stream of `total` bytes, and which of its
/// blocks the part compresses alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartSpan {
    pub start: u64,
    pub end: u64,
    pub total: u64,
}

impl PartSpan {
    /// The blocks wholly inside the part (the stream's last block, shorter, included when
    /// the part ends the stream), as stream positions.
    pub fn inner(&self) -> Range<u64> {
        let from = self.start.div_ceil(BLOCK) * BLOCK;
        let to = match self.end == self.total {
            true => self.end,
            false => self.end / BLOCK * BLOCK,
        };
        let from = from.min(self.end);
        from..to.max(from)
    }

    /// The part's bytes before its inner blocks: its piece of a seam.
    pub fn head(&self) -> Range<u64> {
        self.start..self.inner().start
    }

    /// The part's bytes after its inner blocks: its piece of another seam.
    pub fn tail(&self) -> Range<u64> {
        self.inner().end..self.end
    }

    /// The part's pieces of seams: `(block, stream positions)`, none empty.
    pub fn pieces(&self) -> impl Iterator<Item = (u64, Range<u64>)> {
        [self.head(), self.tail()]
            .into_iter()
            .filter(|r| !r.is_empty())
            .map(|r| (r.start / BLOCK, r))
    }
}

/// Compressed offsets resolving the virtual offset of every byte of a part (its end
/// included): the offset of the block holding its head, of its first inner block, and of
/// the block starting where its inner blocks end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanOffsets {
    pub head: u64,
    pub inner: u64,
    pub after: u64,
}

impl SpanOffsets {
    /// The virtual offset of stream position `at` of part `span` (from its start to its
    /// end), whose inner blocks start `inner_starts` bytes after the first (see
    /// [`inner_starts`]).
    pub fn virtual_offset(&self, span: &PartSpan, inner_starts: &[u64], at: u64) -> u64 {
        let inner = span.inner();
        let start = if at < inner.start {
            self.head
        } else if at < inner.end || (at == inner.end && !inner.end.is_multiple_of(BLOCK)) {
            self.inner + inner_starts[(at / BLOCK - inner.start / BLOCK) as usize]
        } else {
            self.after
        };
        (start << 16) | (at % BLOCK)
    }
}

/// Where each of a part's inner blocks starts, counted from the first, and where the
/// last ends, given their compressed sizes (for [`SpanOffsets::virtual_offset`]).
pub fn inner_starts(inner_sizes: &[u64]) -> Vec<u64> {
    let mut starts = Vec::with_capacity(inner_sizes.len() + 1);
    let mut at = 0;
    starts.push(at);
    for size in inner_sizes {
        at += size;
        starts.push(at);
    }
    starts
}

/// Bytes given as consecutive pieces (the bytes are the pieces joined): a part's few
/// lines joined to its large body, compressed without copying the body.
#[derive(Debug, Clone, Copy)]
pub struct Pieces<'a>(pub &'a [&'a [u8]]);

impl<'a> Pieces<'a> {
    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.0.iter().map(|p| p.len()).sum()
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes `range`: borrowed where one piece holds them, copied where they span pieces.
    pub fn range(&self, range: Range<usize>) -> Cow<'a, [u8]> {
        let mut joined = Vec::new();
        let mut at = 0;
        for piece in self.0 {
            let (start, end) = (at, at + piece.len());
            at = end;
            if end <= range.start || piece.is_empty() {
                continue;
            }
            if start >= range.end {
                break;
            }
            let taken = &piece[range.start.max(start) - start..range.end.min(end) - start];
            if joined.is_empty() && range.start >= start && range.end <= end {
                return Cow::Borrowed(taken);
            }
            joined.extend_from_slice(taken);
        }
        assert_eq!(joined.len(), range.len(), "bytes {range:?} of {at}");
        Cow::Owned(joined)
    }
}

/// Appends the blocks of stream positions `range` of `span`, whose bytes are `bytes`, to
/// `out` with `compressor`; returns their compressed sizes, block by block.
pub fn compress_range(
    compressor: &mut super::BgzfCompressor,
    span: &PartSpan,
    bytes: Pieces<'_>,
    range: Range<u64>,
    out: &mut Vec<u8>,
) -> Vec<u64> {
    let mut at = (range.start - span.start) as usize;
    let to = (range.end - span.start) as usize;
    let mut sizes = Vec::new();
    while at < to {
        let end = (at + BLOCK_INPUT).min(to);
        let before = out.len();
        compressor.compress(&bytes.range(at..end), out);
        sizes.push((out.len() - before) as u64);
        at = end;
    }
    sizes
}

/// The parts of one stream, in stream order, after a header the client writes itself.
#[derive(Debug, Clone)]
pub struct StreamLayout {
    header: u64,
    spans: Vec<PartSpan>,
}

/// What is written where in a stream's file, once every size is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// Each part's inner blocks' offset, and the offsets resolving its bytes.
    pub parts: Vec<SpanOffsets>,
    /// Each seam's offset, in [`StreamLayout::seams`]' order.
    pub seams: Vec<u64>,
    /// Where the end-of-file marker goes.
    pub eof: u64,
}

impl StreamLayout {
    /// The layout of a stream of a `header` of `header` bytes (shorter than a block), then
    /// parts of `lengths` bytes.
    pub fn new(header: u64, lengths: &[u64]) -> Result<Self, String> {
        if header >= BLOCK {
            return Err(format!(
                "a header of {header} bytes is longer than a BGZF block"
            ));
        }
        let total = header + lengths.iter().sum::<u64>();
        let mut start = header;
        let spans = lengths
            .iter()
            .map(|&length| {
                start += length;
                PartSpan {
                    start: start - length,
                    end: start,
                    total,
                }
            })
            .collect();
        Ok(Self { header, spans })
    }

    /// Each part's span.
    pub fn spans(&self) -> &[PartSpan] {
        &self.spans
    }

    /// The seams, in stream order: each block no part has wholly inside it, and the parts
    /// with a piece of it, in order (block 0 also holds the header).
    pub fn seams(&self) -> Vec<(u64, Vec<usize>)> {
        let mut seams: Vec<(u64, Vec<usize>)> = Vec::new();
        if self.header > 0 {
            seams.push((0, Vec::new()));
        }
        for (part, span) in self.spans.iter().enumerate() {
            for (block, _) in span.pieces() {
                match seams.last_mut() {
                    Some((b, parts)) if *b == block => parts.push(part),
                    _ => seams.push((block, vec![part])),
                }
            }
        }
        seams
    }

    /// The offsets of the parts' inner blocks and of the seams, from the compressed sizes
    /// of each part's inner blocks (`inner`) and of each seam (`seams`, in
    /// [`StreamLayout::seams`]' order).
    pub fn place(&self, inner: &[u64], seams: &[u64]) -> Result<Placement, String> {
        let seam_blocks = self.seams();
        if inner.len() != self.spans.len() || seams.len() != seam_blocks.len() {
            return Err(format!(
                "{} parts and {} seams placed with {} and {} sizes",
                self.spans.len(),
                seam_blocks.len(),
                inner.len(),
                seams.len()
            ));
        }
        // Every unit (a seam, a part's inner blocks) by its first block, in stream order.
        let mut units: Vec<(u64, u64)> = seam_blocks
            .iter()
            .zip(seams)
            .map(|(&(block, _), &size)| (block, size))
            .collect();
        for (span, &size) in self.spans.iter().zip(inner) {
            let r = span.inner();
            if !r.is_empty() {
                units.push((r.start / BLOCK, size));
            }
        }
        units.sort_unstable_by_key(|&(block, _)| block);
        let mut starts = Vec::with_capacity(units.len());
        let mut offset = 0;
        for &(block, size) in &units {
            starts.push((block, offset));
            offset += size;
        }
        let eof = offset;
        let at = |block: u64| match starts.binary_search_by_key(&block, |&(b, _)| b) {
            Ok(i) => starts[i].1,
            Err(_) => eof,
        };
        let parts = self
            .spans
            .iter()
            .map(|span| SpanOffsets {
                head: at(span.start / BLOCK),
                inner: at(span.inner().start / BLOCK),
                after: at(span.inner().end / BLOCK),
            })
            .collect();
        let seams = seam_blocks.iter().map(|&(block, _)| at(block)).collect();
        Ok(Placement { parts, seams, eof })
    }
}

#[cfg(test)]
mod tests;
