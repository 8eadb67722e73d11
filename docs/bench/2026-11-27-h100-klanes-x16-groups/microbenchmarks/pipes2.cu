// Throughput of dp2a and of dp4a beside ALU, HFMA2 and conversion work, per SM.
#include <cstdio>
#include <cuda_fp16.h>
template <int OP>
__global__ void k(int* out, int iters, int seed) {
  int a[8]; float f[8]; __half2 h[8]; unsigned l[8];
  for (int i = 0; i < 8; ++i) { a[i] = seed + i + threadIdx.x; f[i] = (float)a[i]; h[i] = __floats2half2_rn(f[i], f[i]); l[i] = a[i] * 77u; }
  const int b = seed * 3 + 1; const float fb = 1.0001f; const __half2 hb = __floats2half2_rn(1.0f, 1.0f);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 16; ++u)
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        if (OP == 0) asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
        if (OP == 1) asm volatile("dp2a.lo.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
        if (OP == 2) { if (i & 1) asm volatile("dp2a.lo.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
                       else asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7])); }
        if (OP == 3) { asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
                       asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(l[i]) : "r"(b), "r"(l[(i + 3) & 7])); }
        if (OP == 4) { asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
                       asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(l[i]) : "r"(b), "r"(l[(i + 3) & 7]));
                       asm volatile("add.u32 %0, %0, %1;" : "+r"(l[i]) : "r"(l[(i + 5) & 7])); }
        if (OP == 5) { asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
                       h[i] = __hfma2(h[i], hb, hb); }
        if (OP == 6) { asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
                       if ((i & 3) == 0) { float t; asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(t) : "r"(a[(i + 2) & 7])); f[i] += t; } }
        if (OP == 7) { float t; asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(t) : "r"(a[i])); a[i] = __float_as_int(t) ^ b; }
        if (OP == 8) { asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
                       asm volatile("mad.lo.s32 %0, %1, %2, %0;" : "+r"(l[i]) : "r"(b), "r"(l[(i + 1) & 7])); }
        if (OP == 9) { asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
                       asm volatile("shl.b32 %0, %0, 3;" : "+r"(l[i]));
                       asm volatile("add.u32 %0, %0, %1;" : "+r"(l[i]) : "r"(l[(i + 5) & 7])); 
                       f[i] = fmaf(f[i], fb, 0.5f); }
        if (OP == 10) { asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
                       asm volatile("dp2a.hi.s32.s32 %0, %1, %2, %0;" : "+r"(l[i]) : "r"(b), "r"(l[(i + 1) & 7])); }
      }
  }
  int s = 0; for (int i = 0; i < 8; ++i) s += a[i] + (int)f[i] + (int)__low2float(h[i]) + l[i];
  if (s == 123456789) out[0] = s;
}
template <int OP> void run(const char* name, double per_iter, int sms) {
  int* out; cudaMalloc(&out, 4);
  const int iters = 2000, blocks = sms * 8, threads = 256;
  k<OP><<<blocks, threads>>>(out, 10, 1);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0); k<OP><<<blocks, threads>>>(out, iters, 1); cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  const double ops = (double)blocks * threads * iters * 16 * 8 * per_iter;
  const double per_sm_clk = ops / (ms * 1e-3) / sms / (clk * 1e3);
  printf("%-22s %8.3f ms  %.1f lead-op lanes / clk / SM\n", name, ms, per_sm_clk);
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int rep = 0; rep < 2; ++rep) {
  run<0>("dp4a", 1, sms); run<1>("dp2a", 1, sms); run<2>("dp4a/dp2a alternate", 1, sms);
  run<3>("dp4a+lop3", 1, sms); run<4>("dp4a+lop3+iadd", 1, sms); run<5>("dp4a+hfma2", 1, sms);
  run<6>("dp4a+cvt/4", 1, sms); run<7>("cvt+lop (chain)", 1, sms); run<8>("dp4a+imad", 1, sms);
  run<9>("dp4a+shl+iadd+ffma", 1, sms); run<10>("dp4a+dp2a", 1, sms);
  }
}
