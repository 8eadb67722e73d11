/* kopt:
{
  "name": "splitk",
  "description": "Split-K for few columns and long rows (e.g. 5120x256, 7168x1024): grid.y = SPLIT slices of K, each writing fp32 partial sums to the workspace; a second launch adds the SPLIT partials in a fixed order (deterministic). Canonical layout, 16-byte loads, 0x6400 dequantisation.",
  "launches": [
    {"kernel": "gemv_partial", "grid": ["cdiv(N, WARPS * (WARP / LPR) * ROWS)", "SPLIT"], "block": ["WARPS * WARP"]},
    {"kernel": "reduce_partials", "grid": ["cdiv(N, 256)"], "block": [256]}
  ],
  "workspace_bytes": "SPLIT * N * 4",
  "requires": ["K % 32 == 0", "G % 32 == 0", "LPR <= WARP"],
  "params": {
    "SPLIT": {"values": [2, 4, 8, 16, 32], "default": 8},
    "ROWS":  {"values": [1, 2, 4, 8], "default": 1},
    "WARPS": {"values": [1, 2, 4, 8], "default": 4},
    "LPR":   {"values": [4, 8, 16, 32, 64], "default": 32}
  }
}
*/
// Defaults: the fastest of a 16-point sweep (SPLIT x LPR x ROWS) on 5120x256,
// NVIDIA H200, 2026-11-22 (scripts/sweep-seed.sh).
// x is read and y written through the dtype hooks (KOPT_X_PAIR, KOPT_Y_STORE;
// the device prelude), so the library builds this kernel for other dtypes too.
// The slices' partial sums in the workspace stay fp32.

// Partial y over one slice of K, canonical layout:
// sum x*(s*q + o) = s * sum x*(1024+q) + (o - 1024 s) * sum x  per 32-nibble chunk.
KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemv_partial(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                              float* __restrict__ y, float* __restrict__ ws, int K, int N, int G) {
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int warp = threadIdx.x / KOPT_WARP_SIZE;
  const int sub = lane / LPR, sl = lane % LPR;
  const int row0 = (blockIdx.x * WARPS + warp) * ((KOPT_WARP_SIZE / LPR) * ROWS) + sub * ROWS;
  const int chunks = K / 32;
  const int per_split = (chunks + SPLIT - 1) / SPLIT;
  const int c_begin = blockIdx.y * per_split;
  const int c_end = min(chunks, c_begin + per_split);
  const __half* scales = kopt_canonical_scales(w, K, N, G);
  const __half* offsets = kopt_canonical_offsets(w, K, N, G);

  float part[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) part[r] = 0.f;
  for (int c = c_begin + sl; c < c_end; c += LPR) {
    // Weights, scales and offsets all requested before any is used: one
    // memory latency per iteration, not two.
    uint4 q[ROWS];
    __half s_h[ROWS], o_h[ROWS];
    const int g = (c * 32) / G;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const kopt_u64 row = (kopt_u64)min(row0 + r, N - 1);
      q[r] = kopt_load_stream16(w + row * (K / 2) + (kopt_u64)c * 16);
      s_h[r] = scales[row * (K / G) + g];
      o_h[r] = offsets[row * (K / G) + g];
    }
    const uint4* xv = reinterpret_cast<const uint4*>(x + c * 32);
    float xf[32];
    float xsum = 0.f;
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const uint4 h = xv[v];
      const kopt_u32 hw[4] = {h.x, h.y, h.z, h.w};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float2 f = KOPT_X_PAIR(*reinterpret_cast<const __half2*>(&hw[e]));
        xf[8 * v + 2 * e] = f.x;
        xf[8 * v + 2 * e + 1] = f.y;
        xsum += f.x + f.y;
      }
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const float s = __half2float(s_h[r]), o = __half2float(o_h[r]);
      const kopt_u32 words[4] = {q[r].x, q[r].y, q[r].z, q[r].w};
      float acc = 0.f;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const float2 f = __half22float2(kopt_nibbles_plus_1024(words[j], 4 * i));
          acc = fmaf(xf[8 * j + i], f.x, acc);
          acc = fmaf(xf[8 * j + i + 4], f.y, acc);
        }
      }
      part[r] += s * acc + (o - 1024.f * s) * xsum;
    }
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    float v = part[r];
#pragma unroll
    for (int m = LPR / 2; m > 0; m >>= 1) v += kopt_shfl_xor(v, m);
    if (sl == 0 && row0 + r < N) ws[(kopt_u64)blockIdx.y * N + row0 + r] = v;
  }
}

// y[n] = sum over slices, always in slice order, so results repeat bit for bit.
KOPT_KERNEL void reduce_partials(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                                 float* __restrict__ y, float* __restrict__ ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  float v = 0.f;
#pragma unroll
  for (int s = 0; s < SPLIT; ++s) v += ws[(kopt_u64)s * N + n];
  KOPT_Y_STORE(y, n, v, false);
}
