/* kopt:
{"name": "faults", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]}
*/
// Adversarial: writes through a wild pointer (an illegal address).
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  float* wild = reinterpret_cast<float*>(0x10);
  wild[threadIdx.x] = 1.0f;
}
