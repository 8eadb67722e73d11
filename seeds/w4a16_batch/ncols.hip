/* kopt:
{
  "name": "ncols",
  "description": "Lanes over N, every row at once, fp32 FMAs, x read by a warp at KL addresses. KL lanes share a column and each lane owns COLS columns (a warp WARP / KL adjacent ones per COLS); the KL lanes of a column read KL adjacent chunks of 32 k (16 bytes each, so a warp's load covers whole 32-byte sectors of WARP / KL columns), DEPTH chunks in flight, and add their sums by shuffles at the end. A chunk's nibbles become fp32 weights once for all rows (nibble ORed into the mantissa of 128.0f, one FMA with the scale and the offset less 128 scales: exact but for the FMA's rounding); per row a lane then does 32 FMAs a column with x from shared memory, where the lanes of a warp read only KL distinct 16-byte pieces, adjacent (one read serves the warp's WARP / KL columns, where lanes over K each need their own x). Products and sums in fp32: fp16 sums are not enough (activation outliers swamp a chunk's other products). x of the block's slice of K, all MR rows, is staged once per block in fp32 (rows past M and chunks past the slice as zeros, so no row branches). SPLIT 0 cuts K into enough slices for two blocks per SM and as few as shared memory allows; the slices are added in a fixed order by the last block of each column range (a ticket per range at the start of the workspace, rearmed). MR is the row capacity; MR x COLS x (threads of a block) at most 8192 keeps the accumulators and a chunk's weights in registers, and on gfx906 (wave64) MR x COLS at most 4 (clang keeps about 30 registers a row there, where nvcc keeps about 6). The weights are the batch-1 kernels' packed layout (q as canonical, then half2 (scale, offset) [N][K/G]), which the relayout makes from the canonical arrays.",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + N * (K / G) * 4",
  "launches": [{"kernel": "gemm",
                "grid": ["cdiv(N, WARPS * WARP / KL * COLS)",
                         "min(cdiv(K / 32, KL), max(cdiv(K / 32, max(KL, 40960 / (MR * 128 * KL) * KL)), (SPLIT == 0) * cdiv(2 * SMS, cdiv(N, WARPS * WARP / KL * COLS)) + SPLIT))"],
                "block": ["WARPS * WARP"],
                "shared_bytes": "MR * 128 * KL * cdiv(cdiv(K / 32, min(cdiv(K / 32, KL), max(cdiv(K / 32, max(KL, 40960 / (MR * 128 * KL) * KL)), (SPLIT == 0) * cdiv(2 * SMS, cdiv(N, WARPS * WARP / KL * COLS)) + SPLIT))), KL)"}],
  "workspace_bytes": "align(cdiv(N, WARPS * WARP / KL * COLS), 64) * 4 + min(cdiv(K / 32, KL), max(cdiv(K / 32, max(KL, 40960 / (MR * 128 * KL) * KL)), (SPLIT == 0) * cdiv(2 * SMS, cdiv(N, WARPS * WARP / KL * COLS)) + SPLIT)) * M * N * 4",
  "requires": ["K % 32 == 0", "G % 32 == 0", "M <= MR", "KL <= WARP", "MR * COLS * WARPS * WARP <= 8192", "MR * COLS * WARP * WARP <= 16384"],
  "params": {
    "MR":     {"values": [1, 2, 4, 8, 16], "default": 16},
    "KL":     {"values": [1, 2, 4, 8, 16], "default": 8},
    "COLS":   {"values": [1, 2, 4], "default": 1},
    "WARPS":  {"values": [1, 2, 4, 8], "default": 4},
    "DEPTH":  {"values": [1, 2, 4, 8], "default": 2},
    "SPLIT":  {"values": [0, 1, 2, 4, 8, 16, 32], "default": 0}
  }
}
*/
// The packed layout: q bytes as canonical ([N][K/2], low nibble = even k),
// then half2 (scale, offset) [N][K/G] after a 256-byte boundary.
KOPT_KERNEL void relayout(const kopt_u8* __restrict__ canonical, kopt_u8* __restrict__ packed,
                          int K, int N, int G, int M) {
  // One thread per (column, group): its G / 2 bytes of q, and its scale and offset.
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x, groups = K / G;
  if (i >= (kopt_u64)N * groups) return;
  const uint4* from = reinterpret_cast<const uint4*>(canonical + i * (G / 2));
  uint4* to = reinterpret_cast<uint4*>(packed + i * (G / 2));
  for (int b = 0; b < G / 32; ++b) to[b] = from[b];
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2));
  reinterpret_cast<__half2*>(packed + q_bytes)[i] = __halves2half2(
      kopt_canonical_scales(canonical, K, N, G)[i], kopt_canonical_offsets(canonical, K, N, G)[i]);
}

// One chunk of a lane's columns: 16 bytes of q each and the group's
// (scale, offset), kept as loaded until the chunk is consumed.
struct NcolsStage {
  uint4 q[COLS];
  __half2 so[COLS];
};

// A word's bits as a half2 (memcpy on AMD, as the prelude does; NVRTC has
// no __builtin_memcpy).
KOPT_INLINE __half2 ncols_half2(kopt_u32 u) {
#if defined(KOPT_NVIDIA)
  return *reinterpret_cast<const __half2*>(&u);
#else
  __half2 h;
  __builtin_memcpy(&h, &u, 4);
  return h;
#endif
}

#define NCOLS_MIN_BLOCKS (8 / WARPS > 0 ? 8 / WARPS : 1)
KOPT_KERNEL void KOPT_LAUNCH_BOUNDS(WARPS* KOPT_WARP_SIZE, NCOLS_MIN_BLOCKS)
    gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y,
         float* __restrict__ ws, int K, int N, int G, int M) {
  constexpr int W = KOPT_WARP_SIZE;
  constexpr int SLOTS = W / KL;                    // columns of a warp per COLS
  constexpr int PER_BLOCK = WARPS * SLOTS * COLS;  // columns of a block
  extern __shared__ float4 ncols_x[];              // x of the block's slice of K
  const int lane = threadIdx.x % W, warp = threadIdx.x / W, sub = lane % KL;

  // The block's slice of K in chunks of 32 k, a multiple of KL chunks (a
  // step: one chunk for each of a column's lanes).
  const int chunks = K / 32;
  const int per = ((chunks + gridDim.y - 1) / gridDim.y + KL - 1) / KL * KL;
  const int c_begin = min(chunks, (int)blockIdx.y * per),
            nch = min(chunks, c_begin + per) - c_begin;
  const int used_slices = (chunks + per - 1) / per;  // the last blocks of y may have no chunks
  const int steps = (nch + KL - 1) / KL;
  const int groups = K / G;
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2));
  // Column j of this lane.
  const int n_base = blockIdx.x * PER_BLOCK + warp * COLS * SLOTS + lane / KL;
  auto column = [&](int j) { return n_base + j * SLOTS; };

  // Chunks past the slice load zero weights (scale and offset too): they add nothing.
  auto load = [&](NcolsStage& st, int step) {
    const int c = step * KL + sub, chunk = c_begin + c;
    const bool inside = c < nch;
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      const int col = min(column(j), N - 1);  // past N: a copy, never written
      st.q[j] =
          inside
              ? *reinterpret_cast<const uint4*>(w + (kopt_u64)col * (K / 2) + (kopt_u64)chunk * 16)
              : make_uint4(0u, 0u, 0u, 0u);
      st.so[j] = inside ? reinterpret_cast<const __half2*>(
                              w + q_bytes)[(kopt_u64)col * groups + chunk * 32 / G]
                        : __floats2half2_rn(0.f, 0.f);
    }
  };
  NcolsStage st[DEPTH];
#pragma unroll
  for (int d = 0; d < DEPTH; ++d)
    if (d < steps) load(st[d], d);

  // x of the slice, all rows, in fp32, while the first chunks are in
  // flight: one thread per row and chunk of 32 values, zeros past M and past
  // the slice. Four values of chunk c sit beside those of the other chunks of
  // its step: [row][step][quad][KL], so the KL pieces a warp reads at once
  // are adjacent (distinct banks).
  float4* x_slice = ncols_x;
  const int per_steps = per / KL;
  for (int item = threadIdx.x; item < MR * steps * KL; item += WARPS * W) {
    const int r = item / (steps * KL), c = item % (steps * KL);
    uint4 h[4] = {};
    if (r < M && c < nch) {
      const uint4* from =
          reinterpret_cast<const uint4*>(x + (kopt_u64)r * K + (kopt_u64)(c_begin + c) * 32);
#pragma unroll
      for (int i = 0; i < 4; ++i) h[i] = from[i];
    }
    float4* to = x_slice + (r * per_steps + c / KL) * 8 * KL + c % KL;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 a = __half22float2(ncols_half2(h[i].x)), b = __half22float2(ncols_half2(h[i].y));
      const float2 e = __half22float2(ncols_half2(h[i].z)), f = __half22float2(ncols_half2(h[i].w));
      to[(2 * i) * KL] = make_float4(a.x, a.y, b.x, b.y);
      to[(2 * i + 1) * KL] = make_float4(e.x, e.y, f.x, f.y);
    }
  }
  __syncthreads();

  float acc[MR][COLS];
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) acc[r][j] = 0.f;

  auto consume = [&](const NcolsStage& cur, int step) {
    // The chunk's weights in fp32, once for all rows: nibble i of word p
    // (k = 8p + i) ORed into the mantissa of 128.0f gives 128 + q exactly,
    // then one FMA: (128 + q) * s + (o - 128 s).
    float wt[COLS][32];
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      const float2 so = __half22float2(cur.so[j]);
      const float base = fmaf(-128.f, so.x, so.y);
      const kopt_u32 words[4] = {cur.q[j].x, cur.q[j].y, cur.q[j].z, cur.q[j].w};
#pragma unroll
      for (int p = 0; p < 4; ++p)
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const kopt_u32 at16 = i <= 4 ? words[p] << (16 - 4 * i) : words[p] >> (4 * i - 16);
          wt[j][8 * p + i] =
              fmaf(__uint_as_float(kopt_and_or(at16, 0x000F0000u, 0x43000000u)), so.x, base);
        }
    }
    // Per row: 32 FMAs a column.
#pragma unroll
    for (int q4 = 0; q4 < 8; ++q4) {
#pragma unroll
      for (int r = 0; r < MR; ++r) {
        const float4 xv = x_slice[((r * per_steps + step) * 8 + q4) * KL + sub];
#pragma unroll
        for (int j = 0; j < COLS; ++j) {
          acc[r][j] = fmaf(wt[j][4 * q4], xv.x, acc[r][j]);
          acc[r][j] = fmaf(wt[j][4 * q4 + 1], xv.y, acc[r][j]);
          acc[r][j] = fmaf(wt[j][4 * q4 + 2], xv.z, acc[r][j]);
          acc[r][j] = fmaf(wt[j][4 * q4 + 3], xv.w, acc[r][j]);
        }
      }
    }
  };

  for (int s0 = 0; s0 < steps; s0 += DEPTH) {
#pragma unroll
    for (int d = 0; d < DEPTH; ++d) {
      const int step = s0 + d;
      if (step < steps) {
        consume(st[d], step);
        if (step + DEPTH < steps) load(st[d], step + DEPTH);
      }
    }
  }

  // The KL lanes of a column add their sums; the first writes them to y or
  // to this slice's partial sums.
  float* partials = ws + ((gridDim.x + 63) / 64) * 64;
  float* out = gridDim.y > 1 ? partials + (kopt_u64)blockIdx.y * M * N : y;
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      float v = acc[r][j];
#pragma unroll
      for (int m = KL / 2; m >= 1; m /= 2) v += kopt_shfl_xor(v, m);
      const int n = column(j);
      if (nch > 0 && sub == 0 && r < M && n < N) out[(kopt_u64)r * N + n] = v;
    }
  if (gridDim.y == 1) return;

  // Slices of K: the last block of this column range to finish (a ticket per
  // range, rearmed for the next call) adds the slices in order (deterministic).
  __shared__ int ncols_last;
  int* tickets = reinterpret_cast<int*>(ws);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    ncols_last = atomicAdd(&tickets[blockIdx.x], 1) == (int)gridDim.y - 1;
    if (ncols_last) tickets[blockIdx.x] = 0;
  }
  __syncthreads();
  if (!ncols_last) return;
  __threadfence();
  const volatile float* parts = partials;  // written by other blocks: not from L1
  const int n_begin = blockIdx.x * PER_BLOCK, n_end = min(N, n_begin + PER_BLOCK);
  for (int i = threadIdx.x; i < M * (n_end - n_begin); i += WARPS * W) {
    const int r = i / (n_end - n_begin), n = n_begin + i % (n_end - n_begin);
    float sum = 0.f;
    for (int s = 0; s < used_slices; ++s) sum += parts[((kopt_u64)s * M + r) * N + n];
    y[(kopt_u64)r * N + n] = sum;
  }
}
