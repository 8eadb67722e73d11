/* kopt:
{
  "name": "ffma",
  "description": "Float FMAs for several rows: the arithmetic of M rows grows with M while the weight bytes do not, so past two rows the kernel is bound by instructions, and an fp32 FMA is one instruction a multiply-add where the exact integer dot products need about as many (dp4a is half rate and x takes two byte planes). A warp is WARP / KL column groups of KL lanes: the KL lanes of a group read 16 bytes (32 weights) each of KL adjacent chunks of their COLS columns (KL x 16 contiguous bytes a column), and the groups of a warp read the same x from shared memory (a broadcast). Weights become s * q exactly in one FMA each (the nibble moved by a byte permute under the exponent bits of 2^23, then s * (2^23 + q) - s * 2^23); per row and column y += x * (s q) in fp32, and once per chunk y += o * sum(x). The work is units of (column tile of a block, slice of XS steps of KL chunks), split evenly over a persistent grid (OCC blocks per SM) as contiguous ranges, so no block holds more than one unit above the average; each unit starts by staging its slice of x, all MR rows, in shared memory as fp32 with each chunk's sum (rows past M and k past K as zeros: no branches), while the weights stay DEPTH stages ahead across units. When a block's run of a tile ends its warps add their lanes' sums in a transposing butterfly over the KL lanes and write y, or, where other blocks hold slices of that tile, partial sums and a ticket: the last block to finish the tile adds the slices in a fixed order (deterministic). MR is the row capacity; MR x COLS accumulators a lane. The weights are the batch-1 kernels' packed layout (q as canonical, then half2 (scale, offset) [N][K/G])",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + N * (K / G) * 4",
  "launches": [{"kernel": "gemm",
                "grid": ["max(1, min(SMS * OCC, cdiv(N, WARPS * (WARP / KL) * COLS) * cdiv(cdiv(K / 32, KL), XS)))"],
                "block": ["WARPS * WARP"],
                "shared_bytes": "MR * XS * KL * 132"}],
  "workspace_bytes": "align(cdiv(N, WARPS * (WARP / KL) * COLS) * 4, 256) + cdiv(cdiv(K / 32, KL), XS) * M * N * 4",
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

#if defined(KOPT_NVIDIA)
#define FFMA_MIN_BLOCKS OCC
#else
#define FFMA_MIN_BLOCKS 1
#endif
KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE, FFMA_MIN_BLOCKS)
    gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y, float* __restrict__ ws,
         int K, int N, int G, int M) {
  constexpr int W = KOPT_WARP_SIZE, CPW = (W / KL) * COLS, CPB = WARPS * CPW, V = MR * COLS;
  extern __shared__ float4 ffma_x[];  // the slice's x, fp32 [MR][XS][8][KL] (below), then its chunk sums
  float* x_sums = reinterpret_cast<float*>(ffma_x + MR * XS * 8 * KL);  // [MR][XS * KL]
  __shared__ int ffma_last;
  const int lane = threadIdx.x % W, warp = threadIdx.x / W, kl = lane % KL, cg = lane / KL;
  const int chunks = K / 32, steps = (chunks + KL - 1) / KL, groups = K / G;
  const int slices = (steps + XS - 1) / XS, tiles = (N + CPB - 1) / CPB;
  const kopt_i64 units = (kopt_i64)tiles * slices, blocks = gridDim.x;
  const kopt_i64 u_begin = blockIdx.x * units / blocks, u_end = (blockIdx.x + 1) * units / blocks;

  int* tickets = reinterpret_cast<int*>(ws);
  float* partials = reinterpret_cast<float*>(reinterpret_cast<kopt_u8*>(ws) + kopt_align256((kopt_u64)tiles * 4));
  const __half2* so_all = reinterpret_cast<const __half2*>(w + kopt_align256((kopt_u64)N * (K / 2)));
  auto column = [&](int tile, int j) { return tile * CPB + warp * CPW + cg * COLS + j; };

  // A cursor walks the block's units (tile-major, slice-minor) step by step.
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
      const int col = min(column(at.tile, j), N - 1);
      st.q[j] = inside ? kopt_load16_no_l1(w + (kopt_u64)col * (K / 2) + (kopt_u64)c * 16) : make_uint4(0u, 0u, 0u, 0u);
      st.so[j] = inside ? so_all[(kopt_u64)col * groups + g] : __floats2half2_rn(0.f, 0.f);
    }
  };
  // A slice's x in shared memory as fp32, one thread per row and chunk:
  // chunk cc of the slice's XS x KL, piece p (k = 4p..4p+3 of the chunk) at
  // [r][cc / KL][p][cc % KL], so the KL lanes of a group reading a piece read
  // KL x 16 contiguous bytes (distinct banks) and the groups share them (a
  // broadcast). Rows past M and chunks past K are zeros: no branches below.
  auto stage_x = [&](int slice) {
    for (int item = threadIdx.x; item < MR * XS * KL; item += WARPS * W) {
      const int r = item / (XS * KL), cc = item % (XS * KL), c = slice * XS * KL + cc;
      float v[32];
      float sum = 0.f;
      if (r < M && c < chunks) {
        const uint4* from = reinterpret_cast<const uint4*>(x + (kopt_u64)r * K + (kopt_u64)c * 32);
        uint4 h[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) h[i] = from[i];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const __half2* pair = reinterpret_cast<const __half2*>(&h[i]);
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
      float4* to = ffma_x + ((r * XS + cc / KL) * 8) * KL + cc % KL;
#pragma unroll
      for (int p = 0; p < 8; ++p) to[p * KL] = make_float4(v[4 * p], v[4 * p + 1], v[4 * p + 2], v[4 * p + 3]);
      x_sums[item] = sum;
    }
  };

  float acc[MR][COLS];
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) acc[r][j] = 0.f;

  // Step ls of the staged slice: per column, y += o * sum(x) once, then the
  // weights as s * q (exact) and y += x * (s q) per row.
  auto consume = [&](const FfmaStage& cur, int ls) {
    float xs[MR];
#pragma unroll
    for (int r = 0; r < MR; ++r) xs[r] = x_sums[(r * XS + ls) * KL + kl];
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
      kopt_u32 even[COLS], odd[COLS];
#pragma unroll
      for (int j = 0; j < COLS; ++j) {
        const kopt_u32 v = word == 0 ? cur.q[j].x : word == 1 ? cur.q[j].y : word == 2 ? cur.q[j].z : cur.q[j].w;
        even[j] = v & 0x0F0F0F0Fu;
        odd[j] = (v >> 4) & 0x0F0F0F0Fu;
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float wq[COLS][4];  // s * q of k = 8 word + 4 h + 0..3, per column
#pragma unroll
        for (int j = 0; j < COLS; ++j)
#pragma unroll
          for (int t = 0; t < 4; ++t) wq[j][t] = fmaf(s[j], ffma_plus_2p23(even[j], odd[j], 4 * h + t), minus[j]);
#pragma unroll
        for (int r = 0; r < MR; ++r) {
          const float4 xv = ffma_x[((r * XS + ls) * 8 + 2 * word + h) * KL + kl];
#pragma unroll
          for (int j = 0; j < COLS; ++j) {
            float a = acc[r][j];
            a = fmaf(xv.x, wq[j][0], a);
            a = fmaf(xv.y, wq[j][1], a);
            a = fmaf(xv.z, wq[j][2], a);
            a = fmaf(xv.w, wq[j][3], a);
            acc[r][j] = a;
          }
        }
      }
    }
  };

  // Is unit u the first of some block's range? (That run's partial sums are
  // then in the slot of u's slice.)
  auto starts_a_range = [&](kopt_i64 u) {
    const kopt_i64 b = (u * blocks + units - 1) / units;
    return b < blocks && b * units / blocks == u;
  };
  // A run of slices first..last of a tile ends: each warp folds its lanes'
  // sums and writes y (the run was the tile's whole K) or the run's partial
  // sums; then a ticket, and the block that completes the tile adds its
  // slots in order (deterministic).
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
        const int r = (first + i) / COLS, n = column(tile, (first + i) % COLS);
        if (r < M && n < N) out[(kopt_u64)r * N + n] = v[i];
      }
    }
    if (whole) return;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      const int before = atomicAdd(&tickets[tile], last_slice - first_slice + 1);
      ffma_last = before + last_slice - first_slice + 1 == slices;
      if (ffma_last) tickets[tile] = 0;  // rearmed for the next call
    }
    __syncthreads();
    if (!ffma_last) return;
    __threadfence();
    const volatile float* parts = partials;  // written by other blocks: not from L1
    for (int i = threadIdx.x; i < M * CPB; i += WARPS * W) {
      const int r = i / CPB, n = tile * CPB + i % CPB;
      if (n >= N) continue;
      float sum = 0.f;
      for (int sl = 0; sl < slices; ++sl)
        if (sl == 0 || starts_a_range((kopt_i64)tile * slices + sl)) sum += parts[((kopt_u64)sl * M + r) * N + n];
      y[(kopt_u64)r * N + n] = sum;
    }
  };

  // The weights DEPTH stages ahead, across units (in flight while a slice
  // of x is staged); every unit starts with its slice of x.
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
        if (consuming.step == consuming.slice * XS) {
          __syncthreads();  // the previous slice's reads are done
          stage_x(consuming.slice);
          __syncthreads();
        }
        consume(st[d], consuming.step - consuming.slice * XS);
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
