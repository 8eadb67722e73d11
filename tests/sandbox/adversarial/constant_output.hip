/* kopt:
{"name": "constant_output", "launches": [{"kernel": "gemv", "grid": ["cdiv(N, 256)"], "block": [256]}]}
*/
// Adversarial: writes the same value everywhere.
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n < N) y[n] = 0.0f;
}
