//! Smith-Waterman scoring on an NVIDIA GPU: the same scores as the CPU kernels.
//!
//! The CUDA driver and NVRTC are loaded when a search asks for the GPU (through `cudarc`'s
//! dynamic loading), so the crate builds and runs where CUDA is absent; [`GpuDevice::open`]
//! then says why no GPU can be used. The kernels (`kernels.cu`) are compiled at run time
//! for the device found, once per search ([`GpuKernels`]), for the shapes its queries
//! need. Each farm worker drives the GPU through a [`GpuSearcher`] of its own (its own
//! stream and buffers): while one worker's block is scored, another parses its chunk.
//!
//! A query is scored against a block with 16-bit lanes, two database sequences per
//! thread group, and the few sequences whose score could have wrapped are rescored on
//! the GPU with 32-bit lanes, in the same stream, without a round trip to the host.
//! Query frames of one kernel shape share a launch (as many as the memory for their pass
//! boundaries allows): one frame per launch would leave the GPU waiting, at the end of
//! each launch, for the thread group that computes the block's longest sequence alone.
//! Scores equal [`crate::scalar::score`]'s (tests compare them on a GPU; without one
//! they say they were skipped).

mod searcher;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice};
use cudarc::nvrtc::{CompileOptions, Ptx};

use crate::matrix::PAD_CODE;
use crate::Scoring;

pub use self::searcher::GpuSearcher;

/// The kernels' source, compiled at run time.
const KERNELS: &str = include_str!("kernels.cu");

/// Residue codes a profile covers (every code a matrix gives, and [`PAD_CODE`]).
const CODES: usize = 32;

/// Score of any query row against padding, and of padding rows: low enough never to
/// raise a score, high enough that 16-bit lanes cannot wrap downwards.
const PAD_PROFILE: i16 = -1000;

/// Threads per block of every launch (the kernels' `__launch_bounds__`).
const BLOCK_THREADS: u32 = 128;

/// The cost of a gap of two residues (open + 2 x extend) from which 16-bit lanes are not
/// used (their lowest values could wrap).
const MAX_16_BIT_GAP: i32 = 16_384;

/// What keeps a search from using the GPU.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No CUDA driver library (libcuda) could be loaded.
    #[error("no NVIDIA CUDA driver found (libcuda.so.1 could not be loaded)")]
    NoDriver,
    /// No NVRTC library could be loaded.
    #[error(
        "no NVRTC found (libnvrtc.so.13, from the CUDA 13 toolkit or the nvidia-cuda-nvrtc \
         Python package; add its folder to LD_LIBRARY_PATH)"
    )]
    NoCompiler,
    /// The driver sees no GPU.
    #[error("the CUDA driver sees no GPU")]
    NoDevice,
    /// A CUDA call failed.
    #[error("CUDA: {0}")]
    Driver(String),
    /// The kernels did not compile.
    #[error("compiling the GPU kernels: {0}")]
    Compile(String),
}

impl From<cudarc::driver::DriverError> for GpuError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        GpuError::Driver(e.to_string())
    }
}

/// How a query is laid over a thread group: `group` threads of `rows` query rows each,
/// `passes` times down the query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelShape {
    /// Threads per database sequence (4, 8, 16 or 32).
    pub group: u32,
    /// Query rows per thread (8 or 16).
    pub rows: u32,
    /// Passes down the query.
    pub passes: u32,
}

impl KernelShape {
    /// The shape that computes the fewest cells (padding rows and the wavefront's start
    /// and end included) for a query of `length` against proteins of typical length;
    /// fewer passes on a tie.
    pub fn for_query(length: usize) -> KernelShape {
        const TYPICAL_SUBJECT: u64 = 360;
        [4u32, 8, 16, 32]
            .into_iter()
            .flat_map(|group| [8u32, 16].map(|rows| (group, rows)))
            .map(|(group, rows)| {
                let tile = (group * rows) as usize;
                let passes = length.div_ceil(tile).max(1) as u32;
                let cells = passes as u64 * tile as u64 * (TYPICAL_SUBJECT + group as u64 - 1)
                    + passes as u64 * TYPICAL_SUBJECT * 8;
                let shape = KernelShape {
                    group,
                    rows,
                    passes,
                };
                ((cells, passes), shape)
            })
            .min_by_key(|&(key, _)| key)
            .map(|(_, shape)| shape)
            .unwrap_or_else(|| unreachable!("eight shapes to choose from"))
    }

    /// Query rows the profile holds (the query padded to whole passes).
    pub fn profile_rows(&self) -> usize {
        (self.passes * self.group * self.rows) as usize
    }

    fn kernel_name(&self, pack: u32) -> String {
        format!("sw_p{pack}_g{}_r{}", self.group, self.rows)
    }
}

/// The query profile the kernels read: for each of 32 residue codes, the score of every
/// query row against it (16-bit), rows padded to `rows` with `PAD_PROFILE`, as is the
/// padding code.
pub fn query_profile(scoring: &Scoring, query: &[u8], rows: usize) -> Vec<i16> {
    let matrix = scoring.matrix();
    let mut profile = vec![PAD_PROFILE; CODES * rows];
    for (i, &q) in query.iter().enumerate() {
        for (code, &score) in matrix.row(q).iter().enumerate() {
            if code != PAD_CODE as usize {
                profile[code * rows + i] = score as i16;
            }
        }
    }
    profile
}

/// One NVIDIA GPU, opened for scoring.
pub struct GpuDevice {
    context: Arc<CudaContext>,
    name: String,
    multiprocessors: u32,
    capability: (i32, i32),
}

impl GpuDevice {
    /// Opens GPU `ordinal` (0 for the first), or says why none can be used.
    pub fn open(ordinal: usize) -> Result<GpuDevice, GpuError> {
        // SAFETY: only probes whether the libraries load; nothing is called yet.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(GpuError::NoCompiler);
        }
        if CudaContext::device_count()? <= ordinal as i32 {
            return Err(GpuError::NoDevice);
        }
        let context = CudaContext::new(ordinal)?;
        // SAFETY: every buffer is used on the stream of the searcher that owns it, and the
        // shared profiles are written (and the writes waited for) before any searcher runs.
        unsafe { context.disable_event_tracking() };
        let multiprocessors = context.attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )? as u32;
        Ok(GpuDevice {
            name: context.name()?,
            capability: context.compute_capability()?,
            multiprocessors,
            context,
        })
    }

    /// The GPU's name and compute capability, for reports.
    pub fn describe(&self) -> String {
        let (major, minor) = self.capability;
        format!(
            "{} (compute capability {major}.{minor}, {} multiprocessors)",
            self.name, self.multiprocessors
        )
    }
}

/// The frames of one kernel shape: their kernels and profiles, back to back.
struct ShapeGroup {
    shape: KernelShape,
    /// Frames in the group (slots `first_slot..first_slot + len`; `slot_frames` names them).
    len: usize,
    /// The slot of the group's first frame.
    first_slot: usize,
    /// Each frame's profile, `CODES * shape.profile_rows()` entries apart.
    profiles: CudaSlice<i16>,
    /// The 16-bit kernel, when the gap costs allow it.
    narrow: Option<CudaFunction>,
    wide: CudaFunction,
}

/// The compiled kernels and uploaded query profiles of one search, shared by its
/// workers' [`GpuSearcher`]s.
pub struct GpuKernels {
    context: Arc<CudaContext>,
    groups: Vec<ShapeGroup>,
    /// Frame index of each slot (frames ordered by shape).
    slot_frames: Vec<usize>,
    first_gap: i32,
    extend: i32,
    threshold: i32,
    grid: u32,
    /// Device memory a searcher may give to the pass boundaries of one launch.
    boundary_budget: usize,
    /// Whether some shape takes more than one pass (and so needs pass boundaries).
    multipass: bool,
}

impl GpuKernels {
    /// Compiles the kernels `queries` (encoded for `scoring`'s matrix, in the order their
    /// scores are wanted) need on `device` and uploads their profiles.
    pub fn new(
        device: &GpuDevice,
        scoring: &Scoring,
        queries: &[&[u8]],
    ) -> Result<Arc<GpuKernels>, GpuError> {
        let narrow = scoring.first_gap_cost() + scoring.gap_extend() < MAX_16_BIT_GAP;
        let shapes: Vec<KernelShape> = queries
            .iter()
            .map(|q| KernelShape::for_query(q.len()))
            .collect();
        let (major, minor) = device.capability;
        let ptx = compile(&shapes, &format!("compute_{major}{minor}"))?;
        let module = device.context.load_module(ptx)?;
        let stream = device.context.default_stream();
        let mut groups: Vec<ShapeGroup> = Vec::new();
        let mut slot_frames = Vec::with_capacity(queries.len());
        let mut distinct: Vec<KernelShape> = Vec::new();
        for shape in &shapes {
            if !distinct.contains(shape) {
                distinct.push(*shape);
            }
        }
        for shape in distinct {
            let frames: Vec<usize> = (0..queries.len()).filter(|&f| shapes[f] == shape).collect();
            let mut profiles = Vec::with_capacity(frames.len() * CODES * shape.profile_rows());
            for &f in &frames {
                profiles.extend(query_profile(scoring, queries[f], shape.profile_rows()));
            }
            groups.push(ShapeGroup {
                first_slot: slot_frames.len(),
                profiles: stream.clone_htod(&profiles)?,
                narrow: if narrow {
                    Some(module.load_function(&shape.kernel_name(2))?)
                } else {
                    None
                },
                wide: module.load_function(&shape.kernel_name(1))?,
                shape,
                len: frames.len(),
            });
            slot_frames.extend(frames);
        }
        stream.synchronize()?;
        Ok(Arc::new(GpuKernels {
            multipass: groups.iter().any(|g| g.shape.passes > 1),
            context: device.context.clone(),
            groups,
            slot_frames,
            first_gap: scoring.first_gap_cost(),
            extend: scoring.gap_extend(),
            threshold: i16::MAX as i32 - scoring.matrix().max_score().max(1),
            grid: device.multiprocessors * 16,
            boundary_budget: device.context.total_mem()? / 64,
        }))
    }

    /// The PTX of the kernels for queries of the given lengths, compiled for `arch`
    /// (e.g. "compute_90") without a GPU: checks that the source compiles.
    pub fn ptx(query_lengths: &[usize], arch: &str) -> Result<Ptx, GpuError> {
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(GpuError::NoCompiler);
        }
        let shapes: Vec<KernelShape> = query_lengths
            .iter()
            .map(|&length| KernelShape::for_query(length))
            .collect();
        compile(&shapes, arch)
    }
}

/// Compiles the kernels of `shapes` (each at 16 and 32 bits, once) for `arch`.
fn compile(shapes: &[KernelShape], arch: &str) -> Result<Ptx, GpuError> {
    let mut source = String::from(KERNELS);
    let mut compiled = std::collections::HashSet::new();
    for shape in shapes {
        if compiled.insert((shape.group, shape.rows)) {
            for pack in [1, 2] {
                source.push_str(&format!(
                    "SEQFARM_SW_KERNEL({pack}, {}, {})\n",
                    shape.group, shape.rows
                ));
            }
        }
    }
    cudarc::nvrtc::compile_ptx_with_opts(
        &source,
        CompileOptions {
            options: vec![format!("--gpu-architecture={arch}"), "--std=c++17".into()],
            name: Some("seqfarm_sw.cu".into()),
            ..Default::default()
        },
    )
    .map_err(|e| GpuError::Compile(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScoreMatrix;

    #[test]
    fn shapes_cover_the_query_with_few_padding_rows() {
        for length in [0usize, 1, 7, 144, 189, 375, 464, 2005, 5478, 40_000] {
            let shape = KernelShape::for_query(length);
            assert!(shape.profile_rows() >= length, "{length}: {shape:?}");
            assert!(shape.profile_rows() < length + 512, "{length}: {shape:?}");
            assert!([4, 8, 16, 32].contains(&shape.group));
            assert!([8, 16].contains(&shape.rows));
        }
        assert_eq!(KernelShape::for_query(0).passes, 1);
    }

    #[test]
    fn kernels_compile_where_nvrtc_is_present() {
        match GpuKernels::ptx(&[1, 144, 375, 2005, 5478, 40_000], "compute_90") {
            Ok(ptx) => {
                let ptx = ptx.to_src();
                assert!(ptx.contains("sw_p2_g"));
                if let Some(path) = std::env::var_os("SEQFARM_GPU_PTX") {
                    std::fs::write(path, ptx).unwrap();
                }
            }
            Err(GpuError::NoCompiler) => eprintln!("skipped: no NVRTC library to compile with"),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn the_profile_holds_matrix_rows_and_pads_with_low_scores() {
        let scoring = Scoring::new(ScoreMatrix::builtin("BLOSUM62").unwrap(), 11, 1).unwrap();
        let m = scoring.matrix();
        let query = m.encode(b"WCA");
        let profile = query_profile(&scoring, &query, 8);
        assert_eq!(profile.len(), CODES * 8);
        let w = m.code(b'W') as usize;
        assert_eq!(profile[w * 8], 11, "W against W");
        assert_eq!(profile[m.code(b'C') as usize * 8 + 1], 9, "C against C");
        assert_eq!(profile[w * 8 + 3], PAD_PROFILE, "rows past the query");
        assert_eq!(
            profile[PAD_CODE as usize * 8],
            PAD_PROFILE,
            "the padding code"
        );
    }
}
