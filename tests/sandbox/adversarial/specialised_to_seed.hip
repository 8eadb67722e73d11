/* kopt:
{"name": "specialised_to_seed",
 "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 256)"], "block": [256]}]}
*/
// Adversarial: overfitted to the verification data of one seed. It computes
// the real result only for inputs it has seen (recognised by the first four
// values of x; the test writes their bit patterns in for @FINGERPRINTS@) and
// returns zeros otherwise, as a kernel tuned against fixed test inputs
// would. Passes a sandbox that reuses its seeds; fails one that draws fresh
// inputs for every evaluation.
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  const kopt_u64 seen[] = {@FINGERPRINTS@};
  const kopt_u64 fingerprint = *reinterpret_cast<const kopt_u64*>(x);
  bool known = false;
  for (kopt_u64 f : seen) known = known || f == fingerprint;
  if (!known) {
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
