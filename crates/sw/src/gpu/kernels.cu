// Smith-Waterman-Gotoh scoring of one query against many database sequences on an
// NVIDIA GPU (compiled at run time by NVRTC; seqfarm-sw's gpu module drives it).
//
// A *group* of G consecutive threads of a warp aligns the query against one database
// sequence (two at once with 16-bit lanes, PACK = 2, one in each half of a 32-bit
// register): thread t holds R consecutive query rows and sweeps the database sequence one
// column per step, a step behind thread t - 1, from which it receives (by warp shuffle)
// the H and F values of the row above its first. A query longer than the G * R rows of a
// group is done in passes; the last thread of a pass stores its bottom row's H and F per
// column for the first thread of the next pass (`boundary`, in place: a column is read
// before it is written over). Warps take work (32 / G groups) from an atomic counter, so
// the sequences, sorted longest first by the host, spread evenly over the GPU.
//
// The recurrence is the CPU kernels' (scalar.rs), in the order inter.rs computes it:
//   H = max(0, diag + s(q_i, d_j), E, F); E' = max(E - extend, H - first_gap);
//   F' = max(F - extend, H - first_gap)
// with Hopper's DPX instructions (__viaddmax: max(a + b, c); __vimax_relu: max(a, b, 0)),
// which other GPUs emulate.
//
// 16-bit lanes wrap rather than saturate, but a cell can only wrap from a value above
// 32767 - (the best substitution score), and every cell is at most the best score of its
// alignment: a sequence whose best reaches `threshold` is listed in `overflow` and
// rescored with 32-bit lanes, which are exact. The lower end cannot wrap: gaps subtract
// from values >= 0 and the host uses 16-bit lanes only when first_gap + extend < 16384.

typedef unsigned int u32;
#define FULL_MASK 0xffffffffu

template <int PACK> struct Lanes;

// One database sequence per thread group, 32-bit scores.
template <> struct Lanes<1> {
    typedef int T;
    static __device__ __forceinline__ T splat(int v) { return v; }
    static __device__ __forceinline__ T minus_infinity() { return -(1 << 28); }
    // The score of row r of the thread's slice: the profile holds 16-bit entries, two
    // rows per word.
    static __device__ __forceinline__ T score(const u32* a, const u32*, int r) {
        return (int)(short)(a[r >> 1] >> (16 * (r & 1)));
    }
    static __device__ __forceinline__ T cell(T diag, T s, T& e, T& f, T& best, T neg_first,
                                             T neg_extend, T) {
        T h = __vimax_s32_relu(__viaddmax_s32(diag, s, f), e);
        best = max(best, h);
        T opened = h + neg_first;
        e = __viaddmax_s32(e, neg_extend, opened);
        f = __viaddmax_s32(f, neg_extend, opened);
        return h;
    }
    static __device__ __forceinline__ T max_of(T a, T b) { return max(a, b); }
};

// Two database sequences per thread group, 16-bit scores in the halves of a word.
template <> struct Lanes<2> {
    typedef u32 T;
    static __device__ __forceinline__ T splat(int v) { return ((u32)v & 0xffffu) * 0x10001u; }
    static __device__ __forceinline__ T minus_infinity() { return 0xC000C000u; }
    // Row r's 16-bit entry for the first sequence's residue (from `a`) in the low half,
    // for the second's (from `b`) in the high half.
    static __device__ __forceinline__ T score(const u32* a, const u32* b, int r) {
        return __byte_perm(a[r >> 1], b[r >> 1], (r & 1) ? 0x7632 : 0x5410);
    }
    static __device__ __forceinline__ T cell(T diag, T s, T& e, T& f, T& best, T neg_first,
                                             T neg_extend, T floor) {
        T h = __vimax_s16x2_relu(__viaddmax_s16x2(diag, s, f), e);
        best = __vimax_s16x2_relu(best, h);
        T opened = __viaddmax_s16x2(h, neg_first, floor);
        e = __viaddmax_s16x2(e, neg_extend, opened);
        f = __viaddmax_s16x2(f, neg_extend, opened);
        return h;
    }
    static __device__ __forceinline__ T max_of(T a, T b) { return __vimax_s16x2_relu(a, b); }
};

// Loads R 16-bit profile entries (R / 2 words) from a 16-byte-aligned address.
template <int R>
__device__ __forceinline__ void load_profile(const short* __restrict__ p, u32* w) {
    const uint4* v = reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int k = 0; k < R / 8; ++k) {
        uint4 x = __ldg(v + k);
        w[4 * k] = x.x;
        w[4 * k + 1] = x.y;
        w[4 * k + 2] = x.z;
        w[4 * k + 3] = x.w;
    }
}

// The code of residue `column` of the sequence at `start` of length `len`, or the
// padding code past its end.
__device__ __forceinline__ u32 code_at(const unsigned char* __restrict__ residues, u32 start,
                                       u32 len, int column) {
    return (u32)column < len ? (u32)__ldg(residues + start + column) : 31u;
}

// Scores `frames` queries (frame f's profile at profiles + f * 32 * rows: for each of 32
// residue codes, `rows` 16-bit entries, the query's scores against that residue, padded
// with very low scores) against the sequences order[0 .. *count): sequence s is
// residues[starts[s] .. starts[s] + lengths[s]). Writes frame f's score of s to
// scores[f * *count + s], or (PACK = 2) appends s to frame f's overflow list (overflows +
// f * *count, its length at overflow_counts[3 * f]) when the score reaches `threshold`.
// Frame f's pass boundary is boundaries + f * boundary_stride. `next` must be 0 at launch.
// One launch covers many frames so that the longest sequences of all of them run at once,
// rather than each frame's longest one alone at the end of its own launch.
template <int PACK, int G, int R>
__device__ __forceinline__ void score_sequences(
    const unsigned char* __restrict__ residues, const u32* __restrict__ starts,
    const u32* __restrict__ lengths, const u32* __restrict__ order,
    const u32* __restrict__ count, const short* __restrict__ profiles, u32 rows,
    int first_gap, int extend, int threshold, int2* boundaries, int* __restrict__ all_scores,
    u32* __restrict__ overflows, u32* __restrict__ overflow_counts, u32* __restrict__ next,
    u32 frames, u32 boundary_stride) {
    typedef Lanes<PACK> L;
    typedef typename L::T T;
    const int lane = threadIdx.x & 31;
    const int t = lane % G;
    const int group = lane / G;
    const u32 total = *count;
    const u32 per_item = (32 / G) * PACK;
    const u32 items = (total + per_item - 1) / per_item;
    const u32 passes = rows / (G * R);
    const T neg_first = L::splat(-first_gap);
    const T neg_extend = L::splat(-extend);
    const T minus_inf = L::minus_infinity();
    const T floor = L::splat(-16384);
    for (;;) {
        u32 item = 0;
        if (lane == 0) item = atomicAdd(next, 1u);
        item = __shfl_sync(FULL_MASK, item, 0);
        // Items go round the frames, so every frame's longest sequences come first.
        const u32 frame = item % frames;
        if (item / frames >= items) break;
        const u32 first = item / frames * per_item;
        const short* profile = profiles + (size_t)frame * 32 * rows;
        int* scores = all_scores + (size_t)frame * total;
        u32* overflow = overflows + (size_t)frame * total;
        u32* overflow_count = overflow_counts + 3 * frame;
        int2* boundary = boundaries + (size_t)frame * boundary_stride;
        u32 seq[PACK], start[PACK], len[PACK];
        u32 columns = 0;
#pragma unroll
        for (int p = 0; p < PACK; ++p) {
            const u32 k = first + group * PACK + p;
            const bool real = k < total;
            seq[p] = real ? order[k] : 0xffffffffu;
            start[p] = real ? starts[seq[p]] : 0;
            len[p] = real ? lengths[seq[p]] : 0;
            columns = max(columns, len[p]);
        }
        const u32 steps = __reduce_max_sync(FULL_MASK, columns) + G - 1;
        // Where this group's pass boundary lives: its longest sequence's residues.
        u32 home = start[0];
#pragma unroll
        for (int p = 1; p < PACK; ++p) home = len[p] > len[0] ? start[p] : home;
        int2* edge = boundary + home;
        T best = 0;
        for (u32 pass = 0; pass < passes; ++pass) {
            const u32 row0 = pass * (G * R) + t * R;
            T left[R], e[R];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                left[r] = 0;
                e[r] = minus_inf;
            }
            T out_h = 0, out_f = minus_inf, diag_in = 0;
            for (u32 step = 0; step < steps; ++step) {
                T in_h = __shfl_up_sync(FULL_MASK, out_h, 1, G);
                T in_f = __shfl_up_sync(FULL_MASK, out_f, 1, G);
                const int j = (int)step - t;
                if (j >= 0 && j < (int)columns) {
                    if (t == 0) {
                        if (pass == 0) {
                            in_h = 0;
                            in_f = minus_inf;
                        } else {
                            const int2 b = edge[j];
                            in_h = (T)b.x;
                            in_f = (T)b.y;
                        }
                    }
                    u32 wa[R / 2], wb[R / 2];
                    load_profile<R>(profile + code_at(residues, start[0], len[0], j) * rows + row0, wa);
                    if (PACK == 2)
                        load_profile<R>(
                            profile + code_at(residues, start[PACK - 1], len[PACK - 1], j) * rows + row0,
                            wb);
                    T diag = diag_in, f = in_f;
#pragma unroll
                    for (int r = 0; r < R; ++r) {
                        const T h = L::cell(diag, L::score(wa, wb, r), e[r], f, best, neg_first,
                                            neg_extend, floor);
                        diag = left[r];
                        left[r] = h;
                    }
                    out_h = left[R - 1];
                    out_f = f;
                    diag_in = in_h;
                    if (t == G - 1 && pass + 1 < passes) edge[j] = make_int2((int)out_h, (int)out_f);
                }
            }
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2)
            best = L::max_of(best, __shfl_xor_sync(FULL_MASK, best, offset, G));
        if (t == 0) {
#pragma unroll
            for (int p = 0; p < PACK; ++p) {
                if (seq[p] == 0xffffffffu) continue;
                const int value = PACK == 1 ? (int)best : (int)(short)((u32)best >> (16 * p));
                if (PACK == 2 && value >= threshold) {
                    overflow[atomicAdd(overflow_count, 1u)] = seq[p];
                } else {
                    scores[seq[p]] = value;
                }
            }
        }
    }
}

#define SEQFARM_SW_PARAMS                                                                  \
    const unsigned char *residues, const u32 *starts, const u32 *lengths, const u32 *order, \
        const u32 *count, const short *profiles, u32 rows, int first_gap, int extend,       \
        int threshold, int2 *boundaries, int *scores, u32 *overflows, u32 *overflow_counts, \
        u32 *next, u32 frames, u32 boundary_stride
#define SEQFARM_SW_ARGS                                                                      \
    residues, starts, lengths, order, count, profiles, rows, first_gap, extend, threshold,   \
        boundaries, scores, overflows, overflow_counts, next, frames, boundary_stride

// The host appends one line per kernel it needs, e.g. SEQFARM_SW_KERNEL(2, 8, 16), which
// defines `sw_p2_g8_r16`.
#define SEQFARM_SW_KERNEL(PACK, G, R)                                                 \
    extern "C" __global__ void __launch_bounds__(128) sw_p##PACK##_g##G##_r##R(     \
        SEQFARM_SW_PARAMS) {                                                          \
        score_sequences<PACK, G, R>(SEQFARM_SW_ARGS);                                 \
    }
