/* kopt:
{
  "name": "gen",
  "description": "Generator seed: dot's integer arithmetic (x as fixed point in byte planes in shared memory, nibbles masked into bytes, dp4a / v_dot4, int32 sums) under orthogonal structural knobs the search can move one at a time. DEPTH: 16-byte weight loads per lane and column issued before their first use (a ring of register stages refilled as each is consumed, and refilled with the next tile's first stages while the last ones are consumed). ROWS: columns per lane group (x read from shared memory, or converted in registers, once for all of them; 3 and 6 let a narrow N make one tile per SM or two; 8 and 12 share one conversion of x among more columns, which pays where a block has a single tile). LPR: lanes per lane group (a warp holds WARP / LPR groups). KSPLIT: warps of a block that split K for the same columns, added in a fixed order through shared memory (3, 5, 6 and 7 fit K of 96, 160, 192 or 224 chunks of 32 exactly, 9 fits 144 chunks in lane groups of 16: one chunk per lane with XREG). SPLIT: slices of K across the grid; the last block of a tile adds the slices in order (one launch, deterministic). OCC: blocks per SM before blocks become persistent and loop over tiles (64: one tile per block). HINT: cache policy of the weight stream (0 read-only path, 1 no L1 allocation, 2 no L1 allocation plus 256-byte L2 fetches). XREG: 1 keeps x in registers instead: each lane converts its own single chunk straight from global memory (no shared-memory prologue, no barrier before the first sums; needs KSPLIT and SPLIT to cut K into parts of at most LPR chunks), and the ring of DEPTH slots then spans successive tiles. XPF: 1 reads the next step's x from shared memory while the current step is computed. XBITS: fixed-point width of x, 24 (three byte planes, x rounded to 2^-22 of the largest x of its 32-value chunk) or 16 (two planes: a third fewer dp4a and shared-memory reads, x rounded to 2^-15 of its chunk's largest, far inside the 1e-2 rule). WARPS: warps per block. MINB: blocks per SM the compiler must fit (0: its own register budget; 2-4: launch bounds, fewer registers and more warps resident, possibly spills; NVIDIA only, otherwise as 0). DOT: 1 multiplies the high nibbles in place (16·q, no shift: a third fewer integer-ALU instructions per nibble word, the busiest pipe) with a signed-by-unsigned dp4a, where the GPU has one (NVIDIA) and x has two planes; otherwise as 0. XMAX: 1 takes the largest |x| of a chunk (its exponent) in half2 arithmetic, two values per instruction off the integer ALU, where the headers have __hmax2 (NVIDIA); otherwise as 0. SHAPE: 1 uses the sizes the kernel is built for (KOPT_SHAPE_K, _N, _G) as constants instead of its arguments, so divisions, tile counts and addresses fold at compile time; a build for any shape (the library's generic variants) defines none and reads the arguments. SCHED: 0 tiles of columns per block; 1 stream-K: the (column group, K step) units are divided evenly among all warps of the grid, so every warp finishes together whatever N is; a column cut between warps is finished by the last of them, which adds the pieces in order (deterministic).",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + N * (K / G) * 4",
  "launches": [{"kernel": "gemv",
                "grid": ["min(cdiv(N, (WARPS / KSPLIT) * (WARP / LPR) * ROWS), max(1, SMS * OCC / SPLIT))", "SPLIT"],
                "block": ["WARPS * WARP"],
                "shared_bytes": "(1 - XREG) * cdiv(K / 32, SPLIT) * (XBITS * 4 + 16) + WARPS * (WARP / LPR) * ROWS * 4"}],
  "workspace_bytes": "SPLIT * N * 4 + cdiv(N, (WARPS / KSPLIT) * (WARP / LPR) * ROWS) * 4 + SCHED * cdiv(N, ROWS) * (cdiv(K / 32, WARP) * ROWS + 1) * 4",
  "requires": ["K % 32 == 0", "G % 32 == 0", "LPR <= WARP", "WARPS % KSPLIT == 0",
               "SCHED == 0 || (LPR == WARP && KSPLIT == 1 && SPLIT == 1 && XPF == 0)",
               "XREG == 0 || (SCHED == 0 && XPF == 0 && cdiv(cdiv(K / 32, SPLIT), KSPLIT) <= LPR)",
               "(1 - XREG) * cdiv(K / 32, SPLIT) * (XBITS * 4 + 16) + WARPS * (WARP / LPR) * ROWS * 4 <= 49152"],
  "params": {
    "DEPTH":  {"values": [1, 2, 3, 4, 6, 8], "default": 4},
    "ROWS":   {"values": [1, 2, 3, 4, 6, 8, 12], "default": 2},
    "LPR":    {"values": [4, 8, 16, 32, 64], "default": 32},
    "WARPS":  {"values": [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16], "default": 4},
    "KSPLIT": {"values": [1, 2, 3, 4, 5, 6, 7, 8, 9], "default": 1},
    "SPLIT":  {"values": [1, 2, 3, 4, 6, 8], "default": 1},
    "OCC":    {"values": [1, 2, 3, 4, 6, 8, 16, 64], "default": 2},
    "HINT":   {"values": [0, 1, 2], "default": 1},
    "SCHED":  {"values": [0, 1], "default": 0},
    "XPF":    {"values": [0, 1], "default": 0},
    "XREG":   {"values": [0, 1], "default": 0},
    "XBITS":  {"values": [24, 16], "default": 24},
    "MINB":   {"values": [0, 2, 3, 4], "default": 0},
    "DOT":    {"values": [0, 1], "default": 0},
    "XMAX":   {"values": [0, 1], "default": 0},
    "SHAPE":  {"values": [0, 1], "default": 0}
  }
}
*/
// x is read and y written through the dtype hooks (KOPT_X_PAIR, KOPT_Y_STORE;
// the device prelude), so the library builds this kernel for other dtypes too.
// KOPT_X_FP16 0 says x is bf16, so XMAX takes the largest |x| in bf16 pairs.

// Packed layout (as dot): q bytes exactly as canonical ([N][K/2], low nibble
// = even k), then half2 (scale, offset) [N][K/G] after a 256-byte boundary.

KOPT_INLINE const __half2* packed_scale_offset(const kopt_u8* w, int K, int N) {
  return reinterpret_cast<const __half2*>(w + kopt_align256((kopt_u64)N * (K / 2)));
}

KOPT_KERNEL void relayout(const kopt_u8* __restrict__ canonical, kopt_u8* __restrict__ packed,
                          int K, int N, int G) {
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;
  const kopt_u64 groups = (kopt_u64)N * (K / G);
  const kopt_u64 words = (kopt_u64)N * (K / 2) / 16;
  const kopt_u64 threads = (kopt_u64)gridDim.x * blockDim.x;
  for (kopt_u64 t = i; t < words; t += threads)
    reinterpret_cast<uint4*>(packed)[t] = reinterpret_cast<const uint4*>(canonical)[t];
  if (i < groups) {
    __half2* so = const_cast<__half2*>(packed_scale_offset(packed, K, N));
    so[i] = __halves2half2(kopt_canonical_scales(canonical, K, N, G)[i],
                           kopt_canonical_offsets(canonical, K, N, G)[i]);
  }
}

// x in shared memory, chunk c (32 values, k = 32c + 8j + i) at c * XSTRIDE
// words: for each j, 2·XPLANES words: the byte planes (low first) of the
// fixed-point x for even k and odd k (the byte order of the masked nibbles);
// then Σx and the chunk's scale 2^(E - XFRAC). 28 (or 20) words, so eight
// consecutive lanes' 16-byte reads fall on distinct banks.
#define XPLANES (XBITS / 8)
// DOT 1's path: only with two planes (the sums stay below 2^28) and a
// mixed-sign dp4a (gfx906 has none and compiles DOT 0's path).
#if DOT == 1 && XPLANES == 2 && defined(KOPT_NVIDIA)
#define ODD_IN_PLACE 1
#else
#define ODD_IN_PLACE 0
#endif
#define XWORDS (XPLANES * 8)
#define XSTRIDE (XWORDS + 4)
#define XLOADS 4

KOPT_INLINE uint4 load_weights(const kopt_u8* p) {
#if HINT == 0
  return kopt_load_stream16(p);
#elif HINT == 1
  return kopt_load16_no_l1(p);
#else
  return kopt_load16_no_l1_l2_256(p);
#endif
}

// Σ X·q over the 32 nibbles of one uint4, X the fixed-point x: exact in int32
// (the byte planes keep every partial sum below 2^31), returned as float
// (16 times it with ODD_IN_PLACE).
KOPT_INLINE float dot32(const uint4 q, const kopt_u32* p) {
  const kopt_u32 words[4] = {q.x, q.y, q.z, q.w};
#if ODD_IN_PLACE
  // Odd nibbles masked in place are 16·q (at most 240: unsigned bytes), so
  // their sums come 16 times too large; the even ones are scaled to match
  // and chunk_meta's unit carries the 1/16. 16·Σ X·q is a multiple of 16
  // below 2^28 in magnitude: exact in int32 and in float.
  kopt_u32 lo_even = 0, lo_odd = 0;
  int hi_even = 0, hi_odd = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const kopt_u32 even = words[j] & 0x0F0F0F0Fu, odd16 = words[j] & 0xF0F0F0F0u;
    const kopt_u32* pj = p + 4 * j;
    lo_even = kopt_dot4_u8(pj[0], even, lo_even);
    lo_odd = kopt_dot4_u8(pj[1], odd16, lo_odd);
    hi_even = kopt_dot4_s8((int)pj[2], (int)even, hi_even);
    hi_odd = kopt_dot4_s8u8((int)pj[3], odd16, hi_odd);
  }
  return (float)(4096 * hi_even + 16 * (int)lo_even + 256 * hi_odd + (int)lo_odd);
#else
  kopt_u32 lo = 0;
#if XPLANES == 3
  kopt_u32 mid = 0;
#endif
  int hi = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const kopt_u32 even = words[j] & 0x0F0F0F0Fu, odd = (words[j] >> 4) & 0x0F0F0F0Fu;
    const kopt_u32* pj = p + 2 * XPLANES * j;
    lo = kopt_dot4_u8(pj[0], even, lo);
    lo = kopt_dot4_u8(pj[1], odd, lo);
#if XPLANES == 3
    mid = kopt_dot4_u8(pj[2], even, mid);
    mid = kopt_dot4_u8(pj[3], odd, mid);
#endif
    hi = kopt_dot4_s8((int)pj[2 * XPLANES - 2], (int)even, hi);
    hi = kopt_dot4_s8((int)pj[2 * XPLANES - 1], (int)odd, hi);
  }
#if XPLANES == 3
  return (float)hi * 65536.f + (float)(int)(lo + (mid << 8));
#else
  // |hi·256 + lo| < 2^24: exact in int32 and in float.
  return (float)(hi * 256 + (int)lo);
#endif
#endif
}

// The planes of chunk c (XWORDS words) and its (Σx, 2^(E-XFRAC)).
struct XPlanes {
  kopt_u32 p[XWORDS];
  float2 meta;
};
KOPT_INLINE XPlanes read_x(const kopt_u32* xs, int c) {
  XPlanes out;
  const uint4* xv = reinterpret_cast<const uint4*>(xs + c * XSTRIDE);
#pragma unroll
  for (int v = 0; v < XWORDS / 4; ++v) {
    const uint4 f = xv[v];
    out.p[4 * v] = f.x;
    out.p[4 * v + 1] = f.y;
    out.p[4 * v + 2] = f.z;
    out.p[4 * v + 3] = f.w;
  }
  out.meta = reinterpret_cast<const float2*>(xs + c * XSTRIDE + XWORDS)[0];
  return out;
}

// One step of ROWS columns into their sums: Σ x·(s·q + o) = s·Σ x·q + o·Σ x
// over the step's 32 values, with its scale/offset pair per column.
KOPT_INLINE void accumulate_step(float* part, const uint4* q, const __half2* so, const XPlanes& x) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const float2 sof = __half22float2(so[r]);
    part[r] += sof.x * (dot32(q[r], x.p) * x.meta.y) + sof.y * x.meta.x;
  }
}

// x as fixed point: X = round(x·2^(XFRAC−E)), E the exponent of the largest
// |x| of its 32-value chunk (at least −14, fp16's smallest normal), so
// |X| < 2^(XFRAC+1): 2^15 with two planes; 2^22 with three, where the
// rounding below stops being exact.
#if XPLANES == 2
#define XFRAC 14
#else
#define XFRAC 21
#endif

// The eight fp16 of one uint4 as floats.
KOPT_INLINE void half8_to_float(const uint4 h, float* v) {
  const kopt_u32 hw[4] = {h.x, h.y, h.z, h.w};
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float2 f = KOPT_X_PAIR(*reinterpret_cast<const __half2*>(&hw[e]));
    v[2 * e] = f.x;
    v[2 * e + 1] = f.y;
  }
}

// The largest |x| of n uint4 of fp16 (h) already converted to floats (v).
// With XMAX on NVIDIA from the halves, two per instruction (a maximum is
// exact, so it equals the one over the floats) instead of one float per
// integer-ALU instruction; otherwise from the floats (HIP's headers for
// gfx906 have no __hmax2). A bf16 x (KOPT_X_FP16 0) is taken in bf16 pairs
// the same way.
#if XMAX == 1 && defined(KOPT_NVIDIA)
#define XMAX_HALF2 1
#if KOPT_X_FP16
typedef __half2 XMaxPair;
#else
typedef __nv_bfloat162 XMaxPair;
#endif
#else
#define XMAX_HALF2 0
#endif
KOPT_INLINE float largest_abs(const uint4* h, const float* v, int n) {
#if XMAX_HALF2
  XMaxPair m = __habs2(*reinterpret_cast<const XMaxPair*>(&h[0].x));
#pragma unroll
  for (int i = 0; i < n; ++i) {
    const kopt_u32 hw[4] = {h[i].x, h[i].y, h[i].z, h[i].w};
#pragma unroll
    for (int e = 0; e < 4; ++e) m = __hmax2(m, __habs2(*reinterpret_cast<const XMaxPair*>(&hw[e])));
  }
  return fmaxf(__low2float(m), __high2float(m));
#else
  float m = 0.f;
#pragma unroll
  for (int i = 0; i < 8 * n; ++i) m = fmaxf(m, fabsf(v[i]));
  return m;
#endif
}

// E of a chunk from its largest |x| (zeros and subnormals scale like fp16's
// smallest normal; a bf16 chunk whose largest |x| is below 2^-14 then rounds
// to multiples of 2^-28, far inside the 1e-2 rule, and a chunk of values
// below 2^-29 to zeros).
KOPT_INLINE int chunk_exponent(float largest) {
  return max((__float_as_int(largest) >> 23) - 127, -14);
}

// Rounds eight x (k = 8j + i, i = 0..7) to X and writes their byte planes in
// the shared-memory order (per plane, low first: even k, then odd k); returns
// ΣX. Adding 1.5·2^23 rounds to the nearest integer (ties to even, as
// __float2int_rn) and leaves X in the low bits of the float, an FFMA and byte
// permutes instead of a conversion and shifts per value.
KOPT_INLINE int fixed_planes(const float* v, int E, kopt_u32* planes) {
  const float to_fixed = __int_as_float((127 + XFRAC - E) << 23);  // 2^(XFRAC−E), exact
  kopt_u32 b[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    b[i] = __float_as_uint(__fmaf_rn(v[i], to_fixed, 12582912.f));
#if XPLANES == 3
    b[i] -= 0x4B400000u;  // X in two's complement (for two planes its low 16 bits already are)
#endif
  }
#pragma unroll
  for (int odd = 0; odd < 2; ++odd) {
    const kopt_u32 v0 = b[odd], v1 = b[2 + odd], v2 = b[4 + odd], v3 = b[6 + odd];
#if XPLANES == 2
    const kopt_u32 pa = __byte_perm(v0, v1, 0x5410), pb = __byte_perm(v2, v3, 0x5410);
    planes[odd] = __byte_perm(pa, pb, 0x6420);
    planes[2 + odd] = __byte_perm(pa, pb, 0x7531);
#else
#pragma unroll
    for (int pl = 0; pl < 3; ++pl) {
      const kopt_u32 sel = pl | ((pl + 4) << 4);
      planes[2 * pl + odd] = __byte_perm(__byte_perm(v0, v1, sel), __byte_perm(v2, v3, sel), 0x5410);
    }
#endif
  }
  // ΣX from the planes: the high plane signed, the others unsigned.
  const int ones = 0x01010101;
  int sum = kopt_dot4_s8((int)planes[2 * XPLANES - 2], ones,
                         kopt_dot4_s8((int)planes[2 * XPLANES - 1], ones, 0));
#if XPLANES == 3
  sum = 256 * sum + (int)kopt_dot4_u8(planes[2], ones, kopt_dot4_u8(planes[3], ones, 0u));
#endif
  return 256 * sum + (int)kopt_dot4_u8(planes[0], ones, kopt_dot4_u8(planes[1], ones, 0u));
}

// A chunk's (Σx, 2^(E−XFRAC)) from its ΣX, as the sums use it.
KOPT_INLINE float2 chunk_meta(int sum, int E) {
  const float unit = __int_as_float((127 + E - XFRAC) << 23);  // 2^(E−XFRAC), exact
  // With ODD_IN_PLACE dot32 returns 16 times the sum: its unit is 2^-4 less.
  return make_float2((float)sum * unit, ODD_IN_PLACE ? unit * 0.0625f : unit);
}

// This thread's fp16 x for one round of convert_x (XLOADS uint4).
KOPT_INLINE void load_x(const __half* __restrict__ x, int c_begin, int c_end, int round_begin,
                        uint4* h) {
  const int xvecs = (c_end - c_begin) * 4;
  const uint4* xv_global = reinterpret_cast<const uint4*>(x) + c_begin * 4;
#pragma unroll
  for (int t = 0; t < XLOADS; ++t) {
    const int i = round_begin + t * blockDim.x + threadIdx.x;
    h[t] = i < xvecs ? xv_global[i] : make_uint4(0, 0, 0, 0);
  }
}

// Converts chunks [c_begin, c_end) of x into the planes at xs (all threads of
// the block take part; h holds the first round, from load_x). Four
// consecutive threads hold one chunk.
KOPT_INLINE void convert_x(const __half* __restrict__ x, kopt_u32* xs, int c_begin, int c_end,
                           uint4* h) {
  const int xvecs = (c_end - c_begin) * 4;
  const int warp_first = threadIdx.x & ~(KOPT_WARP_SIZE - 1);
  for (int round_begin = 0; round_begin < xvecs; round_begin += XLOADS * blockDim.x) {
    if (round_begin > 0) load_x(x, c_begin, c_end, round_begin, h);
#pragma unroll
    for (int t = 0; t < XLOADS; ++t) {
      // Whole warps past the end stop (the shuffles need whole warps).
      if (round_begin + t * (int)blockDim.x + warp_first >= xvecs) break;
      const int i = round_begin + t * blockDim.x + threadIdx.x;
      float v[8];
      half8_to_float(h[t], v);
      float largest = largest_abs(&h[t], v, 1);
      largest = fmaxf(largest, kopt_shfl_xor(largest, 1));
      largest = fmaxf(largest, kopt_shfl_xor(largest, 2));
      const int E = chunk_exponent(largest);
      kopt_u32 planes[2 * XPLANES];
      int sum = fixed_planes(v, E, planes);
      sum += kopt_shfl_xor(sum, 1);
      sum += kopt_shfl_xor(sum, 2);
      if (i < xvecs) {
        kopt_u32* dst = xs + (i / 4) * XSTRIDE + (i % 4) * 2 * XPLANES;
#pragma unroll
        for (int b = 0; b < XPLANES; ++b)
          reinterpret_cast<uint2*>(dst)[b] = make_uint2(planes[2 * b], planes[2 * b + 1]);
        if (i % 4 == 0)
          reinterpret_cast<float2*>(xs + (i / 4) * XSTRIDE + XWORDS)[0] = chunk_meta(sum, E);
      }
    }
  }
}

// One lane converts one whole chunk (its 32 x as four uint4) into planes in
// registers, with exactly the numbers of convert_x (zeros give zero planes).
KOPT_INLINE XPlanes convert_chunk(const uint4* h) {
  XPlanes out;
  float v[32];
#pragma unroll
  for (int j = 0; j < 4; ++j) half8_to_float(h[j], v + 8 * j);
  const int E = chunk_exponent(largest_abs(h, v, 4));
  int sum = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j) sum += fixed_planes(v + 8 * j, E, out.p + 2 * XPLANES * j);
  out.meta = chunk_meta(sum, E);
  return out;
}

// Columns of a lane group rounded up to a power of two: the lane-group sums
// spread the columns over the lanes where they fit (finish_tile).
#define ROWS_POW2 (ROWS <= 1 ? 1 : ROWS <= 2 ? 2 : ROWS <= 4 ? 4 : ROWS <= 8 ? 8 : 16)
#define SPREAD_SUMS (ROWS_POW2 <= LPR)

// SHAPE 1: the sizes this build is for, where it is for one shape (kopt
// builds per shape and defines KOPT_SHAPE_*), replace the arguments, which
// equal them: the compiler then folds the divisions, tile counts and column
// addresses the arguments would leave to run time.
KOPT_INLINE void fold_shape_sizes(int& K, int& N, int& G) {
#if SHAPE == 1 && defined(KOPT_SHAPE_K) && defined(KOPT_SHAPE_N) && defined(KOPT_SHAPE_G)
  K = KOPT_SHAPE_K;
  N = KOPT_SHAPE_N;
  G = KOPT_SHAPE_G;
#else
  (void)K, (void)N, (void)G;
#endif
}

// MINB 0 leaves the register budget to the compiler: an explicit minimum of
// one block lets it use up to 255 registers (measured: 182 and a third
// slower on 7168x9216). NVIDIA only (the prelude's KOPT_LAUNCH_BOUNDS).
#if MINB > 0
#define GEMV_LAUNCH_BOUNDS KOPT_LAUNCH_BOUNDS(WARPS * KOPT_WARP_SIZE, MINB)
#else
#define GEMV_LAUNCH_BOUNDS __launch_bounds__(WARPS * KOPT_WARP_SIZE)
#endif

#if SCHED == 0
KOPT_KERNEL void GEMV_LAUNCH_BOUNDS
    gemv(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y,
         float* __restrict__ ws, int K, int N, int G) {
  fold_shape_sizes(K, N, G);
  extern __shared__ kopt_u32 xs[];
  __shared__ int last_of_tile;
  // The block's slice of K (all of it when SPLIT is 1), in 32-value chunks.
  const int chunks = K / 32;
  const int per_split = (chunks + SPLIT - 1) / SPLIT;
  const int s_begin = blockIdx.y * per_split;
  const int s_end = min(chunks, s_begin + per_split);
  float* partials = reinterpret_cast<float*>(xs + (XREG ? 0 : per_split * XSTRIDE));
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int warp = threadIdx.x / KOPT_WARP_SIZE;
  // Warps split the block's slice KSPLIT ways; lane groups of LPR lanes each
  // take ROWS columns.
  const int kpart = warp % KSPLIT;
  const int colwarp = warp / KSPLIT;
  const int sub = lane / LPR, sl = lane % LPR;
  const int per_kpart = (s_end - s_begin + KSPLIT - 1) / KSPLIT;
  const int c_begin = min(s_end, s_begin + kpart * per_kpart);
  const int c_end = min(s_end, c_begin + per_kpart);
  const int groups_per_warp = KOPT_WARP_SIZE / LPR;
  const int cols_per_tile = (WARPS / KSPLIT) * groups_per_warp * ROWS;
  const int tiles = (N + cols_per_tile - 1) / cols_per_tile;
  const int local_col0 = (colwarp * groups_per_warp + sub) * ROWS;
  const __half2* so_base = packed_scale_offset(w, K, N);
  const int gshift = (G & (G - 1)) == 0 ? __ffs(G) - 1 : -1;
  const int groups_per_col = K / G;

  uint4 q[DEPTH][ROWS];
  __half2 so[DEPTH][ROWS];
  auto group_of = [&](int c) { return gshift >= 0 ? (c * 32) >> gshift : (c * 32) / G; };
  float part[ROWS];
  auto tile_active = [&](int tile) { return tile < tiles && tile * cols_per_tile + local_col0 < N; };
  // Adds the lanes' sums of one tile and writes them: to y, or (SPLIT > 1)
  // to this slice's row of the workspace (added up by add_slices).
  auto finish_tile = [&](int tile, bool active) {
      const int col0 = tile * cols_per_tile + local_col0;
  #if SPREAD_SUMS
      // Each of the first log2(ROWS_POW2) steps halves the values a lane
      // holds: the upper half of the step's lanes keep the upper half of the
      // columns and send the lower half, the others the reverse, so a
      // column's sum moves once per step instead of every column at every
      // step (ROWS_POW2 - 1 shuffles where ROWS·log2(LPR) were). Lane sl then
      // holds column sl / (LPR / ROWS_POW2); the plain steps finish it.
      float v[ROWS_POW2];
  #pragma unroll
      for (int r = 0; r < ROWS_POW2; ++r) v[r] = r < ROWS ? part[r] : 0.f;
  #pragma unroll
      for (int step = 1; (ROWS_POW2 >> step) >= 1; ++step) {
        const int n = ROWS_POW2 >> step, m = LPR >> step;
        const bool upper = (sl & m) != 0;
  #pragma unroll
        for (int i = 0; i < n; ++i) {
          const float send = upper ? v[i] : v[i + n];
          const float keep = upper ? v[i + n] : v[i];
          v[i] = keep + kopt_shfl_xor(send, m);
        }
      }
  #pragma unroll
      for (int m = LPR / (2 * ROWS_POW2); m > 0; m >>= 1) v[0] += kopt_shfl_xor(v[0], m);
      // Lane sl ends with the total of column `row` of its group; one lane
      // per column writes.
      const float total = v[0];
      const int row = sl / (LPR / ROWS_POW2);
      const bool writer = sl % (LPR / ROWS_POW2) == 0 && row < ROWS;
  #else
      // More columns than lanes: every column through every step; lane 0
      // writes them all.
  #pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        float v = part[r];
  #pragma unroll
        for (int m = LPR / 2; m > 0; m >>= 1) v += kopt_shfl_xor(v, m);
        part[r] = v;
      }
      const bool writer = sl == 0;
  #endif
      // Writes the group's columns below `columns` to dst[first + column]:
      // with SPREAD_SUMS one per writing lane, else lane 0 all of them.
      // `partial`: dst is fp32 (shared memory or the workspace), not y.
      auto write_columns = [&](float* dst, kopt_u64 first, int columns, bool partial) {
        if (!writer) return;
  #if SPREAD_SUMS
        if (row < columns) KOPT_Y_STORE(dst, first + row, total, partial);
  #else
  #pragma unroll
        for (int r = 0; r < ROWS; ++r)
          if (r < columns) KOPT_Y_STORE(dst, first + r, part[r], partial);
  #endif
      };
      if (KSPLIT == 1) {
        if (active) {
          if (SPLIT == 1)
            write_columns(y, col0, N - col0, false);
          else
            write_columns(ws, (kopt_u64)blockIdx.y * N + col0, N - col0, true);
        }
      } else {
        // K parts in a fixed order: deterministic.
        const int local = (colwarp * groups_per_warp + sub) * ROWS;
        write_columns(partials, kpart * cols_per_tile + local, ROWS, true);
        __syncthreads();
        for (int i = threadIdx.x; i < cols_per_tile; i += blockDim.x) {
          const int col = tile * cols_per_tile + i;
          if (col >= N) continue;
          float v = 0.f;
          for (int s = 0; s < KSPLIT; ++s) v += partials[s * cols_per_tile + i];
          if (SPLIT == 1) KOPT_Y_STORE(y, col, v, false);
          else ws[(kopt_u64)blockIdx.y * N + col] = v;
        }
        __syncthreads();  // partials are rewritten by the next tile
      }
  };

  // SPLIT > 1: once all its tiles are written (so the fence waits for no
  // weight load still in flight), the block takes a ticket per tile; the last
  // of a tile's SPLIT blocks adds the slices in order (deterministic) and
  // rearms the ticket.
  auto add_slices = [&]() {
    if (SPLIT == 1) return;
    int* tickets = reinterpret_cast<int*>(ws + (kopt_u64)SPLIT * N);
    __threadfence();
    __syncthreads();
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      if (threadIdx.x == 0) {
        last_of_tile = atomicAdd(&tickets[tile], 1) == SPLIT - 1;
        if (last_of_tile) tickets[tile] = 0;
      }
      __syncthreads();
      if (last_of_tile) {
        __threadfence();
        const volatile float* slices = ws;  // written by other blocks: not from L1
        const int first = tile * cols_per_tile;
        const int end = min(N, first + cols_per_tile);
        for (int n = first + threadIdx.x; n < end; n += blockDim.x) {
          float v = 0.f;
#pragma unroll
          for (int s = 0; s < SPLIT; ++s) v += slices[(kopt_u64)s * N + n];
          KOPT_Y_STORE(y, n, v, false);
        }
      }
      __syncthreads();  // last_of_tile is rewritten for the next tile
    }
  };

#if XREG == 0
  // Steps of this lane: chunks c_begin + sl + t * LPR for t < steps.
  const int steps = c_begin + sl < c_end ? (c_end - c_begin - sl + LPR - 1) / LPR : 0;
  const kopt_u8* qp[ROWS];
  const __half2* sop[ROWS];
  auto point_at = [&](int tile) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      // Columns past N read column N-1 (valid memory) and are not written.
      const int col = min(tile * cols_per_tile + local_col0 + r, N - 1);
      qp[r] = w + (kopt_u64)col * (K / 2) + (kopt_u64)(c_begin + sl) * 16;
      sop[r] = so_base + (kopt_u64)col * groups_per_col;
    }
  };
  auto chunk_of = [&](int t) { return c_begin + sl + t * LPR; };
  auto load = [&](int d, int t) {
    const int g = group_of(chunk_of(t));
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      q[d][r] = load_weights(qp[r] + t * (LPR * 16));
      so[d][r] = sop[r][g];
    }
  };
  // x of one step from shared memory; with XPF the next step's x is read
  // while this one is computed (shared-memory latency hidden at the price of
  // 26 registers).
#if XPF
  XPlanes xp = {};
#endif
  auto consume = [&](int d, int t) {
#if XPF
    const XPlanes xc = xp;
    if (t + 1 < steps) xp = read_x(xs, chunk_of(t + 1) - s_begin);
#else
    const XPlanes xc = read_x(xs, chunk_of(t) - s_begin);
#endif
    accumulate_step(part, q[d], so[d], xc);
  };
  // The first stages go out before x is loaded and converted, so the
  // prologue hides under their latency (x first was measured slower: the
  // weight stream starts later).
  if (tile_active(blockIdx.x)) {
    point_at(blockIdx.x);
#pragma unroll
    for (int d = 0; d < DEPTH; ++d)
      if (d < steps) load(d, d);
  }
  uint4 xh[XLOADS];
  load_x(x, s_begin, s_end, 0, xh);
  convert_x(x, xs, s_begin, s_end, xh);
  __syncthreads();

  // The tile loop's condition is the same for the whole block (KSPLIT and
  // SPLIT synchronise the block once per tile).
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const bool active = tile_active(tile);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) part[r] = 0.f;
    if (active) {
#if XPF
      if (steps > 0) xp = read_x(xs, chunk_of(0) - s_begin);
#endif
      int t = 0;
      for (; t + DEPTH <= steps; t += DEPTH) {
#pragma unroll
        for (int d = 0; d < DEPTH; ++d) {
          consume(d, t + d);
          if (t + d + DEPTH < steps) load(d, t + d + DEPTH);
        }
      }
      // Every load of this tile is out: the slots refill with the next
      // tile's first stages as the last ones are consumed.
      const int next = tile + gridDim.x;
      const bool next_active = tile_active(next);
      if (next_active) point_at(next);
#pragma unroll
      for (int d = 0; d < DEPTH; ++d) {
        if (t + d < steps) consume(d, t + d);
        if (next_active && d < steps) load(d, d);
      }
    }
    finish_tile(tile, active);
  }
#else
  // x in registers: each lane has at most one chunk (the requirements make
  // the warp's part of K no longer than its LPR lanes), converted by the
  // lane itself from global memory: no prologue, no barrier before the
  // first sums. The ring's slots hold the lane's chunk of successive tiles.
  const int c = c_begin + sl;
  const bool has_chunk = c < c_end;
  const int g = group_of(has_chunk ? c : 0);
  auto load_tile = [&](int d, int tile) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int col = min(tile * cols_per_tile + local_col0 + r, N - 1);
      q[d][r] = load_weights(w + (kopt_u64)col * (K / 2) + (kopt_u64)c * 16);
      so[d][r] = so_base[(kopt_u64)col * groups_per_col + g];
    }
  };
  const uint4* xc = reinterpret_cast<const uint4*>(x) + (kopt_u64)(has_chunk ? c : 0) * 4;
  const uint4 xh[4] = {xc[0], xc[1], xc[2], xc[3]};
#pragma unroll
  for (int d = 0; d < DEPTH; ++d) {
    const int tile = blockIdx.x + d * gridDim.x;
    if (has_chunk && tile_active(tile)) load_tile(d, tile);
  }
  const XPlanes xr = convert_chunk(xh);
  for (int base = blockIdx.x; base < tiles; base += DEPTH * gridDim.x) {
#pragma unroll
    for (int d = 0; d < DEPTH; ++d) {
      const int tile = base + d * gridDim.x;
      if (tile >= tiles) break;  // the same for the whole block
      const bool active = tile_active(tile);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) part[r] = 0.f;
      if (active && has_chunk) {
        accumulate_step(part, q[d], so[d], xr);
        const int next = tile + DEPTH * gridDim.x;
        if (tile_active(next)) load_tile(d, next);
      }
      finish_tile(tile, active);
    }
  }
#endif
  add_slices();
}
#else
// Stream-K. Unit u = (column group u / S, step u % S), a step being one
// 16-byte chunk per lane of the warp; warp `me` of the grid takes units
// [me·U/LG, (me+1)·U/LG). A column group cut between warps is a run of pieces;
// piece i of a group is written to the workspace, and the warp whose ticket
// completes the group adds the pieces in index order.
KOPT_KERNEL void GEMV_LAUNCH_BOUNDS
    gemv(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y,
         float* __restrict__ ws, int K, int N, int G) {
  fold_shape_sizes(K, N, G);
  extern __shared__ kopt_u32 xs[];
  const int chunks = K / 32;
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int S = (chunks + KOPT_WARP_SIZE - 1) / KOPT_WARP_SIZE;
  const int groups = (N + ROWS - 1) / ROWS;
  const kopt_i64 U = (kopt_i64)groups * S;
  // At most one warp per unit, so every range is non-empty and the range
  // starts are distinct (the piece numbering below counts them).
  const kopt_i64 LG = min((kopt_i64)gridDim.x * WARPS, U);
  const kopt_i64 me = (kopt_i64)blockIdx.x * WARPS + threadIdx.x / KOPT_WARP_SIZE;
  const int begin = me < LG ? (int)(me * U / LG) : 0;
  const int end = me < LG ? (int)((me + 1) * U / LG) : 0;
  // Workspace after the tile scheduler's part: pieces [groups][S][ROWS],
  // then one ticket per group.
  const int tiles = (N + (WARPS / KSPLIT) * (KOPT_WARP_SIZE / LPR) * ROWS - 1) /
                    ((WARPS / KSPLIT) * (KOPT_WARP_SIZE / LPR) * ROWS);
  float* pieces = ws + (kopt_u64)SPLIT * N + tiles;
  int* tickets = reinterpret_cast<int*>(pieces + (kopt_u64)groups * S * ROWS);
  const __half2* so_base = packed_scale_offset(w, K, N);
  const int gshift = (G & (G - 1)) == 0 ? __ffs(G) - 1 : -1;
  const int groups_per_col = K / G;
  // Number of range starts at or before unit u: ceil((u + 1)·LG / U).
  auto starts_upto = [&](kopt_i64 u) { return (int)(((u + 1) * LG + U - 1) / U); };

  uint4 q[DEPTH][ROWS];
  __half2 so[DEPTH][ROWS];
  float part[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) part[r] = 0.f;
  // Steps past K (the last step of a column when K / 32 is not a multiple of
  // the warp) load zeros: they add nothing.
  auto load = [&](int d, int grp, int a) {
    const int c = a * KOPT_WARP_SIZE + lane;
    const int cc = min(c, chunks - 1);
    const int g = (gshift >= 0 ? (cc * 32) >> gshift : (cc * 32) / G);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int col = min(grp * ROWS + r, N - 1);
      if (c < chunks) {
        q[d][r] = load_weights(w + (kopt_u64)col * (K / 2) + (kopt_u64)cc * 16);
        so[d][r] = so_base[(kopt_u64)col * groups_per_col + g];
      } else {
        q[d][r] = make_uint4(0, 0, 0, 0);
        so[d][r] = __floats2half2_rn(0.f, 0.f);
      }
    }
  };
  auto consume = [&](int d, int a) {
    const XPlanes xc = read_x(xs, min(a * KOPT_WARP_SIZE + lane, chunks - 1));
    accumulate_step(part, q[d], so[d], xc);
  };
  // Steps [a0, a1) of group grp are done: a whole column group is written,
  // a piece goes to the workspace. Only a warp's first and last groups can
  // be cut, so a warp leaves at most two pieces.
  int cut0 = -1, cut1 = -1;
  auto flush = [&](int grp, int a0, int a1) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) part[r] = kopt_warp_sum(part[r]);
    if (lane == 0) {
      if (a0 == 0 && a1 == S) {
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
          if (grp * ROWS + r < N) KOPT_Y_STORE(y, grp * ROWS + r, part[r], false);
      } else {
        const kopt_i64 first = (kopt_i64)grp * S;
        const int index = starts_upto(first + a0) - starts_upto(first);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) pieces[((kopt_u64)grp * S + index) * ROWS + r] = part[r];
        if (cut0 < 0) cut0 = grp;
        else cut1 = grp;
      }
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) part[r] = 0.f;
  };
  // After the warp's last step (so the fence waits for no weight load still
  // in flight): a ticket per piece; the warp that completes a group adds its
  // pieces in index order (deterministic) and rearms the ticket.
  auto add_pieces = [&]() {
    if (lane != 0 || cut0 < 0) return;
    __threadfence();
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int grp = k == 0 ? cut0 : cut1;
      if (grp < 0) continue;
      const kopt_i64 first = (kopt_i64)grp * S;
      const int count = starts_upto(first + S - 1) - starts_upto(first) + 1;
      if (atomicAdd(&tickets[grp], 1) == count - 1) {
        __threadfence();
        const volatile float* done = pieces + (kopt_u64)grp * S * ROWS;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
          float v = 0.f;
          for (int i = 0; i < count; ++i) v += done[i * ROWS + r];
          if (grp * ROWS + r < N) KOPT_Y_STORE(y, grp * ROWS + r, v, false);
        }
        tickets[grp] = 0;  // rearmed for the next call
      }
    }
  };

  uint4 xh[XLOADS];
  load_x(x, 0, chunks, 0, xh);
  // Load cursor (lg, la) runs DEPTH units ahead of the consume cursor (cg, ca).
  int lg = begin / S, la = begin % S;
  auto advance = [&](int& grp, int& a) {
    if (++a == S) {
      a = 0;
      ++grp;
    }
  };
#pragma unroll
  for (int d = 0; d < DEPTH; ++d)
    if (begin + d < end) {
      load(d, lg, la);
      advance(lg, la);
    }
  convert_x(x, xs, 0, chunks, xh);
  __syncthreads();

  int cg = begin / S, ca = begin % S, a0 = ca;
  auto step = [&](int d, int u) {
    consume(d, ca);
    if (u + DEPTH < end) {
      load(d, lg, la);
      advance(lg, la);
    }
    if (ca + 1 == S || u + 1 == end) {
      flush(cg, a0, ca + 1);
      a0 = 0;
    }
    advance(cg, ca);
  };
  int u = begin;
  for (; u + DEPTH <= end; u += DEPTH) {
#pragma unroll
    for (int d = 0; d < DEPTH; ++d) step(d, u + d);
  }
#pragma unroll
  for (int d = 0; d < DEPTH; ++d)
    if (u + d < end) step(d, u + d);
  add_pieces();
}
#endif
