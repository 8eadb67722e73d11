/* kopt:
{
  "name": "ffma",
  "description": "Float FMAs for several rows: the arithmetic of M rows grows with M while the weight bytes do not, so past two rows the kernel is bound by instructions, and an fp32 FMA is one instruction a multiply-add where the exact integer dot products need about as many (dp4a is half rate and x takes two byte planes). A first launch stages x once per call in the workspace as fp32 (rows past M as zeros, K padded with zeros), in the order the second reads it, with each chunk of 32 k's sum for the group offsets. In the second, a warp is WARP / KL column groups of KL lanes: the KL lanes of a group read 16 bytes (32 weights) each of KL adjacent chunks of their COLS columns (KL x 16 contiguous bytes a column), and the groups of a warp read the same x (one 16-byte load serves every group: a broadcast from L1). Weights become s * q exactly in one FMA each (the nibble moved by a byte permute into the mantissa of 2^23, then s * (2^23 + q) - s * 2^23); per row and column y += x * (s q) in fp32, and once per chunk y += o * sum(x). The work is (column tile of a warp, slice of XS steps of KL chunks) units, split evenly over every warp of a persistent grid (OCC blocks per SM) as contiguous ranges, so no warp holds more than one unit above the average; a warp adds its lanes' sums in a transposing butterfly over the KL lanes when its run of a tile ends and writes y, or, where other warps hold slices of that tile, the partial sums and a ticket: the last warp to finish the tile adds the slices in a fixed order (deterministic). MR is the row capacity; MR x COLS accumulators a lane. The weights are the batch-1 kernels' packed layout (q as canonical, then half2 (scale, offset) [N][K/G]).",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + N * (K / G) * 4",
  "launches": [
    {"kernel": "stage_x", "grid": ["cdiv(MR * cdiv(K / 32, KL) * KL, 128)"], "block": [128]},
    {"kernel": "gemm", "grid": ["max(1, min(SMS * OCC, cdiv(cdiv(N, (WARP / KL) * COLS) * cdiv(cdiv(K / 32, KL), XS), WARPS)))"], "block": ["WARPS * WARP"]}
  ],
  "workspace_bytes": "align(MR * cdiv(K / 32, KL) * KL * 132, 256) + align(cdiv(N, (WARP / KL) * COLS) * 4, 256) + cdiv(cdiv(K / 32, KL), XS) * M * N * 4",
  "requires": ["K % 32 == 0", "G % 32 == 0", "M <= MR", "KL <= WARP"],
  "params": {
    "MR":    {"values": [1, 2, 4, 8, 16], "default": 8},
    "KL":    {"values": [2, 4, 8, 16, 32], "default": 8},
    "COLS":  {"values": [1, 2, 4, 8], "default": 4},
    "WARPS": {"values": [1, 2, 4, 8], "default": 4},
    "DEPTH": {"values": [1, 2, 3, 4], "default": 2},
    "XS":    {"values": [1, 2, 3, 4, 6, 8, 12, 16], "default": 4},
    "OCC":   {"values": [1, 2, 3, 4, 6, 8], "default": 4}
  }
}
*/
// The packed layout: q bytes as canonical ([N][K/2], low nibble = even k),
// then half2 (scale, offset) [N][K/G] after a 256-byte boundary.
KOPT_KERNEL void relayout(const kopt_u8* __restrict__ canonical, kopt_u8* __restrict__ packed, int K, int N, int G,
                          int M) {
  // One thread per (column, group): its G / 2 bytes of q, and its scale and offset.
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x, groups = K / G;
  if (i >= (kopt_u64)N * groups) return;
  const uint4* from = reinterpret_cast<const uint4*>(canonical + i * (G / 2));
  uint4* to = reinterpret_cast<uint4*>(packed + i * (G / 2));
  for (int b = 0; b < G / 32; ++b) to[b] = from[b];
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2));
  reinterpret_cast<__half2*>(packed + q_bytes)[i] = __halves2half2(kopt_canonical_scales(canonical, K, N, G)[i],
                                                                   kopt_canonical_offsets(canonical, K, N, G)[i]);
}

// The workspace: x as fp32 [MR][steps][8][KL][4] (k = step * KL * 32 + kl * 32
// + 4 * piece + e: the KL lanes of a group reading piece p read KL x 16
// contiguous bytes), then each chunk's sum of x [MR][steps * KL], then a
// ticket per column tile (256-byte aligned), then the partial sums of the
// slices [slices][M][N].
KOPT_INLINE int ffma_steps(int K) { return (K / 32 + KL - 1) / KL; }
KOPT_INLINE kopt_u64 ffma_tickets_offset(int K) {
  return kopt_align256((kopt_u64)MR * ffma_steps(K) * KL * 132);
}

// One thread per row and chunk of 32 k (rows past M and chunks past K are
// zeros, so the second launch has no row or k branches).
KOPT_KERNEL void stage_x(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y,
                         float* __restrict__ ws, int K, int N, int G, int M) {
  const int chunks = K / 32, padded = ffma_steps(K) * KL;
  const int item = blockIdx.x * blockDim.x + threadIdx.x;
  if (item >= MR * padded) return;
  const int r = item / padded, c = item % padded;
  float v[32];
  float sum = 0.f;
  if (r < M && c < chunks) {
    const uint4* from = reinterpret_cast<const uint4*>(x + (kopt_u64)r * K + (kopt_u64)c * 32);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint4 h = from[i];
      const __half2* pair = reinterpret_cast<const __half2*>(&h);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float2 f = __half22float2(pair[e]);
        v[8 * i + 2 * e] = f.x;
        v[8 * i + 2 * e + 1] = f.y;
      }
    }
#pragma unroll
    for (int i = 0; i < 32; ++i) sum += v[i];
  } else {
#pragma unroll
    for (int i = 0; i < 32; ++i) v[i] = 0.f;
  }
  const int step = c / KL, kl = c % KL;
  float4* to = reinterpret_cast<float4*>(ws) + ((kopt_u64)(r * ffma_steps(K) + step) * 8) * KL + kl;
#pragma unroll
  for (int p = 0; p < 8; ++p) to[p * KL] = make_float4(v[4 * p], v[4 * p + 1], v[4 * p + 2], v[4 * p + 3]);
  ws[(kopt_u64)MR * padded * 32 + item] = sum;
}

// One stage of a lane's weights: 16 bytes of each column and its group's
// (scale, offset), kept as loaded (converted when used).
struct FfmaStage {
  uint4 q[COLS];
  __half2 so[COLS];
};

// Weight t of word v (bits 4t..4t+3, k = t of the word's eight) as
// 2^23 + q: the nibble's byte masked (even t: v, odd t: v >> 4, both masked
// to 0x0F0F0F0F by the caller) and moved by a byte permute under the
// exponent bits of 2^23.
KOPT_INLINE float ffma_plus_2p23(kopt_u32 even, kopt_u32 odd, int t) {
  const kopt_u32 from = (t & 1) ? odd : even;
  return __uint_as_float(__byte_perm(from, 0x4B000000u, (kopt_u32)(t >> 1) | 0x7540u));
}

// a or b by a mask of bits: written as a select of two array elements, the
// compiler turns it into a load from a selected address, which keeps the
// array in scratch on gfx906.
KOPT_INLINE float ffma_pick(bool first, float a, float b) {
  const kopt_u32 m = 0u - (kopt_u32)first;
  return __uint_as_float((__float_as_uint(a) & m) | (__float_as_uint(b) & ~m));
}

// The transposing butterfly over the KL lanes of a group, step MASK (KL / 2,
// KL / 4, ..., 1): while a lane holds more than one value, the lanes with the
// mask bit keep the upper half of their values and send the lower, the others
// the reverse; once one value is left the steps are plain sums.
template <int MASK, int HELD>
KOPT_INLINE void ffma_fold(float (&v)[MR * COLS], int lane, int& first) {
  if constexpr (MASK >= 1) {
    if constexpr (HELD >= 2) {
      constexpr int half = HELD / 2;
      const bool upper = (lane & MASK) != 0;
#pragma unroll
      for (int i = 0; i < half; ++i) {
        const float lo = v[i], hi = v[i + half];
        v[i] = ffma_pick(upper, hi, lo) + kopt_shfl_xor(ffma_pick(upper, lo, hi), MASK);
      }
      if (upper) first += half;
      ffma_fold<MASK / 2, half>(v, lane, first);
    } else {
      v[0] += kopt_shfl_xor(v[0], MASK);
      ffma_fold<MASK / 2, 1>(v, lane, first);
    }
  }
}

// A warp's lanes all past their writes; lane 0's value to every lane (a
// wavefront runs in lockstep on AMD).
KOPT_INLINE void ffma_sync_warp() {
#if defined(KOPT_NVIDIA)
  __syncwarp();
#endif
}
KOPT_INLINE int ffma_from_lane0(int v) {
#if defined(KOPT_NVIDIA)
  return __shfl_sync(KOPT_FULL_MASK, v, 0);
#else
  return __shfl(v, 0);
#endif
}

// On AMD the compiler hoists every row's x load of a step to its start (MR x
// 32 registers) and then needs scratch; a compiler barrier per row keeps the
// loads where they are used. NVIDIA's register allocator fits them itself.
KOPT_INLINE void ffma_keep_order() {
#if defined(KOPT_AMD)
  asm volatile("" ::: "memory");
#endif
}

#if defined(KOPT_NVIDIA)
#define FFMA_MIN_BLOCKS OCC
#else
#define FFMA_MIN_BLOCKS 1
#endif
KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE, FFMA_MIN_BLOCKS)
    gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y, float* __restrict__ ws,
         int K, int N, int G, int M) {
  constexpr int W = KOPT_WARP_SIZE, CPW = (W / KL) * COLS, V = MR * COLS;
  const int lane = threadIdx.x % W, kl = lane % KL, cg = lane / KL;
  const int chunks = K / 32, steps = ffma_steps(K), padded = steps * KL, groups = K / G;
  const int slices = (steps + XS - 1) / XS, tiles = (N + CPW - 1) / CPW;
  const kopt_i64 units = (kopt_i64)tiles * slices, warps = (kopt_i64)gridDim.x * WARPS;
  const kopt_i64 me = (kopt_i64)blockIdx.x * WARPS + threadIdx.x / W;
  const kopt_i64 u_begin = me * units / warps, u_end = (me + 1) * units / warps;
  if (u_begin == u_end) return;  // no barrier below: warps are independent

  const float4* x4 = reinterpret_cast<const float4*>(ws);
  const float* x_sums = ws + (kopt_u64)MR * padded * 32;
  int* tickets = reinterpret_cast<int*>(reinterpret_cast<kopt_u8*>(ws) + ffma_tickets_offset(K));
  float* partials = reinterpret_cast<float*>(reinterpret_cast<kopt_u8*>(tickets) + kopt_align256((kopt_u64)tiles * 4));
  const __half2* so_all = reinterpret_cast<const __half2*>(w + kopt_align256((kopt_u64)N * (K / 2)));

  // A cursor walks the warp's units (tile-major, slice-minor) step by step.
  struct FfmaCursor {
    kopt_i64 unit;
    int tile, slice, step, end;
  };
  auto at_unit = [&](kopt_i64 u) {
    FfmaCursor at;
    at.unit = u;
    at.tile = (int)(u / slices);
    at.slice = (int)(u % slices);
    at.step = at.slice * XS;
    at.end = min(steps, at.step + XS);
    return at;
  };
  auto advance = [&](FfmaCursor& at) {
    if (++at.step == at.end) {
      ++at.unit;
      if (++at.slice == slices) {
        at.slice = 0;
        ++at.tile;
      }
      at.step = at.slice * XS;
      at.end = min(steps, at.step + XS);
    }
  };
  // Chunks past K load zeros; columns past N load the last column (never written).
  auto load = [&](FfmaStage& st, const FfmaCursor& at) {
    const int c = at.step * KL + kl;
    const bool inside = c < chunks;
    const int g = inside ? c * 32 / G : 0;
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      const int col = min(at.tile * CPW + cg * COLS + j, N - 1);
      st.q[j] = inside ? kopt_load16_no_l1(w + (kopt_u64)col * (K / 2) + (kopt_u64)c * 16) : make_uint4(0u, 0u, 0u, 0u);
      st.so[j] = inside ? so_all[(kopt_u64)col * groups + g] : __floats2half2_rn(0.f, 0.f);
    }
  };

  float acc[MR][COLS];
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) acc[r][j] = 0.f;

  auto consume = [&](const FfmaStage& cur, int step) {
    float xs[MR];
#pragma unroll
    for (int r = 0; r < MR; ++r) xs[r] = x_sums[(kopt_u64)r * padded + step * KL + kl];
    float s[COLS], minus[COLS];
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      const float2 so = __half22float2(cur.so[j]);
      s[j] = so.x;
      minus[j] = -so.x * 8388608.f;  // exact: a power of two
#pragma unroll
      for (int r = 0; r < MR; ++r) acc[r][j] = fmaf(so.y, xs[r], acc[r][j]);
    }
#pragma unroll
    for (int word = 0; word < 4; ++word) {
      float wq[COLS][8];  // s * q of the word's eight k, per column (exact)
#pragma unroll
      for (int j = 0; j < COLS; ++j) {
        const kopt_u32 v = word == 0 ? cur.q[j].x : word == 1 ? cur.q[j].y : word == 2 ? cur.q[j].z : cur.q[j].w;
        const kopt_u32 even = v & 0x0F0F0F0Fu, odd = (v >> 4) & 0x0F0F0F0Fu;
#pragma unroll
        for (int t = 0; t < 8; ++t) wq[j][t] = fmaf(s[j], ffma_plus_2p23(even, odd, t), minus[j]);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int r = 0; r < MR; ++r) {
          ffma_keep_order();
          const float4 xv = x4[((kopt_u64)(r * steps + step) * 8 + 2 * word + h) * KL + kl];
#pragma unroll
          for (int j = 0; j < COLS; ++j) {
            float a = acc[r][j];
            a = fmaf(xv.x, wq[j][4 * h], a);
            a = fmaf(xv.y, wq[j][4 * h + 1], a);
            a = fmaf(xv.z, wq[j][4 * h + 2], a);
            a = fmaf(xv.w, wq[j][4 * h + 3], a);
            acc[r][j] = a;
          }
        }
    }
  };

  // Is unit u the first of some warp's range? (Its run's partial sums are
  // then in slot u's slice.)
  auto starts_a_range = [&](kopt_i64 u) {
    const kopt_i64 g = (u * warps + units - 1) / units;
    return g < warps && g * units / warps == u;
  };
  // A run of slices first..last of a tile ends: fold the lanes' sums, then
  // write y (the whole tile's K was this run) or the run's partial sums and
  // a ticket; the warp that completes the tile adds its slots in order.
  auto finish_run = [&](int tile, int first_slice, int last_slice) {
    float v[V];
#pragma unroll
    for (int r = 0; r < MR; ++r)
#pragma unroll
      for (int j = 0; j < COLS; ++j) {
        v[r * COLS + j] = acc[r][j];
        acc[r][j] = 0.f;
      }
    int first = 0;
    ffma_fold<KL / 2, V>(v, lane, first);
    constexpr int HELD = V >= KL ? V / KL : 1;
    const bool writer = V >= KL || (kl & (KL / V - 1)) == 0;
    const bool whole = first_slice == 0 && last_slice == slices - 1;
    float* out = whole ? y : partials + (kopt_u64)first_slice * M * N;
    if (writer) {
#pragma unroll
      for (int i = 0; i < HELD; ++i) {
        const int r = (first + i) / COLS, n = tile * CPW + cg * COLS + (first + i) % COLS;
        if (r < M && n < N) out[(kopt_u64)r * N + n] = v[i];
      }
    }
    if (whole) return;
    __threadfence();
    ffma_sync_warp();
    int last = 0;
    if (lane == 0) {
      const int before = atomicAdd(&tickets[tile], last_slice - first_slice + 1);
      last = before + last_slice - first_slice + 1 == slices;
      if (last) tickets[tile] = 0;  // rearmed for the next call
    }
    if (!ffma_from_lane0(last)) return;
    __threadfence();
    const volatile float* parts = partials;  // written by other warps: not from L1
    for (int i = lane; i < M * CPW; i += W) {
      const int r = i / CPW, n = tile * CPW + i % CPW;
      if (n >= N) continue;
      float sum = 0.f;
      for (int sl = 0; sl < slices; ++sl)
        if (sl == 0 || starts_a_range((kopt_i64)tile * slices + sl))
          sum += parts[((kopt_u64)sl * M + r) * N + n];
      y[(kopt_u64)r * N + n] = sum;
    }
  };

  FfmaStage st[DEPTH];
  FfmaCursor loading = at_unit(u_begin);
#pragma unroll
  for (int d = 0; d < DEPTH; ++d)
    if (loading.unit < u_end) {
      load(st[d], loading);
      advance(loading);
    }
  FfmaCursor consuming = at_unit(u_begin);
  int run_first = consuming.slice;
  while (consuming.unit < u_end) {
#pragma unroll
    for (int d = 0; d < DEPTH; ++d) {
      if (consuming.unit < u_end) {
        consume(st[d], consuming.step);
        if (loading.unit < u_end) {
          load(st[d], loading);
          advance(loading);
        }
        const int tile = consuming.tile, slice = consuming.slice;
        advance(consuming);
        if (consuming.step == consuming.slice * XS && (consuming.unit == u_end || consuming.tile != tile)) {
          finish_run(tile, run_first, slice);
          run_first = 0;
        }
      }
    }
  }
}
