/* kopt:
{"name": "printf_flood", "launches": [{"kernel": "gemv", "grid": [64], "block": [256]}]}
*/
// Adversarial: floods the output with printf (and computes nothing).
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  for (int i = 0; i < 64; ++i) printf("flood %d %d %d\n", blockIdx.x, threadIdx.x, i);
}
