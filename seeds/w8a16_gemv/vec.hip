/* kopt:
{
  "name": "vec",
  "description": "Vectorised: a warp serves ROWS output channels; each lane loads 16 int8 weights per row in one 16-byte load (UNROLL chunks in flight) and the 16 matching x values as two 16-byte loads (x is shared by every row, so it stays in the caches), converts int8 exactly to fp32 and accumulates with FMA; one warp-shuffle sum per row, the scale applied once.",
  "launches": [{"kernel": "gemv", "grid": ["cdiv(N, WARPS * ROWS)"], "block": ["WARPS * WARP"]}],
  "requires": ["K % 16 == 0"],
  "params": {
    "ROWS":   {"values": [1, 2, 4], "default": 2},
    "WARPS":  {"values": [2, 4, 8], "default": 4},
    "UNROLL": {"values": [1, 2, 4], "default": 2}
  }
}
*/
// x is read and y written through the dtype hooks (KOPT_X_PAIR, KOPT_Y_STORE;
// the device prelude), so the library builds this kernel for other dtypes too.

// Σ x·q over 16 weights: the four signed bytes of each word, exactly in fp32.
KOPT_INLINE float dot16(const uint4 q, const float* xf) {
  const kopt_u32 words[4] = {q.x, q.y, q.z, q.w};
  float acc = 0.f;
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int b = 0; b < 4; ++b) acc += xf[4 * j + b] * (float)(signed char)(words[j] >> (8 * b));
  return acc;
}

KOPT_INLINE __half2 as_half2(kopt_u32 v) {
#if defined(KOPT_NVIDIA)
  return *reinterpret_cast<__half2*>(&v);
#else
  __half2 h;
  __builtin_memcpy(&h, &v, 4);
  return h;
#endif
}

// The 16 x values of chunk c, as fp32.
KOPT_INLINE void load_x16(const __half* x, int c, float* xf) {
  const uint4* p = reinterpret_cast<const uint4*>(x) + 2 * c;
  const uint4 a = p[0], b = p[1];
  const kopt_u32 words[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float2 f = KOPT_X_PAIR(as_half2(words[i]));
    xf[2 * i] = f.x;
    xf[2 * i + 1] = f.y;
  }
}

KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemv(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                      float* __restrict__ y, float* __restrict__ ws, int K, int N) {
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int first = (blockIdx.x * WARPS + threadIdx.x / KOPT_WARP_SIZE) * ROWS;
  if (first >= N) return;  // whole warps leave together
  const int chunks = K / 16;
  float acc[ROWS];
  const uint4* rows[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    acc[r] = 0.f;
    // A row past N reads row N - 1 again (its result is not stored), so every
    // lane runs the same loop.
    const int n = first + r < N ? first + r : N - 1;
    rows[r] = reinterpret_cast<const uint4*>(w + (kopt_u64)n * K);
  }
  int c = lane;
  for (; c + (UNROLL - 1) * KOPT_WARP_SIZE < chunks; c += UNROLL * KOPT_WARP_SIZE) {
    uint4 q[UNROLL][ROWS];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int r = 0; r < ROWS; ++r) q[u][r] = kopt_load_stream16(rows[r] + c + u * KOPT_WARP_SIZE);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      float xf[16];
      load_x16(x, c + u * KOPT_WARP_SIZE, xf);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) acc[r] += dot16(q[u][r], xf);
    }
  }
  for (; c < chunks; c += KOPT_WARP_SIZE) {
    float xf[16];
    load_x16(x, c, xf);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) acc[r] += dot16(kopt_load_stream16(rows[r] + c), xf);
  }
  const __half* scales = kopt_w8_scales(w, K, N);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const float sum = kopt_warp_sum(acc[r]);
    if (lane == 0 && first + r < N)
      KOPT_Y_STORE(y, first + r, __half2float(scales[first + r]) * sum, false);
  }
}
