/* kopt:
{"name": "hangs", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]}
*/
// Adversarial: never returns. The worker must be killed at the stage limit.
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  volatile int spin = 1;
  while (spin) {
  }
}
