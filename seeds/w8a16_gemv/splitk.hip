/* kopt:
{
  "name": "splitk",
  "description": "Split-K for few output channels or long rows: the grid's second dimension splits K into SPLIT slices; each warp sums ROWS channels over its slice with 16-byte int8 loads and writes fp32 partials to the workspace; a second kernel adds the SPLIT partials of each channel in a fixed order (deterministic) and applies the scale.",
  "launches": [
    {"kernel": "gemv_partial", "grid": ["cdiv(N, WARPS * ROWS)", "SPLIT"], "block": ["WARPS * WARP"]},
    {"kernel": "reduce_partials", "grid": ["cdiv(N, 256)"], "block": [256]}
  ],
  "workspace_bytes": "SPLIT * N * 4",
  "requires": ["K % 16 == 0"],
  "params": {
    "SPLIT": {"values": [2, 4, 8, 16], "default": 4},
    "ROWS":  {"values": [1, 2, 4], "default": 1},
    "WARPS": {"values": [2, 4, 8], "default": 4}
  }
}
*/
// x is read and y written through the dtype hooks (KOPT_X_PAIR, KOPT_Y_STORE;
// the device prelude), so the library builds this kernel for other dtypes too.

KOPT_INLINE __half2 as_half2(kopt_u32 v) {
#if defined(KOPT_NVIDIA)
  return *reinterpret_cast<__half2*>(&v);
#else
  __half2 h;
  __builtin_memcpy(&h, &v, 4);
  return h;
#endif
}

// Σ x·q over 16 weights (x as two 16-byte words of 16-bit values), exactly in fp32.
KOPT_INLINE float dot16(const uint4 q, const uint4 xa, const uint4 xb) {
  const kopt_u32 qw[4] = {q.x, q.y, q.z, q.w};
  const kopt_u32 xw[8] = {xa.x, xa.y, xa.z, xa.w, xb.x, xb.y, xb.z, xb.w};
  float acc = 0.f;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float2 h = KOPT_X_PAIR(as_half2(xw[i]));
    const kopt_u32 word = qw[i / 2];
    const int shift = 16 * (i % 2);
    acc += h.x * (float)(signed char)(word >> shift);
    acc += h.y * (float)(signed char)(word >> (shift + 8));
  }
  return acc;
}

KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemv_partial(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                               float* __restrict__ y, float* __restrict__ ws, int K, int N) {
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int first = (blockIdx.x * WARPS + threadIdx.x / KOPT_WARP_SIZE) * ROWS;
  if (first >= N) return;
  const int chunks = K / 16, per_slice = (chunks + SPLIT - 1) / SPLIT;
  const int begin = blockIdx.y * per_slice;
  const int end = begin + per_slice < chunks ? begin + per_slice : chunks;
  const uint4* xv = reinterpret_cast<const uint4*>(x);
  float acc[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) acc[r] = 0.f;
  for (int c = begin + lane; c < end; c += KOPT_WARP_SIZE) {
    const uint4 xa = xv[2 * c], xb = xv[2 * c + 1];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int n = first + r < N ? first + r : N - 1;
      acc[r] += dot16(kopt_load_stream16(reinterpret_cast<const uint4*>(w + (kopt_u64)n * K) + c), xa, xb);
    }
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const float sum = kopt_warp_sum(acc[r]);
    if (lane == 0 && first + r < N) ws[(kopt_u64)blockIdx.y * N + first + r] = sum;
  }
}

KOPT_KERNEL void reduce_partials(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                                 float* __restrict__ y, float* __restrict__ ws, int K, int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  float sum = 0.f;
  for (int s = 0; s < SPLIT; ++s) sum += ws[(kopt_u64)s * N + n];
  KOPT_Y_STORE(y, n, __half2float(kopt_w8_scales(w, K, N)[n]) * sum, false);
}
