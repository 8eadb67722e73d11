// W4A16 helpers appended to kopt's device prelude.
// The canonical blob (no re-layout): qweight uint8 [N][K/2] at 0, then fp16
// scales [N][K/G], then fp16 offsets [N][K/G], each section 256-byte aligned.
KOPT_INLINE const __half* kopt_canonical_scales(const kopt_u8* w, int K, int N, int G) {
  return reinterpret_cast<const __half*>(w + kopt_align256((kopt_u64)N * (K / 2)));
}
KOPT_INLINE const __half* kopt_canonical_offsets(const kopt_u8* w, int K, int N, int G) {
  return reinterpret_cast<const __half*>(w + kopt_align256((kopt_u64)N * (K / 2)) +
                                         kopt_align256((kopt_u64)N * (K / G) * 2));
}
