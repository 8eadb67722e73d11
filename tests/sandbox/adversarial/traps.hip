/* kopt:
{"name": "traps", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]}
*/
// Adversarial: aborts the kernel with a trap.
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  __trap();
}
