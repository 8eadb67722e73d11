/* kopt:
{"name": "mutates_input_in_timing", "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 128)"], "block": [128]}]}
*/
// Adversarial: right results, but once verification is over it overwrites
// x after using it (a kernel could leave itself a marker this way).
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
  if (n < N) y[n] = column(x, w, K, N, G, n);
  __syncthreads();
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
    if (atomicAdd(&kopt_calls, 1u) >= 16) ((__half*)x)[K - 1] = __float2half(0.f);
  }
}
