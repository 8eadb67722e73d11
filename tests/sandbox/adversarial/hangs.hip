/* kopt:
{"name": "hangs", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]}
*/
// Adversarial: never returns. The loop reads global memory through a volatile
// pointer, so the compiler may not remove it. The worker must be killed at
// the stage limit.
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  volatile float* flag = y;
  flag[threadIdx.x] = 0.f;
  while (flag[threadIdx.x] == 0.f) {
  }
}
