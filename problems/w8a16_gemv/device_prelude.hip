// W8A16 helpers appended to kopt's device prelude.
// The canonical blob (no re-layout): int8 q [N][K] at 0, then fp16 scales [N]
// after a 256-byte boundary.
KOPT_INLINE const __half* kopt_w8_scales(const kopt_u8* w, int K, int N) {
  return reinterpret_cast<const __half*>(w + kopt_align256((kopt_u64)N * K));
}
// Weight k of row n as a signed value.
KOPT_INLINE int kopt_w8_at(const kopt_u8* w, int K, int n, int k) {
  return (int)(signed char)w[(kopt_u64)n * K + k];
}
