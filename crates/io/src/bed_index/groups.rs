//! A BED file's lines grouped as its index takes them: consecutive lines of one contig
//! whose intervals lie in one bin and whose chunks join become one record. The grouping
//! of a part of the file ([`PartLineGroups`]) joins the grouping of the lines before it
//! at its first group, which gives the index of the whole file line by line: a file
//! written in parts is indexed from its parts' groups, without reading it again.

use noodles_core::Position;
use noodles_csi::binning_index::indexer::AddRecordError;

use super::{interval, MIN_SHIFT};

/// Consecutive lines of one contig whose intervals lie in one bin and whose chunks join
/// (each starts in the file where the one before ends, so the index would merge their
/// chunks anyway), added to the index as one record over their union. The union lies in
/// the same bin, its chunk is the merged one and starts where the first line does, so
/// the bins, the offsets and the positions of the index are those of the lines one by
/// one; the record count is the group's count of lines. Adding a record costs a hashed
/// look-up per level of bins, and a bin of 16 kbp holds dozens of windows or thousands of
/// per-base runs. A line the index refuses is a group of its own without a bin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineGroup {
    pub(super) ref_id: usize,
    bin: Option<usize>,
    pub(super) first: Position,
    pub(super) last: Position,
    pub(super) start: u64,
    pub(super) end: u64,
    /// Lines in the group (none for a refused line: the index does not count it).
    pub(super) lines: u64,
}

impl LineGroup {
    /// Whether `next`, the group after this one, joins it into one record.
    fn joins(&self, next: &LineGroup) -> bool {
        self.ref_id == next.ref_id
            && self.bin.is_some()
            && self.bin == next.bin
            && next.start <= self.end
    }
}

/// Groups lines as they come, handing each group on once complete.
#[derive(Debug)]
pub(super) struct LineGrouper {
    /// Levels of bins.
    pub(super) depth: u8,
    /// The group lines are joining.
    group: Option<LineGroup>,
    /// The contig and start of the last line, whose order the next line must keep.
    last: Option<(usize, Position)>,
}

impl LineGrouper {
    /// A grouper for contigs no longer than `max_length`.
    pub(super) fn new(max_length: u64) -> Self {
        // Levels enough for the longest contig, at least BAI's five.
        let mut depth = 5u8;
        while (1u64 << (MIN_SHIFT + 3 * depth)) < max_length.saturating_add(1) {
            depth += 1;
        }
        Self {
            depth,
            group: None,
            last: None,
        }
    }

    /// [`add`](Self::add) of a BED line, placed by its contig and columns; a line starting
    /// with `#` is skipped.
    pub(super) fn add_line(
        &mut self,
        ref_id: usize,
        line: &[u8],
        start: u64,
        end: u64,
        complete: &mut impl FnMut(&LineGroup) -> Result<(), String>,
    ) -> Result<(), String> {
        match interval(line) {
            None => Ok(()),
            Some(interval) => self.add(ref_id, interval?, start, end, complete),
        }
    }

    /// Adds a line of contig `ref_id` covering `(first, last)` from virtual offset `start`
    /// to `end`; `complete` takes each group that this line closes.
    pub(super) fn add(
        &mut self,
        ref_id: usize,
        (first, last): (Position, Position),
        start: u64,
        end: u64,
        complete: &mut impl FnMut(&LineGroup) -> Result<(), String>,
    ) -> Result<(), String> {
        // Only a line the index takes as it is joins a group, so an error names its line.
        let ordered = self.ordered(ref_id, first, complete)?;
        let max_position = 1usize << (u32::from(MIN_SHIFT) + 3 * u32::from(self.depth));
        let valid = ordered && first <= last && usize::from(last) <= max_position;
        let line = LineGroup {
            ref_id,
            bin: valid.then(|| bin_of(first, last, self.depth)),
            first,
            last,
            start,
            end,
            lines: u64::from(valid),
        };
        match &mut self.group {
            Some(group) if group.joins(&line) => {
                group.last = group.last.max(last);
                group.end = end;
                group.lines += 1;
            }
            _ => {
                self.flush(complete)?;
                if line.bin.is_none() {
                    // The index refuses the line and says why.
                    return complete(&line);
                }
                self.group = Some(line);
            }
        }
        self.last = Some((ref_id, first));
        Ok(())
    }

    /// Whether a line of contig `ref_id` starting at `first` keeps the order of the lines
    /// before it: an error if it starts before the last one on the same contig, `false`
    /// if it comes back to an earlier contig.
    fn ordered(
        &mut self,
        ref_id: usize,
        first: Position,
        complete: &mut impl FnMut(&LineGroup) -> Result<(), String>,
    ) -> Result<bool, String> {
        match self.last {
            Some((r, previous)) if r == ref_id => {
                if first < previous {
                    self.flush(complete)?;
                    return Err(AddRecordError::OutOfOrderStartPosition {
                        start: first,
                        prev_start_position: previous,
                    }
                    .to_string());
                }
                Ok(true)
            }
            Some((r, _)) => Ok(r < ref_id),
            None => Ok(true),
        }
    }

    /// Hands the group waiting, if any, to `complete`.
    pub(super) fn flush(
        &mut self,
        complete: &mut impl FnMut(&LineGroup) -> Result<(), String>,
    ) -> Result<(), String> {
        match self.group.take() {
            Some(group) => complete(&group),
            None => Ok(()),
        }
    }

    /// Adds the groups of a part of the file that follows the lines added so far: its
    /// first group joins the one waiting as its first line would, and its last one waits.
    pub(super) fn add_groups(
        &mut self,
        part: &PartLineGroups,
        complete: &mut impl FnMut(&LineGroup) -> Result<(), String>,
    ) -> Result<(), String> {
        let Some(head) = part.groups.first() else {
            return Ok(());
        };
        if !self.ordered(head.ref_id, head.first, complete)? && head.bin.is_some() {
            // The part's first line comes back to an earlier contig: refused alone.
            self.flush(complete)?;
            return complete(&LineGroup {
                bin: None,
                lines: 0,
                ..head.clone()
            });
        }
        for (i, group) in part.groups.iter().enumerate() {
            match &mut self.group {
                Some(waiting) if i == 0 && waiting.joins(group) => {
                    waiting.last = waiting.last.max(group.last);
                    waiting.end = group.end;
                    waiting.lines += group.lines;
                }
                _ => {
                    self.flush(complete)?;
                    if group.bin.is_none() {
                        return complete(group);
                    }
                    self.group = Some(group.clone());
                }
            }
        }
        self.last = part.last.or(self.last);
        Ok(())
    }
}

/// The lines of a part of a BED file grouped as its index takes them, to be added to the
/// index of the whole file in file order ([`BedIndexer::add_part`](super::BedIndexer::add_part)).
#[derive(Debug)]
pub struct PartLineGroups {
    grouper: LineGrouper,
    groups: Vec<LineGroup>,
    /// The contig and start of the part's last line.
    last: Option<(usize, Position)>,
}

impl PartLineGroups {
    /// No lines yet, for contigs no longer than `max_length`.
    pub fn new(max_length: u64) -> Self {
        Self {
            grouper: LineGrouper::new(max_length),
            groups: Vec::new(),
            last: None,
        }
    }

    /// Adds one line of contig number `ref_id` that starts at virtual offset `start` and
    /// ends before `end`; a line starting with `#` is skipped.
    pub fn add_line(
        &mut self,
        ref_id: usize,
        line: &[u8],
        start: u64,
        end: u64,
    ) -> Result<(), String> {
        let groups = &mut self.groups;
        let pushed = self
            .grouper
            .add_line(ref_id, line, start, end, &mut |group| {
                groups.push(group.clone());
                Ok(())
            });
        self.last = self.grouper.last;
        pushed
    }

    /// The groups with each offset `at` replaced by `offset(at)`: lines added with their
    /// offsets in the uncompressed stream, then given their virtual offsets once the
    /// blocks are placed (the grouping is the same: a part's lines follow each other in
    /// the stream, so each starts where the one before ends, as it does in virtual
    /// offsets). Call it on groups read back ([`PartLineGroups::from_bytes`]).
    pub fn with_offsets(mut self, offset: impl Fn(u64) -> u64) -> Self {
        for g in &mut self.groups {
            g.start = offset(g.start);
            g.end = offset(g.end);
        }
        self
    }

    /// The groups as bytes, once every line is added (see [`PartLineGroups::from_bytes`]).
    pub fn to_bytes(mut self) -> Vec<u8> {
        let groups = &mut self.groups;
        let _ = self.grouper.flush(&mut |group| {
            groups.push(group.clone());
            Ok(())
        });
        let mut out = Vec::with_capacity(8 + 56 * self.groups.len());
        let (ref_id, position) = self
            .last
            .map_or((u64::MAX, 0), |(r, p)| (r as u64, p.get()));
        for n in [ref_id, position as u64, u64::from(self.grouper.depth)] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for g in &self.groups {
            let bin = g.bin.map_or(u64::MAX, |b| b as u64);
            let numbers = [
                g.ref_id as u64,
                bin,
                g.first.get() as u64,
                g.last.get() as u64,
            ];
            for n in numbers.into_iter().chain([g.start, g.end, g.lines]) {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        out
    }

    /// The groups [`PartLineGroups::to_bytes`] wrote; `None` for other bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let mut numbers = bytes
            .chunks(8)
            .map(|c| c.try_into().ok().map(u64::from_le_bytes));
        let numbers_in = bytes.len() / 8;
        if !bytes.len().is_multiple_of(8) || numbers_in < 3 || !(numbers_in - 3).is_multiple_of(7) {
            return None;
        }
        let mut next = || numbers.next().flatten();
        let position = |n: u64| Position::new(usize::try_from(n).ok()?);
        let (ref_id, at, depth) = (next()?, next()?, next()?);
        let last = match ref_id {
            u64::MAX => None,
            r => Some((r as usize, position(at)?)),
        };
        let mut groups = Vec::new();
        while let Some(ref_id) = next() {
            let bin = next()?;
            groups.push(LineGroup {
                ref_id: ref_id as usize,
                bin: (bin != u64::MAX).then_some(bin as usize),
                first: position(next()?)?,
                last: position(next()?)?,
                start: next()?,
                end: next()?,
                lines: next()?,
            });
        }
        let grouper = LineGrouper {
            depth: u8::try_from(depth).ok()?,
            group: None,
            last,
        };
        Some(Self {
            grouper,
            groups,
            last,
        })
    }
}

/// The CSI bin of the 1-based inclusive interval `first..=last`: the smallest bin, of
/// 2^14 bases at the lowest of `depth` levels, that holds it (CSI's `reg2bin`).
pub(super) fn bin_of(first: Position, last: Position, depth: u8) -> usize {
    let (begin, end) = (usize::from(first) - 1, usize::from(last) - 1);
    let mut shift = u32::from(MIN_SHIFT);
    let mut level_first = ((1usize << (3 * u32::from(depth))) - 1) / 7;
    for level in (1..=depth).rev() {
        if begin >> shift == end >> shift {
            return level_first + (begin >> shift);
        }
        shift += 3;
        level_first -= 1 << (3 * u32::from(level - 1));
    }
    0
}
