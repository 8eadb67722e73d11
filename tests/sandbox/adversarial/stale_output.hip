/* kopt:
{"name": "stale_output", "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 256)"], "block": [256]}],
 "workspace_bytes": "4"}
*/
// Adversarial: computes y on the first call after load, then returns at once
// on later calls, hoping the output of the earlier call is still there.
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (ws[0] != 0.f) return;
  if (n < N) {
    const __half* s = kopt_canonical_scales(w, K, N, G) + (kopt_u64)n * (K / G);
    const __half* o = kopt_canonical_offsets(w, K, N, G) + (kopt_u64)n * (K / G);
    float acc = 0.f;
    for (int k = 0; k < K; ++k) {
      const kopt_u8 b = w[(kopt_u64)n * (K / 2) + k / 2];
      const int q = (k & 1) ? (b >> 4) : (b & 15);
      acc += __half2float(x[k]) * (__half2float(s[k / G]) * q + __half2float(o[k / G]));
    }
    y[n] = acc;
  }
  if (n == 0) ws[0] = 1.f;  // later calls skip the work
}
