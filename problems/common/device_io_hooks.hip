// The dtype hooks a kernel reads x and writes y through: KOPT_X_PAIR turns a
// pair of x's 16-bit values into floats (KOPT_X_FP16 says whether they are
// fp16; 0: bf16), KOPT_Y_STORE stores y's value v at p[at] (or, where
// `partial`, a slice's fp32 partial sum in the workspace). Here the problems'
// own dtypes, fp16 x and fp32 y. The shipped libraries build the kernels that
// use the hooks again for fp16 x to fp16 y and bf16 to bf16, defining their
// own before the source (so engines running those dtypes launch no conversion
// kernels around a call); a kernel written without them reads and writes the
// problem's dtypes directly.
#ifndef KOPT_X_PAIR
#define KOPT_X_PAIR(pair) __half22float2(pair)
#endif
#ifndef KOPT_X_FP16
#define KOPT_X_FP16 1
#endif
#ifndef KOPT_Y_STORE
#define KOPT_Y_STORE(p, at, v, partial) ((p)[at] = (v))
#endif
