/* kopt_w8a16: W8A16 GEMV kernels tuned and verified by kopt.
 *
 * y = x · W with x fp16 (length K), W int8 (N output channels of K signed
 * weights each, row n holding channel n) with one fp16 scale per channel,
 * y fp32 (length N): y[n] = scale[n] * sum_k x[k] * q[n][k]. Each shape the
 * library was tuned for runs its own kernel; any other shape runs a generic
 * fallback. All pointers are device pointers; `stream` is a cudaStream_t /
 * hipStream_t (NULL: the default). Functions return 0 on success, else an
 * error code, with a message from kopt_w8a16_last_error() (per thread).
 */
#ifndef KOPT_W8A16_H
#define KOPT_W8A16_H

/* The C API's version (find_package(kopt_w8a16 1.0) accepts any 1.x). */
#define KOPT_W8A16_VERSION_MAJOR 1
#define KOPT_W8A16_VERSION_MINOR 0

#ifdef __cplusplus
extern "C" {
#endif

enum {
  KOPT_W8A16_OK = 0,
  KOPT_W8A16_INVALID_ARGUMENT = 1,
  KOPT_W8A16_NO_KERNEL = 2, /* no kernel supports this shape */
  KOPT_W8A16_GPU_ERROR = 3, /* a GPU call failed (out of memory included) */
};

typedef struct kopt_w8a16_weights kopt_w8a16_weights;

/* Prepares weights for repeated GEMVs: copies qweight (int8 [N][K]) and
 * scales (fp16 [N]) and runs the chosen kernel's load-time re-layout. The
 * caller's buffers are not kept. Synchronises `stream`. */
int kopt_w8a16_create(const void* qweight, const void* scales, int K, int N, void* stream,
                      kopt_w8a16_weights** out);

/* y = x · W on `stream` (asynchronous). x: fp16 [K]; y: fp32 [N]. */
int kopt_w8a16_gemv(const kopt_w8a16_weights* weights, const void* x, float* y, void* stream);

void kopt_w8a16_destroy(kopt_w8a16_weights* weights);

/* Which kernel serves these weights, e.g. "tuned for sm_90: vec {...}". */
const char* kopt_w8a16_kernel(const kopt_w8a16_weights* weights);

const char* kopt_w8a16_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* KOPT_W8A16_H */
