/* kopt:
{"name": "tensor_core_hidden", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]}
*/
// Adversarial: a tensor-core instruction hidden from a textual scan of the
// compiled code: the mnemonic is split from the statement delimiter by a
// comment inside the assembly string, and the asm sits in a macro.
#define KOPT_HIDE(x) x
#define MATH asm
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {
  unsigned a0 = 0, a1 = 0, b0 = 0;
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  MATH volatile("{/* layout: */mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};}"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(b0));
  y[threadIdx.x] = d0 + d1 + d2 + d3;
}
