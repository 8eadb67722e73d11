/* What kopt_w8a16 adds to the C API every kopt library has (kopt_w8a16.h,
 * which includes this file at its end).
 *
 * Since 1.1: bf16 activations, fp16/bf16 outputs and several rows of x.
 * Since 1.2: batched kernels for M > 1 rows (the weights read once).
 * Since 1.3: the weights dequantised to fp16 or bf16 on the GPU, for the
 * GEMM an engine runs where the rows are many (prefill).
 */
#ifndef KOPT_W8A16_EXTRAS_H
#define KOPT_W8A16_EXTRAS_H

#ifdef __cplusplus
extern "C" {
#endif

/* W as fp16 or bf16 weights, w = scale·q computed in fp32 and rounded once
 * to out_dtype (KOPT_W8A16_F16 or KOPT_W8A16_BF16): out is [N][K] (16-byte
 * aligned), row n the K weights of output n (the layout of nn.Linear's
 * weight, so y = x · outᵀ), on `stream` (asynchronous). For many rows of x
 * (a prompt's prefill) a GEMM on these beats reading the int8 weights once
 * per block of 16 rows. KOPT_W8A16_NO_KERNEL where the shape's kernel keeps
 * the weights in a layout of its own that this does not read
 * (kopt_w8a16_kernel says which). */
int kopt_w8a16_dequantize(const kopt_w8a16_weights* weights, void* out, int out_dtype,
                          void* stream);

#ifdef __cplusplus
}
#endif

#endif /* KOPT_W8A16_EXTRAS_H */
