/* kopt:
{
  "name": "vec",
  "description": "Vectorised: load-time re-layout interleaves scale and offset as one half2 per group; x converted to fp32 once per block into shared memory; 16-byte weight loads (32 nibbles per lane), ROWS columns per lane group in flight, int4->fp16 by one logic op (the 0x6400 exponent trick), fp32 FMA accumulation. LPR lanes share a column, so short rows still fill the warp.",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + N * (K / G) * 4",
  "launches": [{"kernel": "gemv", "grid": ["cdiv(N, WARPS * (WARP / LPR) * ROWS)"], "block": ["WARPS * WARP"],
                "shared_bytes": "(K / 32) * 148"}],
  "requires": ["K % 32 == 0", "G % 32 == 0", "LPR <= WARP", "(K / 32) * 148 <= 49152"],
  "params": {
    "ROWS":   {"values": [1, 2, 4, 8], "default": 4},
    "WARPS":  {"values": [1, 2, 4, 8], "default": 4},
    "LPR":    {"values": [4, 8, 16, 32, 64], "default": 32},
    "UNROLL": {"values": [1, 2, 4], "default": 2}
  }
}
*/
// Packed layout: q bytes exactly as canonical ([N][K/2], low nibble = even k),
// then half2 (scale, offset) [N][K/G] after a 256-byte boundary.

KOPT_INLINE const __half2* packed_scale_offset(const kopt_u8* w, int K, int N) {
  return reinterpret_cast<const __half2*>(w + kopt_align256((kopt_u64)N * (K / 2)));
}

KOPT_KERNEL void relayout(const kopt_u8* __restrict__ canonical, kopt_u8* __restrict__ packed,
                          int K, int N, int G) {
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;
  const kopt_u64 groups = (kopt_u64)N * (K / G);
  // Copy the nibbles: every thread moves a strided share of 16-byte words.
  const kopt_u64 words = (kopt_u64)N * (K / 2) / 16;
  const kopt_u64 threads = (kopt_u64)gridDim.x * blockDim.x;
  for (kopt_u64 t = i; t < words; t += threads)
    reinterpret_cast<uint4*>(packed)[t] = reinterpret_cast<const uint4*>(canonical)[t];
  if (i < groups) {
    __half2* so = const_cast<__half2*>(packed_scale_offset(packed, K, N));
    so[i] = __halves2half2(kopt_canonical_scales(canonical, K, N, G)[i],
                           kopt_canonical_offsets(canonical, K, N, G)[i]);
  }
}

// 32 nibbles (one uint4) times 32 x values; returns sum x*(1024+q).
// Nibble i of a 32-bit word pairs with nibble i+4 in the magic-number trick,
// so x is indexed accordingly: word j, pair i -> k = 8j+i and 8j+i+4.
KOPT_INLINE float dot32(const uint4 q, const float* xf) {
  const kopt_u32 words[4] = {q.x, q.y, q.z, q.w};
  float acc = 0.f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 f = __half22float2(kopt_nibbles_plus_1024(words[j], 4 * i));
      acc = fmaf(xf[8 * j + i], f.x, acc);
      acc = fmaf(xf[8 * j + i + 4], f.y, acc);
    }
  }
  return acc;
}

// x in shared memory as fp32, converted once per block: chunk c (32 values)
// at c * XSTRIDE floats. The 4-float pad keeps the 16-byte reads of 8
// consecutive lanes on distinct banks. Then one sum per chunk.
#define XSTRIDE 36

KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemv(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                      float* __restrict__ y, float* __restrict__ ws, int K, int N, int G) {
  extern __shared__ float xs[];
  const int chunks = K / 32;  // 16-byte chunks per column
  float* xsum_s = xs + chunks * XSTRIDE;
  for (int i = threadIdx.x; i < K / 2; i += blockDim.x) {
    const float2 f = __half22float2(reinterpret_cast<const __half2*>(x)[i]);
    const int k = 2 * i;
    xs[(k / 32) * XSTRIDE + k % 32] = f.x;
    xs[(k / 32) * XSTRIDE + k % 32 + 1] = f.y;
  }
  __syncthreads();
  for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
    float sum = 0.f;
    for (int j = 0; j < 32; ++j) sum += xs[c * XSTRIDE + j];
    xsum_s[c] = sum;
  }
  __syncthreads();

  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int warp = threadIdx.x / KOPT_WARP_SIZE;
  const int sub = lane / LPR, sl = lane % LPR;  // lane group and lane within it
  const int rows_per_warp = (KOPT_WARP_SIZE / LPR) * ROWS;
  const int row0 = (blockIdx.x * WARPS + warp) * rows_per_warp + sub * ROWS;
  const __half2* so = packed_scale_offset(w, K, N);

  float part[ROWS];
  const kopt_u8* rows[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    part[r] = 0.f;
    // Columns past N read column N-1 (valid memory) and are not written, so
    // every lane stays in the shuffles.
    rows[r] = w + (kopt_u64)min(row0 + r, N - 1) * (K / 2);
  }
  for (int c0 = sl; c0 < chunks; c0 += LPR * UNROLL) {
    uint4 q[UNROLL][ROWS];
    // All loads first: UNROLL * ROWS independent 16-byte loads in flight.
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int c = min(c0 + u * LPR, chunks - 1);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) q[u][r] = kopt_load_stream16(rows[r] + (kopt_u64)c * 16);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int c = c0 + u * LPR;
      if (c >= chunks) break;
      float xf[32];
      const float4* xv = reinterpret_cast<const float4*>(xs + c * XSTRIDE);
#pragma unroll
      for (int v = 0; v < 8; ++v) {
        const float4 f = xv[v];
        xf[4 * v] = f.x;
        xf[4 * v + 1] = f.y;
        xf[4 * v + 2] = f.z;
        xf[4 * v + 3] = f.w;
      }
      const float xsum = xsum_s[c];
      const int g = (c * 32) / G;
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const float2 sof = __half22float2(so[(kopt_u64)min(row0 + r, N - 1) * (K / G) + g]);
        // sum x*(s*q + o) = s * sum x*(1024+q) + (o - 1024 s) * sum x
        part[r] += sof.x * dot32(q[u][r], xf) + (sof.y - 1024.f * sof.x) * xsum;
      }
    }
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    float v = part[r];
#pragma unroll
    for (int m = LPR / 2; m > 0; m >>= 1) v += kopt_shfl_xor(v, m);
    if (sl == 0 && row0 + r < N) y[row0 + r] = v;
  }
}
