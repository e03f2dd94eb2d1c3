//! One worker's GPU engine: [`GpuSearcher`] with its own stream and device buffers
//! (grown to the largest block asked of them), scoring a block against query frames
//! launch by launch and rescoring at 32 bits the sequences whose 16-bit score could have
//! wrapped.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

use super::{GpuError, GpuKernels, ShapeGroup, BLOCK_THREADS, CODES};
use crate::block::sort_by_length;
use crate::SequenceBlock;

/// A device buffer that grows to the largest size asked of it.
struct Grown<T> {
    slice: Option<CudaSlice<T>>,
}

impl<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits> Grown<T> {
    fn new() -> Self {
        Grown { slice: None }
    }

    /// The buffer, reallocated (contents lost) when shorter than `len`.
    fn at_least(
        &mut self,
        stream: &Arc<CudaStream>,
        len: usize,
    ) -> Result<&mut CudaSlice<T>, GpuError> {
        let len = len.max(1);
        if self.slice.as_ref().is_none_or(|s| s.len() < len) {
            self.slice = None;
            self.slice = Some(stream.alloc_zeros::<T>(len + len / 4)?);
        }
        Ok(self
            .slice
            .as_mut()
            .unwrap_or_else(|| unreachable!("allocated above")))
    }

    /// The buffer as last sized by [`Grown::at_least`].
    fn get(&self) -> &CudaSlice<T> {
        self.slice
            .as_ref()
            .unwrap_or_else(|| unreachable!("sized before every launch"))
    }
}

/// The first of slot `s`'s three counters (slot 0 holds the block's sequence count):
/// the 16-bit pass's work counter, the overflow count, the 32-bit pass's work counter.
fn slot_counters(s: usize) -> usize {
    1 + 3 * s
}

/// One worker's GPU engine: a stream and the buffers one block needs.
pub struct GpuSearcher {
    kernels: Arc<GpuKernels>,
    stream: Arc<CudaStream>,
    order: Vec<u32>,
    starts: Vec<u32>,
    lengths: Vec<u32>,
    host_scores: Vec<i32>,
    host_counters: Vec<u32>,
    residues: Grown<u8>,
    starts_dev: Grown<u32>,
    lengths_dev: Grown<u32>,
    order_dev: Grown<u32>,
    boundary: Grown<u64>,
    /// Per slot, per sequence.
    scores: Grown<i32>,
    /// Per slot, the sequences to rescore at 32 bits.
    overflow: Grown<u32>,
    /// See [`slot_counters`].
    counters: Grown<u32>,
    rescored: u64,
}

impl GpuSearcher {
    /// A searcher with a stream of its own on the kernels' GPU.
    pub fn new(kernels: &Arc<GpuKernels>) -> Result<GpuSearcher, GpuError> {
        Ok(GpuSearcher {
            stream: kernels.context.new_stream()?,
            kernels: kernels.clone(),
            order: Vec::new(),
            starts: Vec::new(),
            lengths: Vec::new(),
            host_scores: Vec::new(),
            host_counters: Vec::new(),
            residues: Grown::new(),
            starts_dev: Grown::new(),
            lengths_dev: Grown::new(),
            order_dev: Grown::new(),
            boundary: Grown::new(),
            scores: Grown::new(),
            overflow: Grown::new(),
            counters: Grown::new(),
            rescored: 0,
        })
    }

    /// Sequences rescored with 32-bit lanes so far.
    pub fn rescored(&self) -> u64 {
        self.rescored
    }

    /// Scores every query frame the kernels were made for against every sequence of
    /// `block`: `scores[f][i]` for frame `f` and sequence `i`.
    pub fn score(
        &mut self,
        block: &SequenceBlock,
        scores: &mut Vec<Vec<i32>>,
    ) -> Result<(), GpuError> {
        let kernels = self.kernels.clone();
        let frames = kernels.slot_frames.len();
        let n = block.len();
        scores.resize_with(frames, Vec::new);
        if n == 0 {
            scores.iter_mut().for_each(Vec::clear);
            return Ok(());
        }
        sort_by_length(block, &mut self.order);
        self.starts.clear();
        self.starts.extend((0..n).map(|i| block.start(i) as u32));
        self.lengths.clear();
        self.lengths.extend((0..n).map(|i| block.seq_len(i) as u32));
        let stream = self.stream.clone();
        stream.memcpy_htod(
            block.codes(),
            self.residues.at_least(&stream, block.residues())?,
        )?;
        stream.memcpy_htod(&self.starts, self.starts_dev.at_least(&stream, n)?)?;
        stream.memcpy_htod(&self.lengths, self.lengths_dev.at_least(&stream, n)?)?;
        stream.memcpy_htod(&self.order, self.order_dev.at_least(&stream, n)?)?;
        let slots = slot_counters(frames);
        let counters = self.counters.at_least(&stream, slots)?;
        stream.memset_zeros(counters)?;
        stream.memcpy_htod(&[n as u32], &mut counters.slice_mut(0..1))?;
        // Frames per launch: as many as the boundary budget holds (all, in one pass).
        let per_frame = 8 * block.residues();
        let batch = (kernels.boundary_budget / per_frame.max(1)).clamp(1, frames);
        self.boundary.at_least(
            &stream,
            if kernels.multipass {
                batch * block.residues()
            } else {
                1
            },
        )?;
        self.scores.at_least(&stream, frames * n)?;
        self.overflow.at_least(&stream, frames * n)?;
        for group in &kernels.groups {
            let per_launch = if group.shape.passes > 1 {
                batch
            } else {
                frames
            };
            for first in (0..group.len).step_by(per_launch) {
                let count = per_launch.min(group.len - first);
                self.launch(group, first, count, n, block.residues())?;
            }
        }
        self.host_scores.resize(frames * n, 0);
        self.host_counters.resize(slots, 0);
        stream.memcpy_dtoh(
            &self.scores.get().slice(0..frames * n),
            &mut self.host_scores,
        )?;
        stream.memcpy_dtoh(
            &self.counters.get().slice(0..slots),
            &mut self.host_counters,
        )?;
        stream.synchronize()?;
        for (slot, &frame) in kernels.slot_frames.iter().enumerate() {
            scores[frame].clear();
            scores[frame].extend_from_slice(&self.host_scores[slot * n..(slot + 1) * n]);
        }
        // Zero without a 16-bit pass: nothing then lists overflows.
        self.rescored += (0..frames)
            .map(|s| self.host_counters[slot_counters(s) + 1] as u64)
            .sum::<u64>();
        Ok(())
    }

    /// Queues on the stream the launches for `count` frames of `group` from its
    /// `first`: one 16-bit pass over all `n` sequences for all of them, then for each a
    /// 32-bit pass over the sequences that pass listed as overflowed (or, when the gap
    /// costs rule 16 bits out, a 32-bit pass over all, frame by frame).
    fn launch(
        &self,
        group: &ShapeGroup,
        first: usize,
        count: usize,
        n: usize,
        residues: usize,
    ) -> Result<(), GpuError> {
        let kernels = &self.kernels;
        let config = LaunchConfig {
            grid_dim: (kernels.grid, 1, 1),
            block_dim: (BLOCK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let rows = group.shape.profile_rows() as u32;
        let profile_len = CODES * rows as usize;
        let slot = group.first_slot + first;
        let counters = self.counters.get();
        let total = counters.slice(0..1);
        let boundary_stride = residues as u32;
        // Each kernel's arguments, in kernels.cu's SEQFARM_SW_PARAMS order.
        let run = |function: &CudaFunction,
                   order: &cudarc::driver::CudaView<'_, u32>,
                   count_of: &cudarc::driver::CudaView<'_, u32>,
                   first_frame: usize,
                   frames: u32,
                   next: usize|
         -> Result<(), GpuError> {
            let profiles = group
                .profiles
                .slice(first_frame * profile_len..(first_frame + frames as usize) * profile_len);
            let s = group.first_slot + first_frame;
            let scores = self.scores.get().slice(s * n..(s + frames as usize) * n);
            let overflow = self.overflow.get().slice(s * n..(s + frames as usize) * n);
            let overflow_counts =
                counters.slice(slot_counters(s) + 1..slot_counters(s + frames as usize));
            let next = counters.slice(next..next + 1);
            let mut launch = self.stream.launch_builder(function);
            launch
                .arg(self.residues.get())
                .arg(self.starts_dev.get())
                .arg(self.lengths_dev.get())
                .arg(order)
                .arg(count_of)
                .arg(&profiles)
                .arg(&rows)
                .arg(&kernels.first_gap)
                .arg(&kernels.extend)
                .arg(&kernels.threshold)
                .arg(self.boundary.get())
                .arg(&scores)
                .arg(&overflow)
                .arg(&overflow_counts)
                .arg(&next)
                .arg(&frames)
                .arg(&boundary_stride);
            // SAFETY: the arguments match SEQFARM_SW_PARAMS in kernels.cu, in order; the
            // buffers hold what the kernel indexes: n sequences and the block's residues,
            // `frames` profiles of `rows` rows, scores and overflow lists of n entries per
            // frame, three counters per frame, and (multi-pass shapes) a boundary pair per
            // residue for each of `frames` frames.
            unsafe { launch.launch(config) }?;
            Ok(())
        };
        let all = self.order_dev.get().slice(0..n);
        match &group.narrow {
            Some(narrow) => {
                run(
                    narrow,
                    &all,
                    &total,
                    first,
                    count as u32,
                    slot_counters(slot),
                )?;
                for f in first..first + count {
                    let s = group.first_slot + f;
                    let listed = self.overflow.get().slice(s * n..(s + 1) * n);
                    let listed_count = counters.slice(slot_counters(s) + 1..slot_counters(s) + 2);
                    run(
                        &group.wide,
                        &listed,
                        &listed_count,
                        f,
                        1,
                        slot_counters(s) + 2,
                    )?;
                }
            }
            None => {
                for f in first..first + count {
                    let s = group.first_slot + f;
                    run(&group.wide, &all, &total, f, 1, slot_counters(s) + 2)?;
                }
            }
        }
        Ok(())
    }
}
