/* kopt:
{
  "name": "tile",
  "description": "Weights read once for all rows: a block owns WARPS x COLS columns (COLS per warp), MR rows of x (grid.y covers M in tiles of MR; rows past M are masked) and one of SPLIT slices of K (grid.z). The block walks its slice in steps of WARP x 32 k: it stages that part of its MR rows of x in shared memory (read once per block instead of once per column); each lane loads 32 consecutive nibbles (16 bytes) of each of its columns, one step ahead so the loads are in flight while it computes, dequantises them to fp32 eight at a time (nibble ORed into the mantissa of 128.0f, one FMA with the scale and the offset less 128 scales) and reuses them for every row: 32 FMAs per column and row per load. MR x COLS (at most 32; on gfx906, 32 with WARPS = 8 needs scratch) fp32 accumulators per lane and one warp-shuffle sum each; with SPLIT > 1 the slices' partial sums go to the workspace and a second launch adds them in a fixed order.",
  "launches": [{"kernel": "gemm", "grid": ["cdiv(N, WARPS * COLS)", "cdiv(M, MR)", "SPLIT"], "block": ["WARPS * WARP"]},
               {"kernel": "reduce", "grid": ["max(1, min(SPLIT - 1, 1) * cdiv(M * N, 256))"], "block": [256]}],
  "workspace_bytes": "min(SPLIT - 1, 1) * SPLIT * M * N * 4",
  "requires": ["K % 32 == 0", "G % 32 == 0", "MR * COLS <= 32"],
  "params": {
    "COLS":  {"values": [1, 2, 4, 8], "default": 4},
    "MR":    {"values": [1, 2, 4, 8, 16], "default": 4},
    "WARPS": {"values": [1, 2, 4, 8], "default": 8},
    "SPLIT": {"values": [1, 2, 4, 8], "default": 4}
  }
}
*/
KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                      float* __restrict__ y, float* __restrict__ ws, int K, int N, int G, int M) {
  // One step of K: 32 k per lane, as four 16-byte chunks of each staged row.
  __shared__ uint4 xs[MR][KOPT_WARP_SIZE * 4];
  const int lane = threadIdx.x % KOPT_WARP_SIZE, warp = threadIdx.x / KOPT_WARP_SIZE;
  const int n0 = (blockIdx.x * WARPS + warp) * COLS, m0 = blockIdx.y * MR;
  const int rows = min(MR, M - m0);
  const int step = KOPT_WARP_SIZE * 32;
  // This block's slice of K, in whole steps.
  const int steps = (K + step - 1) / step, per = (steps + SPLIT - 1) / SPLIT;
  const int k_begin = blockIdx.z * per * step, k_end = min(K, (int)(blockIdx.z + 1) * per * step);
  const __half* scales = kopt_canonical_scales(w, K, N, G);
  const __half* offsets = kopt_canonical_offsets(w, K, N, G);
  float acc[MR][COLS];
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int c = 0; c < COLS; ++c) acc[r][c] = 0.f;

  const kopt_u8* col[COLS];
  kopt_u64 groups[COLS];  // the column's first group
#pragma unroll
  for (int c = 0; c < COLS; ++c) {
    const int n = n0 + c < N ? n0 + c : N - 1;  // a column past N computes a copy, never written
    col[c] = w + (kopt_u64)n * (K / 2);
    groups[c] = (kopt_u64)n * (K / G);
  }
  uint4 next[COLS];
#pragma unroll
  for (int c = 0; c < COLS; ++c)
    next[c] = k_begin + lane * 32 < k_end ? *reinterpret_cast<const uint4*>(col[c] + (k_begin + lane * 32) / 2)
                                          : make_uint4(0u, 0u, 0u, 0u);

  for (int k0 = k_begin; k0 < k_end; k0 += step) {
    for (int t = threadIdx.x; t < MR * KOPT_WARP_SIZE * 4; t += blockDim.x) {
      const int r = t / (KOPT_WARP_SIZE * 4), l = t % (KOPT_WARP_SIZE * 4), k = k0 + l * 8;
      xs[r][l] = r < rows && k < k_end
                     ? *reinterpret_cast<const uint4*>(x + (kopt_u64)(m0 + r) * K + k)
                     : make_uint4(0u, 0u, 0u, 0u);
    }
    __syncthreads();
    const int k = k0 + lane * 32, k_next = k + step;
    uint4 word[COLS];
#pragma unroll
    for (int c = 0; c < COLS; ++c) {
      word[c] = next[c];
      if (k_next < k_end) next[c] = *reinterpret_cast<const uint4*>(col[c] + k_next / 2);
    }
    if (k < k_end) {
      float s[COLS], o[COLS];
#pragma unroll
      for (int c = 0; c < COLS; ++c) {  // G % 32 == 0: the 32 k share one group
        const kopt_u64 g = groups[c] + k / G;
        s[c] = __half2float(scales[g]);
        o[c] = fmaf(-128.f, s[c], __half2float(offsets[g]));
      }
#pragma unroll
      for (int part = 0; part < 4; ++part) {
        // Eight weights of each column in fp32, once for every row: a nibble
        // ORed into the mantissa of 128.0f is 128 + q exactly.
        float wf[COLS][8];
#pragma unroll
        for (int c = 0; c < COLS; ++c) {
          const unsigned bitsw = part == 0 ? word[c].x : part == 1 ? word[c].y : part == 2 ? word[c].z : word[c].w;
#pragma unroll
          for (int j = 0; j < 8; ++j) {
            const unsigned bits = 4 * j <= 16 ? (bitsw << (16 - 4 * j)) : (bitsw >> (4 * j - 16));
            wf[c][j] = fmaf(s[c], __uint_as_float(0x43000000u | (bits & 0xF0000u)), o[c]);
          }
        }
#pragma unroll
        for (int r = 0; r < MR; ++r) {
          if (r < rows) {  // (not break: the loop stays unrolled, acc in registers)
            const uint4 raw = xs[r][lane * 4 + part];
            const __half2* h = reinterpret_cast<const __half2*>(&raw);
            float xf[8];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
              const float2 f = __half22float2(h[j]);
              xf[2 * j] = f.x;
              xf[2 * j + 1] = f.y;
            }
#pragma unroll
            for (int c = 0; c < COLS; ++c)
#pragma unroll
              for (int j = 0; j < 8; ++j) acc[r][c] = fmaf(xf[j], wf[c][j], acc[r][c]);
          }
        }
      }
    }
    __syncthreads();
  }

  float* out = SPLIT > 1 ? ws + (kopt_u64)blockIdx.z * M * N : y;
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int c = 0; c < COLS; ++c) {
      const float v = kopt_warp_sum(acc[r][c]);
      if (lane == 0 && r < rows && n0 + c < N) out[(kopt_u64)(m0 + r) * N + n0 + c] = v;
    }
}

// The slices' partial sums, added in a fixed order (deterministic).
KOPT_KERNEL void reduce(const __half* x, const kopt_u8* w, float* __restrict__ y, const float* __restrict__ ws,
                        int K, int N, int G, int M) {
  if (SPLIT == 1) return;
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (kopt_u64)M * N) return;
  float sum = 0.f;
  for (int s = 0; s < SPLIT; ++s) sum += ws[(kopt_u64)s * M * N + i];
  y[i] = sum;
}
