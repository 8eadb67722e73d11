/* kopt:
{"name": "reads_out_of_bounds", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]}
*/
// Adversarial: reads gigabytes past the end of x (an illegal address).
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  const float far = __half2float(x[(kopt_u64)1 << 40]);
  y[threadIdx.x] = far;
}
