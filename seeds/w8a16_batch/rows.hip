/* kopt:
{
  "name": "rows",
  "description": "What a batch-1 kernel does with M rows: one warp per output channel, lanes stride over the channel's int8 weights, fp32 accumulation and a warp-shuffle sum, once per row of x (the weights are read M times, mostly from the L2). The readable baseline of the batched problem; any K and N.",
  "launches": [{"kernel": "gemm", "grid": ["cdiv(N, WARPS)"], "block": ["WARPS * WARP"]}],
  "params": {"WARPS": {"values": [1, 2, 4, 8, 16], "default": 4}}
}
*/
// Y[m][n] = scale[n] * sum_k X[m][k] * q[n][k]
KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                      float* __restrict__ y, float* __restrict__ ws, int K, int N, int M) {
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int n = blockIdx.x * WARPS + threadIdx.x / KOPT_WARP_SIZE;
  if (n >= N) return;  // whole warps leave together, so the shuffles below stay full
  const float scale = __half2float(kopt_w8_scales(w, K, N)[n]);
  for (int m = 0; m < M; ++m) {
    const __half* xm = x + (kopt_u64)m * K;
    float acc = 0.f;
    for (int k = lane; k < K; k += KOPT_WARP_SIZE) acc += __half2float(xm[k]) * (float)kopt_w8_at(w, K, n, k);
    acc = kopt_warp_sum(acc);
    if (lane == 0) y[(kopt_u64)m * N + n] = scale * acc;
  }
}
