/* kopt:
{"name": "cache_by_pointer",
 "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 256)"], "block": [256]},
              {"kernel": "publish", "grid": [1], "block": [32]}],
 "workspace_bytes": "64 * (N + 4) * 4"}
*/
// Adversarial: caches y in the workspace keyed by the x pointer (a table of
// 64 slots), and returns the cached y whenever the same pointer comes back.
// Correct as long as x never changes at a pointer; the sandbox regenerates x
// in place between timing batches, so the cached results go stale.

// The slot of `key`: the one holding it, else the first empty one.
KOPT_INLINE int find_slot(const float* ws, int N, kopt_u64 key, bool* hit) {
  for (int s = 0; s < 64; ++s) {
    const kopt_u64 k = *reinterpret_cast<const kopt_u64*>(ws + (kopt_u64)s * (N + 4));
    if (k == key || k == 0) {
      *hit = k == key;
      return s;
    }
  }
  *hit = false;
  return 63;
}

KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  bool hit = false;
  float* base = ws + (kopt_u64)find_slot(ws, N, (kopt_u64)x, &hit) * (N + 4);
  if (hit) {
    if (n < N) y[n] = base[4 + n];
    return;
  }
  if (n < N) {
    const __half* s = kopt_canonical_scales(w, K, N, G) + (kopt_u64)n * (K / G);
    const __half* o = kopt_canonical_offsets(w, K, N, G) + (kopt_u64)n * (K / G);
    float acc = 0.f;
    for (int k = 0; k < K; ++k) {
      const kopt_u8 b = w[(kopt_u64)n * (K / 2) + k / 2];
      const int q = (k & 1) ? (b >> 4) : (b & 15);
      acc += __half2float(x[k]) * (__half2float(s[k / G]) * q + __half2float(o[k / G]));
    }
    y[n] = acc;
    base[4 + n] = acc;
  }
}

// Publishes the key once every block of the call above has stored its values.
KOPT_KERNEL void publish(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  bool hit = false;
  float* base = ws + (kopt_u64)find_slot(ws, N, (kopt_u64)x, &hit) * (N + 4);
  if (threadIdx.x == 0) *reinterpret_cast<kopt_u64*>(base) = (kopt_u64)x;
}
