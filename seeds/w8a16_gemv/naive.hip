/* kopt:
{
  "name": "naive",
  "description": "Readable baseline on the canonical layout: one warp per output channel, lanes stride over the int8 weights of that row, fp32 accumulation, a warp-shuffle sum, the channel's scale applied once.",
  "launches": [{"kernel": "gemv", "grid": ["cdiv(N, WARPS)"], "block": ["WARPS * WARP"]}],
  "params": {"WARPS": {"values": [1, 2, 4, 8, 16], "default": 4}}
}
*/
// y[n] = scale[n] * sum_k x[k] * q[n][k]
KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemv(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                      float* __restrict__ y, float* __restrict__ ws, int K, int N) {
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int n = blockIdx.x * WARPS + threadIdx.x / KOPT_WARP_SIZE;
  if (n >= N) return;  // whole warps leave together, so the shuffles below stay full
  const signed char* row = reinterpret_cast<const signed char*>(w) + (kopt_u64)n * K;
  float acc = 0.f;
  for (int k = lane; k < K; k += KOPT_WARP_SIZE) acc += __half2float(x[k]) * (float)row[k];
  acc = kopt_warp_sum(acc);
  if (lane == 0) y[n] = __half2float(kopt_w8_scales(w, K, N)[n]) * acc;
}
