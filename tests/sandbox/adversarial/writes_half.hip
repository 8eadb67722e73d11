/* kopt:
{"name": "writes_half", "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 256)"], "block": [256]}]}
*/
// Adversarial: computes only the first half of the outputs (correctly).
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N / 2) return;
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
