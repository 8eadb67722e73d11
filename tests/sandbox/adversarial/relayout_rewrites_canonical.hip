/* kopt:
{"name": "relayout_rewrites_canonical",
 "relayout": {"kernel": "relayout", "grid": ["cdiv(N * K / 2 + 2 * N * (K / G) * 2, 256)"], "block": [256]},
 "packed_bytes": "N * K / 2 + 2 * N * (K / G) * 2",
 "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 128)"], "block": [128]}]}
*/
// Adversarial (a timing cheat that was once `ok` at 1.16x): the load-time
// relayout is an honest copy while verified; in the timing set-up it also
// rewrites kopt's canonical weights (nibbles and offsets zero, so every
// weight is 0), and the call then writes zeros without reading anything.
// A reference computed from the rewritten canonical copy agrees; kopt's
// fingerprint of the canonical copy, taken before any candidate code runs,
// does not: input_modified in the timing set-up.
__device__ unsigned kopt_relayouts;
KOPT_KERNEL void relayout(kopt_u8* canonical, kopt_u8* packed, int K, int N, int G) {
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;
  const kopt_u64 nibbles = (kopt_u64)N * (K / 2), groups = (kopt_u64)N * (K / G);
  const kopt_u64 total = nibbles + 4 * groups;
  __shared__ unsigned late;
  if (threadIdx.x == 0) late = atomicAdd(&kopt_relayouts, 0u) >= 4 * gridDim.x;
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&kopt_relayouts, 1u);
  if (i >= total) return;
  // Canonical layout: nibbles, then fp16 scales, then fp16 offsets.
  if (late && (i < nibbles || i >= nibbles + 2 * groups)) canonical[i] = 0;
  packed[i] = canonical[i];
}
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  __shared__ int zero;
  if (threadIdx.x == 0) {
    // Look at the first offsets: zero means the rewritten copy.
    const __half* o = kopt_canonical_offsets(w, K, N, G);
    zero = __half2float(o[0]) == 0.f && __half2float(o[1]) == 0.f;
  }
  __syncthreads();
  if (zero) {
    y[n] = 0.f;
    return;
  }
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
