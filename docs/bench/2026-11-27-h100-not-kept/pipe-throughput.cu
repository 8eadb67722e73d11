// Throughput of dp4a, FFMA, HFMA2, IMAD per SM on this GPU.
#include <cstdio>
#include <cuda_fp16.h>
template <int OP>
__global__ void k(int* out, int iters, int seed) {
  int a[8]; float f[8]; __half2 h[8];
  for (int i = 0; i < 8; ++i) { a[i] = seed + i + threadIdx.x; f[i] = (float)a[i]; h[i] = __floats2half2_rn(f[i], f[i]); }
  const int b = seed * 3 + 1; const float fb = 1.0001f; const __half2 hb = __floats2half2_rn(1.0f, 1.0f);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 16; ++u)
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        if (OP == 0) asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
        if (OP == 1) f[i] = fmaf(f[i], fb, 0.5f);
        if (OP == 2) h[i] = __hfma2(h[i], hb, hb);
        if (OP == 3) asm volatile("mad.lo.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7]));
        if (OP == 4) { asm volatile("dp4a.s32.s32 %0, %1, %2, %0;" : "+r"(a[i]) : "r"(b), "r"(a[(i + 1) & 7])); f[i] = fmaf(f[i], fb, 0.5f); }
      }
  }
  int s = 0; for (int i = 0; i < 8; ++i) s += a[i] + (int)f[i] + (int)__low2float(h[i]);
  if (s == 123456789) out[0] = s;
}
template <int OP> void run(const char* name, int sms) {
  int* out; cudaMalloc(&out, 4);
  const int iters = 2000, blocks = sms * 8, threads = 256;
  k<OP><<<blocks, threads>>>(out, 10, 1);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0); k<OP><<<blocks, threads>>>(out, iters, 1); cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  const double ops = (double)blocks * threads * iters * 16 * 8;
  const double per_sm_clk = ops / (ms * 1e-3) / sms / (clk * 1e3);
  printf("%-8s %8.3f ms  %.1f lane-ops / clk / SM (at %d MHz max clock)\n", name, ms, per_sm_clk, clk / 1000);
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  run<0>("dp4a", sms); run<1>("ffma", sms); run<2>("hfma2", sms); run<3>("imad", sms); run<4>("dp4a+ffma", sms);
}
