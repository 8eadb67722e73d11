// kopt's trusted reference for M rows: block (i, c) computes element i of
// call c's Y (row i / N, channel i % N) in fp64 from kopt's own copy of X
// and the canonical weights.
KOPT_KERNEL void kopt_reference(const __half* const* xs, const kopt_u8* const* weights, double* refs,
                                int K, int N, int M) {
  __shared__ double partial[128];
  const int i = blockIdx.x, c = blockIdx.y, m = i / N, n = i % N;
  const __half* x = xs[c] + (kopt_u64)m * K;
  const kopt_u8* w = weights[c];
  double acc = 0;
  for (int k = threadIdx.x; k < K; k += blockDim.x)
    acc += (double)__half2float(x[k]) * (double)kopt_w8_at(w, K, n, k);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    refs[(kopt_u64)c * M * N + i] = (double)__half2float(kopt_w8_scales(w, K, N)[n]) * partial[0];
}
