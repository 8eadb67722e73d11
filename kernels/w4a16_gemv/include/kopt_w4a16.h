/* kopt_w4a16: W4A16 GEMV kernels tuned and verified by kopt.
 *
 * y = x · W with x fp16 (length K), W int4 group-quantized in kopt's
 * canonical format (see README "The problem"), y fp32 (length N). Each shape
 * the library was tuned for runs its own kernel; any other shape (even K, an
 * even G dividing K) runs a generic fallback. All pointers are device
 * pointers unless said otherwise; `stream` is a cudaStream_t / hipStream_t
 * (NULL: the default). Functions return 0 on success, else an error code,
 * with a message from kopt_w4a16_last_error() (per thread).
 *
 * Since 1.1: importers of the formats engines load (AWQ, GPTQ with or
 * without act-order, GGUF Q4_0/Q4_1), host-side, into kopt's canonical
 * arrays; bf16 activations and fp16/bf16 outputs; several rows of x.
 * Since 1.2: batched kernels for M > 1 rows (the weights read once).
 */
#ifndef KOPT_W4A16_H
#define KOPT_W4A16_H

/* The C API's version (find_package(kopt_w4a16 1.0) accepts any 1.x). */
#define KOPT_W4A16_VERSION_MAJOR 1
#define KOPT_W4A16_VERSION_MINOR 2

#include <stddef.h>
#include <stdint.h>

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

/* Element types of x and y (kopt_w4a16_gemm). */
enum {
  KOPT_W4A16_F32 = 0,
  KOPT_W4A16_F16 = 1,
  KOPT_W4A16_BF16 = 2,
};

/* y[m] = x[m] · W for the M rows of x (row-major, row stride K elements),
 * into y (row-major, row stride N elements), on `stream`. x: fp16 or bf16;
 * y: fp32, fp16 or bf16. The kernels accumulate in fp32 and convert y once.
 * bf16 x is converted to fp16 before the kernel (exact for |x| between
 * 2^-14 and 65504; beyond 65504 it saturates, below 2^-14 it loses bits as
 * fp16 subnormals do). One row runs on the batch-1 kernel chosen for the
 * shape; 2 or more on the batched kernels, which read the weights once for
 * up to 16 rows (a register path for 2 to 4 rows up to K = 8192, a shared
 * memory path in buckets of 4, 8 and 16 rows, and 2 past K = 8192; 8 at
 * most on a wavefront of 64; larger M in blocks of the largest), where the
 * shape's weights are in a layout they read (K and G multiples of 32, the
 * batch-1 kernel's layout checked byte for byte at create); otherwise rows
 * run one after another. kopt_w4a16_kernel says which. Weights imported with a K order (GPTQ
 * act-order) gather x in that order. One weights object serves one stream at a time (it holds the
 * staging buffers of x and y, 16 rows each, and the batched kernels' workspace, allocated at create
 * so that calls allocate nothing and can be captured in a graph). Since 1.1; batched kernels
 * since 1.2. */
int kopt_w4a16_gemm(const kopt_w4a16_weights* weights, const void* x, int x_dtype, int M, void* y,
                    int y_dtype, void* stream);

void kopt_w4a16_destroy(kopt_w4a16_weights* weights);

/* ---- Importers (host memory in, host memory out; no GPU needed) -------- */

/* kopt's canonical arrays in host memory: qweight uint8 [N][K/2] (low nibble
 * = even k), scales and offsets fp16 bits [N][K/G], w = scale·q + offset.
 * k_order: NULL, or [K]: kopt's position j holds the format's row
 * k_order[j] (GPTQ act-order; the library gathers x so). The offset −z·s is
 * computed in fp32 and rounded to fp16 once: max_offset_rounding is the
 * largest |rounded − exact| (at most 2^-11 · 16 · |s|, half an fp16 unit of
 * the offset). Release with kopt_w4a16_host_weights_free. */
typedef struct {
  int K, N, G;
  unsigned char* qweight;
  unsigned short* scales;
  unsigned short* offsets;
  int* k_order;
  float max_offset_rounding;
} kopt_w4a16_host_weights;

/* AutoAWQ's GEMM layout: qweight int32 [K][N/8] (column order 0,2,4,6,1,3,5,7
 * within a word), qzeros int32 [K/G][N/8] (same order), scales fp16 bits
 * [K/G][N]; w = (q − z)·s. */
int kopt_w4a16_import_awq(const int32_t* qweight, const int32_t* qzeros, const uint16_t* scales,
                          int K, int N, int G, kopt_w4a16_host_weights* out);

/* GPTQ: qweight int32 [K/8][N] (eight consecutive k per word, low nibble
 * first), qzeros int32 [K/G][N/8] (low nibble first), scales fp16 bits
 * [K/G][N], g_idx int32 [K] or NULL (act-order: each k's group; every group
 * must hold G rows). zeros_minus_one: 1 for the original format, which
 * stores z − 1 (AutoGPTQ, GPTQ-for-LLaMa), 0 where z is stored as it is
 * (GPTQModel's v2 format). w = (q − z)·s. */
int kopt_w4a16_import_gptq(const int32_t* qweight, const int32_t* qzeros, const uint16_t* scales,
                           const int32_t* g_idx, int K, int N, int G, int zeros_minus_one,
                           kopt_w4a16_host_weights* out);

/* ggml tensor types the GGUF importer reads. */
enum {
  KOPT_GGML_TYPE_Q4_0 = 2, /* blocks of 32: fp16 d, 16 bytes; w = d·(q − 8) */
  KOPT_GGML_TYPE_Q4_1 = 3, /* blocks of 32: fp16 d, fp16 m, 16 bytes; w = d·q + m */
};

/* A GGUF tensor of N rows (output features) of K values each (ggml's ne0 =
 * K, ne1 = N), `bytes` long; G is 32. */
int kopt_w4a16_import_gguf(const void* data, size_t bytes, int type, int K, int N,
                           kopt_w4a16_host_weights* out);

void kopt_w4a16_host_weights_free(kopt_w4a16_host_weights* host);

/* kopt_w4a16_create from host arrays (an importer's output): uploads them,
 * with the K order where there is one. Synchronises `stream`. Since 1.1. */
int kopt_w4a16_create_from_host(const kopt_w4a16_host_weights* host, void* stream,
                                kopt_w4a16_weights** out);

/* Which kernel serves these weights, e.g. "tuned 7168x9216: vec {...}". */
const char* kopt_w4a16_kernel(const kopt_w4a16_weights* weights);

const char* kopt_w4a16_last_error(void);

/* The GPUs the library sees; 0 without a GPU or a driver (the reason in
 * kopt_w4a16_last_error). Since 1.1. */
int kopt_w4a16_devices(void);

#ifdef __cplusplus
}
#endif

#endif /* KOPT_W4A16_H */
