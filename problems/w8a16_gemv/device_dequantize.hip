// The vendor BLAS baseline's load-time step: the canonical weights
// dequantised to fp16, row n holding the K weights of output n.
KOPT_KERNEL void kopt_dequantize_fp16(const kopt_u8* w, __half* out, int K, int N) {
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;  // one weight
  if (i >= (kopt_u64)N * K) return;
  const int n = (int)(i / K), k = (int)(i % K);
  out[i] = __float2half(__half2float(kopt_w8_scales(w, K, N)[n]) * (float)kopt_w8_at(w, K, n, k));
}
