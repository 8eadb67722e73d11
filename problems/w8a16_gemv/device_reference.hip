// kopt's trusted W8A16 reference: block (n, c) computes output n of call c
// in fp64 from kopt's own copy of x and the canonical weights.
KOPT_KERNEL void kopt_reference(const __half* const* xs, const kopt_u8* const* weights, double* refs,
                                int K, int N) {
  __shared__ double partial[128];
  const int n = blockIdx.x, c = blockIdx.y;
  const __half* x = xs[c];
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
    refs[(kopt_u64)c * N + n] = (double)__half2float(kopt_w8_scales(w, K, N)[n]) * partial[0];
}
