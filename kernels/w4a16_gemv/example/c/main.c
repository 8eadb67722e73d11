/* kopt_w4a16 from C: one small GEMV whose result is known exactly, through
 * the GPU runtime's C API (CUDA or HIP, as the library was built).
 * Exit 0: the result matched; 1: it did not or a call failed; 3: no GPU. */
#include <kopt_w4a16.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime_api.h>
#define gpu_error_t hipError_t
#define gpu_success hipSuccess
#define gpu_malloc hipMalloc
#define gpu_free hipFree
#define gpu_to_device(d, h, n) hipMemcpy(d, h, n, hipMemcpyHostToDevice)
#define gpu_to_host(h, d, n) hipMemcpy(h, d, n, hipMemcpyDeviceToHost)
#define gpu_synchronize hipDeviceSynchronize
#define gpu_count hipGetDeviceCount
#define gpu_error_string hipGetErrorString
#else
#include <cuda_runtime_api.h>
#define gpu_error_t cudaError_t
#define gpu_success cudaSuccess
#define gpu_malloc cudaMalloc
#define gpu_free cudaFree
#define gpu_to_device(d, h, n) cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)
#define gpu_to_host(h, d, n) cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost)
#define gpu_synchronize cudaDeviceSynchronize
#define gpu_count cudaGetDeviceCount
#define gpu_error_string cudaGetErrorString
#endif

enum { K = 256, N = 40, G = 64 }; /* N < 128 and not a power of two: a generic kernel */

/* fp16 bits of small integers (exact): sign, exponent, 10-bit mantissa. */
static uint16_t half_of_int(int v) {
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned m = (unsigned)(v < 0 ? -v : v);
  int e = 0;
  while ((m >> e) > 1) ++e;
  return (uint16_t)(sign | ((e + 15) << 10) | ((m << (10 - e)) & 0x3ff));
}

#define CHECK_GPU(call)                                                   \
  do {                                                                    \
    gpu_error_t e_ = (call);                                              \
    if (e_ != gpu_success) {                                              \
      fprintf(stderr, "%s failed: %s\n", #call, gpu_error_string(e_));    \
      return 1;                                                           \
    }                                                                     \
  } while (0)

int main(void) {
  printf("kopt_w4a16 C API %d.%d\n", KOPT_W4A16_VERSION_MAJOR, KOPT_W4A16_VERSION_MINOR);
  /* Bad arguments are refused with a message, GPU or not. */
  kopt_w4a16_weights* w = NULL;
  if (kopt_w4a16_create(NULL, NULL, NULL, K, N, G, NULL, &w) != KOPT_W4A16_INVALID_ARGUMENT) {
    fprintf(stderr, "a null pointer was not refused\n");
    return 1;
  }
  printf("null pointers refused: %s\n", kopt_w4a16_last_error());
  int devices = 0;
  if (gpu_count(&devices) != gpu_success || devices == 0) {
    printf("no GPU: the GEMV is not run\n");
    return 3;
  }
  /* W[n][k] = s·q + o with q = (n + k) % 16, s = 1, o = -8 (exact in fp16);
   * x[k] = (k % 5) - 2, so y[n] = Σ x[k]·((n + k) % 16 - 8) exactly. */
  static uint8_t q[N * K / 2];
  static uint16_t scales[N * (K / G)], offsets[N * (K / G)], x[K];
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; k += 2)
      q[n * (K / 2) + k / 2] = (uint8_t)(((n + k) % 16) | (((n + k + 1) % 16) << 4));
  for (int i = 0; i < N * (K / G); ++i) scales[i] = half_of_int(1), offsets[i] = half_of_int(-8);
  for (int k = 0; k < K; ++k) x[k] = half_of_int(k % 5 - 2);
  void *dq = NULL, *ds = NULL, *doff = NULL, *dx = NULL, *dy = NULL;
  CHECK_GPU(gpu_malloc(&dq, sizeof q));
  CHECK_GPU(gpu_malloc(&ds, sizeof scales));
  CHECK_GPU(gpu_malloc(&doff, sizeof offsets));
  CHECK_GPU(gpu_malloc(&dx, sizeof x));
  CHECK_GPU(gpu_malloc(&dy, N * sizeof(float)));
  CHECK_GPU(gpu_to_device(dq, q, sizeof q));
  CHECK_GPU(gpu_to_device(ds, scales, sizeof scales));
  CHECK_GPU(gpu_to_device(doff, offsets, sizeof offsets));
  CHECK_GPU(gpu_to_device(dx, x, sizeof x));
  if (kopt_w4a16_create(dq, ds, doff, K, N, G, NULL, &w) != KOPT_W4A16_OK ||
      kopt_w4a16_gemv(w, dx, (float*)dy, NULL) != KOPT_W4A16_OK) {
    fprintf(stderr, "kopt_w4a16: %s\n", kopt_w4a16_last_error());
    return 1;
  }
  CHECK_GPU(gpu_synchronize());
  float y[N];
  CHECK_GPU(gpu_to_host(y, dy, sizeof y));
  int bad = 0;
  for (int n = 0; n < N; ++n) {
    double ref = 0;
    for (int k = 0; k < K; ++k) ref += (k % 5 - 2) * (double)((n + k) % 16 - 8);
    if (fabs(y[n] - ref) > 1e-2 + 1e-2 * fabs(ref)) {
      if (!bad) fprintf(stderr, "y[%d] = %g, expected %g\n", n, y[n], ref);
      ++bad;
    }
  }
  printf("%dx%d/g%d through %s: %s\n", K, N, G, kopt_w4a16_kernel(w), bad ? "WRONG" : "ok");
  kopt_w4a16_destroy(w);
  gpu_free(dq), gpu_free(ds), gpu_free(doff), gpu_free(dx), gpu_free(dy);
  return bad ? 1 : 0;
}
