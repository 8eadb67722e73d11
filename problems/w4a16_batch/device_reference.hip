// kopt's trusted reference for M rows: block (i, c) computes element i of
// call c's Y (row i / N, column i % N) in fp64 from kopt's own copy of X and
// the canonical weights.
KOPT_KERNEL void kopt_reference(const __half* const* xs, const kopt_u8* const* weights, double* refs,
                                int K, int N, int G, int M) {
  __shared__ double partial[128];
  const int i = blockIdx.x, c = blockIdx.y, m = i / N, n = i % N;
  const __half* x = xs[c] + (kopt_u64)m * K;
  const kopt_u8* w = weights[c];
  const kopt_u8* q = w + (kopt_u64)n * (K / 2);
  const __half* scales = kopt_canonical_scales(w, K, N, G) + (kopt_u64)n * (K / G);
  const __half* offsets = kopt_canonical_offsets(w, K, N, G) + (kopt_u64)n * (K / G);
  double acc = 0;
  for (int k = threadIdx.x; k < K; k += blockDim.x) {
    const kopt_u8 b = q[k >> 1];
    const double qv = (double)((k & 1) ? (b >> 4) : (b & 15));
    const double wv = (double)__half2float(scales[k / G]) * qv + (double)__half2float(offsets[k / G]);
    acc += (double)__half2float(x[k]) * wv;
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) refs[(kopt_u64)c * M * N + i] = partial[0];
}
