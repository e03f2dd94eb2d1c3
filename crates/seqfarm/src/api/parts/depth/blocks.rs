//! The BGZF side of a depth run in parts: a part's rows compressed where its plan places
//! them, the seams compressed from the parts' pieces, the blocks written and the lines
//! indexed. A part's lines are grouped for the index as they are compressed: lines that
//! follow each other in the stream always join, so the groups depend only on the lines'
//! contigs and bins, and their stream offsets become virtual offsets once the part's
//! blocks are placed.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use seqfarm_io::bed_index::{BedIndexer, PartLineGroups};
use seqfarm_io::bgzf_writer::placed::{
    compress_range, inner_starts, PartSpan, Pieces, SpanOffsets,
};
use seqfarm_io::bgzf_writer::BgzfCompressor;
use seqfarm_io::output::write_at;

use super::{level, planned_job, Rows, PER_BASE, STREAMS};
use crate::api::parts::wire::{PartBytes, ToWire, WireOut, WireReader, WireWriter};
use crate::cmd::depth::DepthOptions;

/// Where a part's bytes go: the per-base lines at its edges, as the client joined them,
/// and its span of each output's stream (`None` for an output not written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartPlan {
    pub(super) head_line: Option<(usize, Vec<u8>)>,
    pub(super) tail_line: Option<(usize, Vec<u8>)>,
    pub(super) spans: [Option<PartSpan>; 3],
    pub(super) max_length: u64,
}

impl PartPlan {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = WireWriter::default();
        for line in [&self.head_line, &self.tail_line] {
            match line {
                Some((ref_id, text)) => out.number(1).number(*ref_id as u64).bytes(text),
                None => out.number(0),
            };
        }
        for span in &self.spans {
            match span {
                Some(s) => out.number(1).number(s.start).number(s.end).number(s.total),
                None => out.number(0),
            };
        }
        out.number(self.max_length);
        out.0
    }

    fn read(bytes: &[u8]) -> anyhow::Result<Self> {
        let mut input = WireReader::new(bytes);
        let mut line = || -> anyhow::Result<Option<(usize, Vec<u8>)>> {
            Ok(match input.number()? {
                0 => None,
                _ => Some((usize::try_from(input.number()?)?, input.bytes()?.to_vec())),
            })
        };
        let (head_line, tail_line) = (line()?, line()?);
        let mut spans = [None; 3];
        for span in &mut spans {
            if input.number()? != 0 {
                let (start, end, total) = (input.number()?, input.number()?, input.number()?);
                *span = Some(PartSpan { start, end, total });
            }
        }
        Ok(Self {
            head_line,
            tail_line,
            spans,
            max_length: input.number()?,
        })
    }
}

/// One output of a part compressed: its inner blocks (one run of blocks, with each one's
/// size), its pieces of seams, and its lines grouped for the index, in stream offsets.
struct CompressedOutput<'a> {
    span: PartSpan,
    inner_sizes: Vec<u64>,
    pieces: Vec<(u64, Cow<'a, [u8]>)>,
    groups: Cow<'a, [u8]>,
    inner: Cow<'a, [u8]>,
}

/// A part's outputs compressed ([`depth_compress`]), by output of [`STREAMS`].
struct CompressedPart<'a>([Option<CompressedOutput<'a>>; 3]);

/// The compressed part's bytes, as [`CompressedPart::read`] reads them.
impl ToWire for CompressedPart<'static> {
    fn to_wire(&self, out: &mut WireWriter<&mut dyn WireOut>) {
        for output in &self.0 {
            let Some(o) = output else {
                out.number(0);
                continue;
            };
            out.number(1)
                .number(o.span.start)
                .number(o.span.end)
                .number(o.span.total);
            out.numbers(&o.inner_sizes).number(o.pieces.len() as u64);
            for (block, bytes) in &o.pieces {
                out.number(*block).bytes(bytes);
            }
            out.bytes(&o.groups).bytes(&o.inner);
        }
    }
}

impl<'a> CompressedPart<'a> {
    /// The part [`ToWire::to_wire`] wrote, its bytes borrowed from `bytes`.
    fn read(bytes: &'a [u8]) -> anyhow::Result<Self> {
        let mut input = WireReader::new(bytes);
        let mut outputs: [Option<CompressedOutput<'a>>; 3] = Default::default();
        for output in &mut outputs {
            if input.number()? == 0 {
                continue;
            }
            let (start, end, total) = (input.number()?, input.number()?, input.number()?);
            let inner_sizes = input.numbers()?;
            let pieces = (0..input.number()?)
                .map(|_| Ok((input.number()?, Cow::Borrowed(input.bytes()?))))
                .collect::<anyhow::Result<_>>()?;
            *output = Some(CompressedOutput {
                span: PartSpan { start, end, total },
                inner_sizes,
                pieces,
                groups: Cow::Borrowed(input.bytes()?),
                inner: Cow::Borrowed(input.bytes()?),
            });
        }
        Ok(Self(outputs))
    }
}

/// Compresses a part's outputs ([`depth_tasks`](super::depth_tasks)' bytes) as `plan`
/// ([`PartPlan`]'s bytes) places them and groups their lines for the index: the bytes for
/// [`depth_pieces`], [`depth_inner_sizes`] and [`depth_write`].
pub fn depth_compress(part: &[u8], plan: &[u8]) -> anyhow::Result<PartBytes> {
    let plan = PartPlan::read(plan)?;
    let mut input = WireReader::new(part);
    input.bytes()?;
    let mut outputs: [Option<CompressedOutput<'static>>; 3] = Default::default();
    for (stream, output) in outputs.iter_mut().enumerate() {
        let rows = Rows::read(&mut input)?;
        let Some(span) = plan.spans[stream] else {
            continue;
        };
        // The per-base lines at the part's edges, as the client joined them, around its
        // own lines.
        let (head, tail) = match stream {
            PER_BASE => (edge_line(&plan.head_line), edge_line(&plan.tail_line)),
            _ => (None, None),
        };
        let by_contig: Vec<(usize, &[u8])> = head
            .into_iter()
            .chain(rows.by_contig())
            .chain(tail)
            .collect();
        let pieces: Vec<&[u8]> = by_contig.iter().map(|&(_, lines)| lines).collect();
        let text = Pieces(&pieces);
        anyhow::ensure!(
            text.len() as u64 == span.end - span.start,
            "depth part: {} bytes of {} where {} were planned",
            text.len(),
            STREAMS[stream],
            span.end - span.start
        );
        let mut inner = Vec::with_capacity(text.len() / 3);
        let mut compressor = BgzfCompressor::new(level(stream));
        let inner_sizes = compress_range(&mut compressor, &span, text, span.inner(), &mut inner);
        let pieces = span
            .pieces()
            .map(|(block, r)| {
                let at = (r.start - span.start) as usize..(r.end - span.start) as usize;
                (block, Cow::Owned(text.range(at).into_owned()))
            })
            .collect();
        let mut groups = PartLineGroups::new(plan.max_length);
        let mut at = span.start;
        for &(ref_id, lines) in &by_contig {
            for line in lines.split_inclusive(|&b| b == b'\n') {
                let end = at + line.len() as u64;
                groups.add_line(ref_id, line, at, end).map_err(|message| {
                    anyhow::anyhow!(
                        "{}: line at byte {at} of the stream: {message}",
                        STREAMS[stream]
                    )
                })?;
                at = end;
            }
        }
        *output = Some(CompressedOutput {
            span,
            inner_sizes,
            pieces,
            groups: Cow::Owned(groups.to_bytes()),
            inner: Cow::Owned(inner),
        });
    }
    Ok(PartBytes::new(CompressedPart(outputs)))
}

/// A per-base line at a part's edge, as `(contig, line)`.
fn edge_line(line: &Option<(usize, Vec<u8>)>) -> Option<(usize, &[u8])> {
    line.as_ref()
        .map(|(ref_id, text)| (*ref_id, text.as_slice()))
}

/// The compressed size of each output's inner blocks in a part ([`depth_compress`]'
/// bytes); 0 for an output not written.
pub fn depth_inner_sizes(compressed: &[u8]) -> anyhow::Result<Vec<u64>> {
    let part = CompressedPart::read(compressed)?;
    Ok(part
        .0
        .iter()
        .map(|o| o.as_ref().map_or(0, |o| o.inner.len() as u64))
        .collect())
}

/// A part's pieces of the seams ([`depth_compress`]' bytes), for [`depth_seam`].
pub fn depth_pieces(compressed: &[u8]) -> anyhow::Result<Vec<u8>> {
    let part = CompressedPart::read(compressed)?;
    let mut out = WireWriter::default();
    for output in &part.0 {
        let pieces = output.as_ref().map_or(&[][..], |o| &o.pieces[..]);
        out.number(pieces.len() as u64);
        for (block, bytes) in pieces {
            out.number(*block).bytes(bytes);
        }
    }
    Ok(out.0)
}

/// The BGZF block `block` of output `stream` (of [`STREAMS`]), a seam: `header` (the
/// output's header, for block 0) then the pieces of it in `parts` ([`depth_pieces`]'
/// bytes of the parts sharing it, in order), compressed.
pub fn depth_seam(
    stream: usize,
    block: u64,
    header: &[u8],
    parts: &[&[u8]],
) -> anyhow::Result<Vec<u8>> {
    let mut text = if block == 0 {
        header.to_vec()
    } else {
        Vec::new()
    };
    for part in parts {
        let mut input = WireReader::new(part);
        for s in 0..STREAMS.len() {
            for _ in 0..input.number()? {
                let (b, bytes) = (input.number()?, input.bytes()?);
                if s == stream && b == block {
                    text.extend_from_slice(bytes);
                }
            }
        }
    }
    anyhow::ensure!(
        text.len() <= seqfarm_io::bgzf_writer::BLOCK_INPUT,
        "depth seam: {} bytes for one BGZF block",
        text.len()
    );
    let mut out = Vec::new();
    BgzfCompressor::new(level(stream)).compress(&text, &mut out);
    Ok(out)
}

/// Writes a part's inner blocks ([`depth_compress`]' bytes) into the outputs' temporary
/// files `paths` (by output, `None` for one not written) at `offsets` (by output, from
/// [`DepthCollector::place`](super::DepthCollector::place)); returns each output's line
/// groups with their virtual offsets, as bytes for [`depth_index`].
pub fn depth_write(
    compressed: &[u8],
    paths: &[Option<PathBuf>],
    offsets: &[Option<SpanOffsets>],
) -> anyhow::Result<Vec<u8>> {
    let part = CompressedPart::read(compressed)?;
    let mut out = WireWriter::default();
    for (stream, output) in part.0.iter().enumerate() {
        let (Some(o), Some(Some(path)), Some(Some(offsets))) =
            (output, paths.get(stream), offsets.get(stream))
        else {
            out.bytes(&[]);
            continue;
        };
        write_at(path, offsets.inner, &o.inner)?;
        let groups = PartLineGroups::from_bytes(&o.groups)
            .ok_or_else(|| anyhow::anyhow!("depth part: its line groups are unreadable"))?;
        let starts = inner_starts(&o.inner_sizes);
        let placed = groups.with_offsets(|at| offsets.virtual_offset(&o.span, &starts, at));
        out.bytes(&placed.to_bytes());
    }
    Ok(out.0)
}

/// Writes the CSI index of output `stream` of the depth run `options` ask for on `bam`
/// to `path`, from the parts' line groups ([`depth_write`]' bytes, in order).
pub fn depth_index(
    bam: &Path,
    options: &DepthOptions,
    stream: usize,
    path: &Path,
    parts: &[&[u8]],
) -> anyhow::Result<()> {
    let job = planned_job(bam, options)?;
    let names = job.names();
    let mut indexer = BedIndexer::new(names.iter().map(String::as_str), job.max_length());
    for part in parts {
        let mut input = WireReader::new(part);
        let mut groups = &[][..];
        for _ in 0..=stream {
            groups = input.bytes()?;
        }
        let groups = PartLineGroups::from_bytes(groups)
            .ok_or_else(|| anyhow::anyhow!("depth index: a part's line groups are unreadable"))?;
        indexer
            .add_part(&groups)
            .map_err(|message| seqfarm_io::Error::format(path, 0, message))?;
    }
    let mut index = Vec::new();
    indexer
        .write(names.len(), &mut index)
        .map_err(|e| seqfarm_io::Error::io(path, e))?;
    write_at(path, 0, &index)?;
    Ok(())
}
