// The vendor BLAS baseline's load-time step: the canonical weights
// dequantised to fp16, row n holding the K weights of output n.
KOPT_KERNEL void kopt_dequantize_fp16(const kopt_u8* w, __half* out, int K, int N, int G) {
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;  // one weight
  if (i >= (kopt_u64)N * K) return;
  const kopt_u64 n = i / K;
  const int k = (int)(i % K);
  const kopt_u64 g = n * (K / G) + k / G;
  const kopt_u8 b = w[n * (K / 2) + k / 2];
  const float s = __half2float(kopt_canonical_scales(w, K, N, G)[g]);
  const float o = __half2float(kopt_canonical_offsets(w, K, N, G)[g]);
  out[i] = __float2half(s * (float)((k & 1) ? (b >> 4) : (b & 15)) + o);
}
