/* kopt:
{
  "name": "naive",
  "description": "Readable baseline on the canonical layout: one warp per output column, lanes stride over the packed bytes of that column, fp32 accumulation, a warp-shuffle sum.",
  "launches": [{"kernel": "gemv", "grid": ["cdiv(N, WARPS)"], "block": ["WARPS * WARP"]}],
  "params": {"WARPS": {"values": [1, 2, 4, 8, 16], "default": 4}}
}
*/
// y[n] = sum_k x[k] * (scale[n][k/G] * q[n][k] + offset[n][k/G])
KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemv(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                      float* __restrict__ y, float* __restrict__ ws, int K, int N, int G) {
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int n = blockIdx.x * WARPS + threadIdx.x / KOPT_WARP_SIZE;
  if (n >= N) return;  // whole warps leave together, so the shuffles below stay full
  const kopt_u8* row = w + (kopt_u64)n * (K / 2);
  const __half* scales = kopt_canonical_scales(w, K, N, G) + (kopt_u64)n * (K / G);
  const __half* offsets = kopt_canonical_offsets(w, K, N, G) + (kopt_u64)n * (K / G);
  float acc = 0.f;
  for (int j = lane; j < K / 2; j += KOPT_WARP_SIZE) {
    const int k = 2 * j;
    const float s = __half2float(scales[k / G]);
    const float o = __half2float(offsets[k / G]);
    const kopt_u8 b = row[j];
    acc += __half2float(x[k]) * (s * (float)(b & 15) + o);
    acc += __half2float(x[k + 1]) * (s * (float)(b >> 4) + o);
  }
  acc = kopt_warp_sum(acc);
  if (lane == 0) y[n] = acc;
}
