/* kopt:
{"name": "skips_unchecked_calls", "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 128)"], "block": [128]}]}
*/
// Adversarial: honest for the first calls (verification), then works only
// on the first, middle and last call of every 64 (the copies an older
// protocol checked after timing) and returns at once on the others.
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
__device__ unsigned kopt_calls;
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned call = *(volatile unsigned*)&kopt_calls;
  const unsigned p = call % 64;
  if (n < N && (call < 16 || p == 0 || p == 32 || p == 63)) y[n] = column(x, w, K, N, G, n);
  __syncthreads();
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) atomicAdd(&kopt_calls, 1u);
}
