// Shared-memory LDS.128 throughput per SM by address pattern (distinct 16-byte pieces a warp reads).
#include <cstdio>
template <int PAT>
__global__ void k(int* out, int iters) {
  __shared__ uint4 s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = make_uint4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int idx;
  if (PAT == 0) idx = lane;            // 32 distinct, contiguous
  if (PAT == 1) idx = lane & 7;        // 8 distinct, each quarter-warp the same 8
  if (PAT == 2) idx = lane >> 2;       // 8 distinct, each quarter-warp 2 of them
  if (PAT == 3) idx = 0;               // one
  if (PAT == 4) idx = lane & 15;       // 16 distinct, halves the same
  if (PAT == 5) idx = lane >> 1;       // 16 distinct, pairs
  unsigned acc = 0;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 16; ++u) {
      const uint4 v = s[(idx + u * 32 + warp * 64 + it) & 1023];
      acc += v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (acc == 123456789u) out[0] = acc;
}
template <int PAT> void run(const char* name, int sms) {
  int* out; cudaMalloc(&out, 4);
  const int iters = 4000, blocks = sms * 8, threads = 256;
  k<PAT><<<blocks, threads>>>(out, 10);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0); k<PAT><<<blocks, threads>>>(out, iters); cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  const double warp_loads = (double)blocks * threads / 32 * iters * 16;
  printf("%-34s %8.3f ms  %.2f clk per warp LDS.128 per SM\n", name, ms, (ms * 1e-3) * (clk * 1e3) * sms / warp_loads);
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int r = 0; r < 2; ++r) {
    run<0>("32 distinct contiguous", sms); run<1>("8 distinct, lane & 7", sms); run<2>("8 distinct, lane >> 2", sms);
    run<3>("1 address", sms); run<4>("16 distinct, lane & 15", sms); run<5>("16 distinct, lane >> 1", sms);
  }
}
