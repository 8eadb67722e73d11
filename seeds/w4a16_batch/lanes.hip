/* kopt:
{
  "name": "lanes",
  "description": "Lanes over columns, every row at once. A lane owns COLS columns (WARP apart) and accumulates all M rows of each in fp32 registers over its warp's steps, so no lane sums with another until the end. A step is 64 k: each lane reads 32 consecutive bytes of each of its columns (two 16-byte loads, one step ahead, so every 32-byte sector is used whole), the warps of a block take the steps of the block's slice of K in turn (WARPS-way), and SPLIT slices of K across the grid (0: as many as bring the grid to two blocks per SM, at most 8, while every warp keeps two steps) are added in a fixed order by the last block of each column group (one launch; a ticket per column group at the start of the workspace, rearmed, then the partial sums). Each warp stages the M x 64 values of x of its step in its own shared memory as fp32 (converted once, read back by every lane as broadcasts; the loads one step ahead) and dequantises each weight once for all rows: a nibble moved under the mantissa of 128.0f (bits 16-19) or of 128.0f at 1/16 (bits 12-15) is one mask, so eight nibbles cost four shifts, eight masks and eight FMAs, and then M FMAs each. MR is the row capacity (rows past M are skipped; the library builds one per M bucket). LAYOUT 0 reads dot's and gen's packed layout (q as canonical, then half2 (scale, offset) [N][K/G]), so the library runs it on the weights its batch-1 kernels already hold; LAYOUT 1 reads the canonical arrays (the relayout copies them).",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + (1 - LAYOUT) * N * (K / G) * 4 + LAYOUT * 2 * align(N * (K / G) * 2, 256)",
  "launches": [{"kernel": "gemm",
                "grid": ["cdiv(N, WARP * COLS)", "max(SPLIT, (1 - min(SPLIT, 1)) * max(1, min(8, min(cdiv(2 * SMS, cdiv(N, WARP * COLS)), cdiv(K / 32, 2) / (2 * WARPS)))))"],
                "block": ["WARPS * WARP"],
                "shared_bytes": "WARPS * MR * max(64, COLS * WARP) * 4"}],
  "workspace_bytes": "align(N, 64) * 4 + max(SPLIT, (1 - min(SPLIT, 1)) * max(1, min(8, min(cdiv(2 * SMS, cdiv(N, WARP * COLS)), cdiv(K / 32, 2) / (2 * WARPS))))) * M * N * 4",
  "requires": ["K % 32 == 0", "G % 32 == 0", "M <= MR", "MR * COLS <= 64",
               "WARPS * MR * max(64, COLS * WARP) * 4 <= 49152"],
  "params": {
    "MR":     {"values": [1, 2, 4, 8, 16], "default": 16},
    "COLS":   {"values": [1, 2, 3, 4], "default": 2},
    "WARPS":  {"values": [1, 2, 4, 6, 8], "default": 4},
    "SPLIT":  {"values": [0, 1, 2, 3, 4, 6, 8, 12, 16], "default": 0},
    "LAYOUT": {"values": [0, 1], "default": 0}
  }
}
*/
// LAYOUT 0 (dot's and gen's packed layout): q bytes as canonical ([N][K/2],
// low nibble = even k), then half2 (scale, offset) [N][K/G] after a 256-byte
// boundary. LAYOUT 1: the canonical blob (q, scales, offsets).

KOPT_INLINE void lanes_sync_warp() {
#if defined(KOPT_NVIDIA)
  __syncwarp();
#else
  __builtin_amdgcn_wave_barrier();  // a wavefront runs in lockstep; keep the compiler's order
#endif
}

KOPT_KERNEL void relayout(const kopt_u8* __restrict__ canonical, kopt_u8* __restrict__ packed, int K, int N, int G,
                          int M) {
  // One thread per (column, group): its 32 * (G / 32) bytes of q, and its scale and offset.
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x, groups = K / G;
  if (i >= (kopt_u64)N * groups) return;
  const uint4* from = reinterpret_cast<const uint4*>(canonical + i * (G / 2));
  uint4* to = reinterpret_cast<uint4*>(packed + i * (G / 2));
  for (int b = 0; b < G / 32; ++b) to[b] = from[b];
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2));
  const __half* scales = kopt_canonical_scales(canonical, K, N, G);
  const __half* offsets = kopt_canonical_offsets(canonical, K, N, G);
  if (LAYOUT == 0) {
    reinterpret_cast<__half2*>(packed + q_bytes)[i] = __halves2half2(scales[i], offsets[i]);
  } else {
    reinterpret_cast<__half*>(packed + q_bytes)[i] = scales[i];
    reinterpret_cast<__half*>(packed + q_bytes + kopt_align256((kopt_u64)N * groups * 2))[i] = offsets[i];
  }
}

// Eight weights of one 32-bit word in fp32. Nibble j sits at bits 4j; moved to
// bits 16-19 under 128.0f it reads 128 + q, at bits 12-15 it reads 128 + q/16,
// so w = s * q + o is one FMA with (s, o - 128 s) or (16 s, o - 2048 s). The
// FMA forms the product exactly; only the folded offset rounds (2^-17 of s).
KOPT_INLINE void lanes_dequant8(kopt_u32 v, float s1, float o1, float s16, float o16, float* wf) {
  const kopt_u32 magic = 0x43000000u;
  wf[0] = fmaf(s1, __uint_as_float(kopt_and_or(v << 16, 0xF0000u, magic)), o1);
  wf[1] = fmaf(s16, __uint_as_float(kopt_and_or(v << 8, 0xF000u, magic)), o16);
  wf[2] = fmaf(s1, __uint_as_float(kopt_and_or(v << 8, 0xF0000u, magic)), o1);
  wf[3] = fmaf(s16, __uint_as_float(kopt_and_or(v, 0xF000u, magic)), o16);
  wf[4] = fmaf(s1, __uint_as_float(kopt_and_or(v, 0xF0000u, magic)), o1);
  wf[5] = fmaf(s16, __uint_as_float(kopt_and_or(v >> 8, 0xF000u, magic)), o16);
  wf[6] = fmaf(s1, __uint_as_float(kopt_and_or(v >> 8, 0xF0000u, magic)), o1);
  wf[7] = fmaf(s16, __uint_as_float(kopt_and_or(v >> 16, 0xF000u, magic)), o16);
}

// A group's (scale, offset), as the four factors lanes_dequant8 takes.
struct LanesScale {
  float s1, o1, s16, o16;
};
KOPT_INLINE LanesScale lanes_scale(const kopt_u8* w, int K, int N, int G, int n, int g) {
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2)), at = (kopt_u64)n * (K / G) + g;
  float s, o;
  if (LAYOUT == 0) {
    const float2 so = __half22float2(reinterpret_cast<const __half2*>(w + q_bytes)[at]);
    s = so.x;
    o = so.y;
  } else {
    s = __half2float(reinterpret_cast<const __half*>(w + q_bytes)[at]);
    o = __half2float(reinterpret_cast<const __half*>(w + q_bytes + kopt_align256((kopt_u64)N * (K / G) * 2))[at]);
  }
  return LanesScale{s, fmaf(-128.f, s, o), 16.f * s, fmaf(-2048.f, s, o)};
}

KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE)
    gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y, float* __restrict__ ws,
         int K, int N, int G, int M) {
  constexpr int W = KOPT_WARP_SIZE;
  constexpr int XI = (MR * 16 + W - 1) / W;  // x pieces of four halves a lane stages per step
  constexpr int ROW = 64 > COLS * W ? 64 : COLS * W;
  extern __shared__ float lanes_smem[];
  const int lane = threadIdx.x % W, warp = threadIdx.x / W;
  float* xs = lanes_smem + warp * MR * ROW;  // this warp's [MR][64] fp32 x of the step
  float* red = lanes_smem;                   // after the steps: [WARPS][MR][COLS][W] partial sums

  const int chunks = K / 32, steps = (chunks + 1) / 2;
  const int slices = gridDim.y, per = (steps + slices - 1) / slices;
  const int t_begin = blockIdx.y * per, t_end = min(steps, t_begin + per);
  const int n_first = blockIdx.x * COLS * W;  // this block's first column

  int col[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) col[j] = min(n_first + j * W + lane, N - 1);  // past N: a copy, never written

  float acc[MR][COLS];
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) acc[r][j] = 0.f;

  // Piece p of row r in step t: x[r][64t + 4p .. 64t + 4p + 3].
  uint2 xnext[XI];
  auto load_x = [&](int t) {
#pragma unroll
    for (int i = 0; i < XI; ++i) {
      const int item = lane + i * W, r = item / 16, k = t * 64 + (item % 16) * 4;
      xnext[i] = item < MR * 16 && r < M && t < t_end && k < K
                     ? *reinterpret_cast<const uint2*>(x + (kopt_u64)r * K + k)
                     : make_uint2(0u, 0u);
    }
  };
  uint4 wnext[COLS][2];
  auto load_w = [&](int t) {
#pragma unroll
    for (int j = 0; j < COLS; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        wnext[j][h] = t < t_end && 2 * t + h < chunks
                          ? kopt_load16_no_l1(w + (kopt_u64)col[j] * (K / 2) + (kopt_u64)t * 32 + h * 16)
                          : make_uint4(0u, 0u, 0u, 0u);
  };
  int t = t_begin + warp;
  load_x(t);
  load_w(t);
  for (; t < t_end; t += WARPS) {
    lanes_sync_warp();  // every lane has read the previous step's x
#pragma unroll
    for (int i = 0; i < XI; ++i) {
      const int item = lane + i * W;
      if (item < MR * 16) {
        const __half2* h = reinterpret_cast<const __half2*>(&xnext[i]);
        const float2 a = __half22float2(h[0]), b = __half22float2(h[1]);
        *reinterpret_cast<float4*>(xs + (item / 16) * 64 + (item % 16) * 4) = make_float4(a.x, a.y, b.x, b.y);
      }
    }
    uint4 word[COLS][2];
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      word[j][0] = wnext[j][0];
      word[j][1] = wnext[j][1];
    }
    LanesScale sc[COLS][2];
    const int g0 = t * 64 / G, g1 = (t * 64 + 32) / G;
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      sc[j][0] = lanes_scale(w, K, N, G, col[j], g0);
      sc[j][1] = g1 == g0 || 2 * t + 1 >= chunks ? sc[j][0] : lanes_scale(w, K, N, G, col[j], g1);
    }
    load_x(t + WARPS);  // the next step's loads fly while this one is computed
    load_w(t + WARPS);
    lanes_sync_warp();
#pragma unroll
    for (int part = 0; part < 8; ++part) {
      float wf[COLS][8];
#pragma unroll
      for (int j = 0; j < COLS; ++j) {
        const uint4 q = word[j][part / 4];
        const kopt_u32 v = part % 4 == 0 ? q.x : part % 4 == 1 ? q.y : part % 4 == 2 ? q.z : q.w;
        const LanesScale& f = sc[j][part / 4];
        lanes_dequant8(v, f.s1, f.o1, f.s16, f.o16, wf[j]);
      }
#pragma unroll
      for (int r = 0; r < MR; ++r) {
        if (r < M) {  // (not break: the loop stays unrolled, acc in registers)
          const float4 a = *reinterpret_cast<const float4*>(xs + r * 64 + part * 8);
          const float4 b = *reinterpret_cast<const float4*>(xs + r * 64 + part * 8 + 4);
          const float xv[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
          for (int j = 0; j < COLS; ++j)
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[r][j] = fmaf(wf[j][e], xv[e], acc[r][j]);
        }
      }
    }
  }

  // The warps' partial sums, added in warp order (deterministic).
  __syncthreads();  // red reuses the x buffers
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) red[((warp * MR + r) * COLS + j) * W + lane] = acc[r][j];
  __syncthreads();
  // The workspace: a ticket per column group at its start (N ints at most,
  // wherever M puts the rest), then the slices' partial sums [slices][M][N].
  int* tickets = reinterpret_cast<int*>(ws);
  float* partials = ws + ((N + 63) / 64) * 64;
  float* out = slices > 1 ? partials + (kopt_u64)blockIdx.y * M * N : y;
  for (int i = threadIdx.x; i < MR * COLS * W; i += WARPS * W) {
    const int r = i / (COLS * W), n = n_first + i % (COLS * W);
    if (r >= M || n >= N) continue;
    float sum = 0.f;
    for (int v = 0; v < WARPS; ++v) sum += red[v * MR * COLS * W + i];
    out[(kopt_u64)r * N + n] = sum;
  }
  if (slices == 1) return;

  // Slices of K: the last block of this column group to finish (a ticket per
  // group, rearmed for the next call) adds the slices in order (deterministic).
  __shared__ int lanes_last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    lanes_last = atomicAdd(&tickets[blockIdx.x], 1) == slices - 1;
    if (lanes_last) tickets[blockIdx.x] = 0;
  }
  __syncthreads();
  if (!lanes_last) return;
  __threadfence();
  const volatile float* parts = partials;  // written by other blocks: not from L1
  for (int i = threadIdx.x; i < MR * COLS * W; i += WARPS * W) {
    const int r = i / (COLS * W), n = n_first + i % (COLS * W);
    if (r >= M || n >= N) continue;
    float sum = 0.f;
    for (int s = 0; s < slices; ++s) sum += parts[((kopt_u64)s * M + r) * N + n];
    y[(kopt_u64)r * N + n] = sum;
  }
}
