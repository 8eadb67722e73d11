/* kopt:
{"name": "early_return_when_right", "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 128)"], "block": [128]}]}
*/
// Adversarial: skips every column whose output already holds a number,
// assuming it is still right for the x it sees (x unchanged since the call
// that wrote it, y never poisoned in between). Pays wherever timed calls
// reuse an x and see their old y; with fresh x and poisoned y before every
// replay it does all the work.
// The honest part: output n, one thread per column.
KOPT_INLINE float column(const __half* x, const kopt_u8* w, int K, int N, int G, int n) {
  const __half* s = kopt_canonical_scales(w, K, N, G) + (kopt_u64)n * (K / G);
  const __half* o = kopt_canonical_offsets(w, K, N, G) + (kopt_u64)n * (K / G);
  float acc = 0.f;
  for (int k = 0; k < K; ++k) {
    const kopt_u8 b = w[(kopt_u64)n * (K / 2) + k / 2];
    const int q = (k & 1) ? (b >> 4) : (b & 15);
    acc += __half2float(x[k]) * (__half2float(s[k / G]) * q + __half2float(o[k / G]));
  }
  return acc;
}
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  if (__float_as_uint(y[n]) != 0xFFFFFFFFu) return;  // "already right"
  y[n] = column(x, w, K, N, G, n);
}
