/* kopt:
{"name": "compile_bomb", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]}
*/
// Adversarial: a small source that expands to a million dependent
// floating-point statements, so compilation runs for minutes.
#define BOMB1(s) s s s s s s s s s s
#define BOMB2(s) BOMB1(BOMB1(s))
#define BOMB6(s) BOMB2(BOMB2(BOMB2(s)))
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  float v = __half2float(x[threadIdx.x]);
  BOMB6(v = v * 1.0001f + 0.5f;)
  y[threadIdx.x] = v;
}
