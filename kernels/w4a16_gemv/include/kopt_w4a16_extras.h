/* What kopt_w4a16 adds to the C API every kopt library has (kopt_w4a16.h,
 * which includes this file at its end): the importers of the int4 formats
 * engines load, and the batched kernels behind kopt_w4a16_gemm.
 *
 * Since 1.1: importers of the formats engines load (AWQ, GPTQ with or
 * without act-order, GGUF Q4_0/Q4_1), host-side, into kopt's canonical
 * arrays; bf16 activations and fp16/bf16 outputs; several rows of x.
 * Since 1.2: batched kernels for M > 1 rows (the weights read once).
 * Since 1.3: the weights dequantised to fp16 or bf16 on the GPU, for the
 * GEMM an engine runs where the rows are many (prefill).
 *
 * kopt_w4a16_create's canonical arrays: qweight uint8 [N][K/2] (low nibble
 * = even k), scales and offsets fp16 [N][K/G], w = scale·q + offset.
 *
 * kopt_w4a16_gemm's rows: one row runs on the batch-1 kernel chosen for the
 * shape, or in bf16 (x and y) on a 1-row build of the register path where
 * it serves the shape (fewer than 31 x 2^20 weights, or more where the
 * batch-1 kernel is a generic variant: no conversions around the call), and
 * with fp16 x and y below 8 x 2^20 weights; 2 or more on the batched
 * kernels, which read the weights once for up to 16 rows (a register path for 2 to 4 rows up to K =
 * 8192, a shared memory path in buckets of 4, 8 and 16 rows, and 2 past K = 8192; 8 at most on a
 * wavefront of 64; larger M in blocks of the largest), where the shape's weights are in a layout
 * they read (K and G multiples of 32, the batch-1 kernel's layout checked byte for byte at create);
 * otherwise rows run one after another. Weights imported with a K order (GPTQ act-order) gather x
 * in that order. The staging buffers hold 16 rows.
 */
#ifndef KOPT_W4A16_EXTRAS_H
#define KOPT_W4A16_EXTRAS_H

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- Dequantisation (device memory; since 1.3) ------------------------- */

/* W as fp16 or bf16 weights, w = scale·q + offset computed in fp32 and
 * rounded once to out_dtype (KOPT_W4A16_F16 or KOPT_W4A16_BF16): out is
 * [N][K] (16-byte aligned), row n the K weights of output n in the K order
 * x comes in (the layout of nn.Linear's weight, so y = x · outᵀ), on `stream`
 * (asynchronous). For many rows of x (a prompt's prefill) a GEMM on these
 * beats reading the int4 weights once per block of 16 rows; engines switch
 * so (vLLM's AWQ path at 256 tokens). KOPT_W4A16_NO_KERNEL where the
 * shape's kernel keeps the weights in a layout of its own that this does
 * not read (kopt_w4a16_kernel says which; its description then has no
 * "batched" part). */
int kopt_w4a16_dequantize(const kopt_w4a16_weights* weights, void* out, int out_dtype,
                          void* stream);

#ifdef __cplusplus
}
#endif

#endif /* KOPT_W4A16_EXTRAS_H */
