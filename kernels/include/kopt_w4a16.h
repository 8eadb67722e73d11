/* kopt_w4a16: W4A16 GEMV kernels tuned and verified by kopt.
 *
 * y = x · W with x fp16 (length K), W int4 group-quantized in kopt's
 * canonical format (see README "The problem"), y fp32 (length N). Each shape
 * the library was tuned for runs its own kernel; any other shape (even K, an
 * even G dividing K) runs a generic fallback. All pointers are device
 * pointers; `stream` is a cudaStream_t / hipStream_t (NULL: the default).
 * Functions return 0 on success, else an error code, with a message from
 * kopt_w4a16_last_error() (per thread).
 */
#ifndef KOPT_W4A16_H
#define KOPT_W4A16_H

/* The C API's version (find_package(kopt_w4a16 1.0) accepts any 1.x). */
#define KOPT_W4A16_VERSION_MAJOR 1
#define KOPT_W4A16_VERSION_MINOR 0

#ifdef __cplusplus
extern "C" {
#endif

enum {
  KOPT_W4A16_OK = 0,
  KOPT_W4A16_INVALID_ARGUMENT = 1,
  KOPT_W4A16_NO_KERNEL = 2, /* no kernel supports this shape */
  KOPT_W4A16_GPU_ERROR = 3, /* a GPU call failed (out of memory included) */
};

typedef struct kopt_w4a16_weights kopt_w4a16_weights;

/* Prepares weights for repeated GEMVs: copies the canonical arrays
 * (qweight uint8 [N][K/2], low nibble = even k; scales and offsets fp16
 * [N][K/G]) and runs the chosen kernel's load-time re-layout. The caller's
 * buffers are not kept. Synchronises `stream`. */
int kopt_w4a16_create(const void* qweight, const void* scales, const void* offsets, int K, int N,
                      int G, void* stream, kopt_w4a16_weights** out);

/* y = x · W on `stream` (asynchronous). x: fp16 [K]; y: fp32 [N]. */
int kopt_w4a16_gemv(const kopt_w4a16_weights* weights, const void* x, float* y, void* stream);

void kopt_w4a16_destroy(kopt_w4a16_weights* weights);

/* Which kernel serves these weights, e.g. "tuned 7168x9216: vec {...}". */
const char* kopt_w4a16_kernel(const kopt_w4a16_weights* weights);

const char* kopt_w4a16_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* KOPT_W4A16_H */
