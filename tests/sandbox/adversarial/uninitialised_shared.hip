/* kopt:
{"name": "uninitialised_shared",
 "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 32)"], "block": [256]}]}
*/
// Adversarial: a block reduction over eight partial-sum slots of which only
// four are ever written; the other four are assumed to hold zero. Right on
// hardware whose shared memory happens to start zeroed, wrong otherwise.
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  __shared__ float partial[8][32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int n = blockIdx.x * 32 + lane;
  if (warp < 4 && n < N) {
    const __half* s = kopt_canonical_scales(w, K, N, G) + (kopt_u64)n * (K / G);
    const __half* o = kopt_canonical_offsets(w, K, N, G) + (kopt_u64)n * (K / G);
    const int quarter = K / 4;
    float acc = 0.f;
    for (int k = warp * quarter; k < (warp + 1) * quarter; ++k) {
      const kopt_u8 b = w[(kopt_u64)n * (K / 2) + k / 2];
      const int q = (k & 1) ? (b >> 4) : (b & 15);
      acc += __half2float(x[k]) * (__half2float(s[k / G]) * q + __half2float(o[k / G]));
    }
    partial[warp][lane] = acc;
  }
  __syncthreads();
  if (warp == 0 && n < N) {
    float sum = 0.f;
    for (int i = 0; i < 8; ++i) sum += partial[i][lane];  // slots 4..7 never written
    y[n] = sum;
  }
}
