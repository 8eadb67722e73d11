/* kopt:
{
  "name": "vec",
  "description": "Vectorised: load-time re-layout interleaves scale and offset as one half2 per group; x converted to fp32 once per block into shared memory; 16-byte weight loads (32 nibbles per lane), ROWS columns per lane group in flight, int4->fp32 by one logic op (nibbles ORed into the mantissa of 128.0f / 2048.0f, constants removed once per chunk), fp32 FMA accumulation; persistent warps (OCC blocks per SM) share the columns evenly and pay the x prologue once per block. LPR lanes share a column, so short rows still fill the warp.",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + N * (K / G) * 4",
  "launches": [{"kernel": "gemv", "grid": ["min(cdiv(N, WARPS * (WARP / LPR) * ROWS), SMS * OCC)"],
                "block": ["WARPS * WARP"], "shared_bytes": "(K / 32) * 152"}],
  "requires": ["K % 32 == 0", "G % 32 == 0", "LPR <= WARP", "(K / 32) * 152 <= 49152"],
  "params": {
    "ROWS":   {"values": [1, 2, 4, 8], "default": 2},
    "WARPS":  {"values": [1, 2, 4, 8], "default": 8},
    "LPR":    {"values": [4, 8, 16, 32, 64], "default": 32},
    "UNROLL": {"values": [1, 2, 4], "default": 1},
    "OCC":    {"values": [1, 2, 3, 4, 6, 8, 16], "default": 3}
  }
}
*/
// Defaults: the fastest of a 24-point sweep (ROWS x UNROLL x WARPS x OCC) on
// 7168x9216 and 4096x7168, NVIDIA H200, 2026-11-22 (scripts/sweep-seed.sh).
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

// Nibble to float with one logic op and no conversion: OR-ing a nibble that
// sits at bits 16-19 into the bits of 128.0f gives 128 + q exactly; at bits
// 12-15 into 2048.0f gives 2048 + q. Rotations of a 32-bit word bring every
// nibble to one of those two places: u (n3, n4), u << 8 (n1, n2),
// u >> 8 (n5, n6), rot16(u) (n7, n0). Odd k always lands at 12-15, even k at
// 16-19, so the constants add up to 2048 * sum(x odd) + 128 * sum(x even) per
// chunk, subtracted once per chunk (xcorr). fp32 keeps Σ x·(2048 + q) exact to
// ~1e-7 relative, far inside the 1e-2 tolerance; integer data stays exact.
KOPT_INLINE float q_at16(kopt_u32 v) { return __uint_as_float(kopt_and_or(v, 0x000F0000u, 0x43000000u)); }
KOPT_INLINE float q_at12(kopt_u32 v) { return __uint_as_float(kopt_and_or(v, 0x0000F000u, 0x45000000u)); }

// Σ x·(c + q) over the 32 nibbles of one uint4 (k = 8j + i for word j, nibble i).
KOPT_INLINE float dot32(const uint4 q, const float* xf) {
  const kopt_u32 words[4] = {q.x, q.y, q.z, q.w};
  float acc = 0.f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const kopt_u32 u = words[j], b = u << 8, c = u >> 8, d = (u << 16) | (u >> 16);
    const float* xj = xf + 8 * j;
    acc = fmaf(xj[3], q_at12(u), acc);
    acc = fmaf(xj[4], q_at16(u), acc);
    acc = fmaf(xj[1], q_at12(b), acc);
    acc = fmaf(xj[2], q_at16(b), acc);
    acc = fmaf(xj[5], q_at12(c), acc);
    acc = fmaf(xj[6], q_at16(c), acc);
    acc = fmaf(xj[7], q_at12(d), acc);
    acc = fmaf(xj[0], q_at16(d), acc);
  }
  return acc;
}

// x in shared memory as fp32, converted once per block: chunk c (32 values)
// at c * XSTRIDE floats. The 4-float pad keeps the 16-byte reads of 8
// consecutive lanes on distinct banks. Per chunk: Σx and the constant term.
#define XSTRIDE 36
#define XLOADS 4

KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemv(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                      float* __restrict__ y, float* __restrict__ ws, int K, int N, int G) {
  extern __shared__ float xs[];
  const int chunks = K / 32;  // 16-byte chunks per column
  float* xsum_s = xs + chunks * XSTRIDE;
  float* xcorr_s = xsum_s + chunks;
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int warp = threadIdx.x / KOPT_WARP_SIZE;
  const int sub = lane / LPR, sl = lane % LPR;  // lane group and lane within it
  // Persistent warps: each lane group takes groups of ROWS columns in turn,
  // so the work ends evenly across the GPU (a launch is about one wave, and
  // a ragged last wave costs as much as a full one). The x prologue is paid
  // once per block.
  const int groups_per_warp = KOPT_WARP_SIZE / LPR;
  const int total_groups = (N + ROWS - 1) / ROWS;
  const int stride = gridDim.x * WARPS * groups_per_warp;
  const __half2* so = packed_scale_offset(w, K, N);
  // Group index of a chunk: a shift when G is a power of two (it always is in
  // practice), else a division.
  const int gshift = (G & (G - 1)) == 0 ? __ffs(G) - 1 : -1;

  // Software pipeline: the weights and the (scale, offset) pairs of the next
  // UNROLL chunks are in flight while this batch is computed. Loading the
  // pairs late would add a second memory latency to every batch.
  struct Batch {
    uint4 q[UNROLL][ROWS];
    __half2 so[UNROLL][ROWS];
  };
  Batch cur, next;
  int row0 = 0;
  const kopt_u8* rows[ROWS];
  auto select_rows = [&](int group_base) {
    row0 = (group_base + sub) * ROWS;
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      // Columns past N read column N-1 (valid memory) and are not written,
      // so every lane stays in the shuffles.
      rows[r] = w + (kopt_u64)min(row0 + r, N - 1) * (K / 2);
  };
  auto group_of = [&](int c) { return gshift >= 0 ? (c * 32) >> gshift : (c * 32) / G; };
  auto load_batch = [&](int c0, Batch& dst) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int c = min(c0 + u * LPR, chunks - 1);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        dst.q[u][r] = kopt_load_stream16(rows[r] + (kopt_u64)c * 16);
        dst.so[u][r] = so[(kopt_u64)min(row0 + r, N - 1) * (K / G) + group_of(c)];
      }
    }
  };
  // The first weights are requested before the x prologue, so their memory
  // latency overlaps it.
  int base = (blockIdx.x * WARPS + warp) * groups_per_warp;
  if (base < total_groups) {
    select_rows(base);
    load_batch(sl, cur);
  }

  // Prologue: 16-byte loads of x, XLOADS in flight per thread; four
  // consecutive threads hold one chunk (32 halves), so its two sums are a
  // 4-lane shuffle reduction, in a fixed order.
  const int xvecs = K / 8;
  for (int base = 0; base < xvecs; base += XLOADS * blockDim.x) {
    uint4 h[XLOADS];
#pragma unroll
    for (int t = 0; t < XLOADS; ++t) {
      const int i = base + t * blockDim.x + threadIdx.x;
      h[t] = i < xvecs ? reinterpret_cast<const uint4*>(x)[i] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int t = 0; t < XLOADS; ++t) {
      const int i = base + t * blockDim.x + threadIdx.x;
      const kopt_u32 hw[4] = {h[t].x, h[t].y, h[t].z, h[t].w};
      float v[8];
      float sum = 0.f, corr = 0.f;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&hw[e]));
        v[2 * e] = f.x;
        v[2 * e + 1] = f.y;
        sum += f.x + f.y;
        corr += 128.f * f.x + 2048.f * f.y;  // even k at bits 16-19, odd k at 12-15
      }
      sum += kopt_shfl_xor(sum, 1);
      corr += kopt_shfl_xor(corr, 1);
      sum += kopt_shfl_xor(sum, 2);
      corr += kopt_shfl_xor(corr, 2);
      if (i < xvecs) {
        float4* dst = reinterpret_cast<float4*>(xs + (i / 4) * XSTRIDE + (i % 4) * 8);
        dst[0] = make_float4(v[0], v[1], v[2], v[3]);
        dst[1] = make_float4(v[4], v[5], v[6], v[7]);
        if (i % 4 == 0) {
          xsum_s[i / 4] = sum;
          xcorr_s[i / 4] = corr;
        }
      }
    }
  }
  __syncthreads();

  // Whole warps iterate together (the shuffles need every lane).
  for (; base < total_groups; base += stride) {
    float part[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) part[r] = 0.f;
    for (int c0 = sl; c0 < chunks; c0 += LPR * UNROLL) {
      if (c0 + LPR * UNROLL < chunks) load_batch(c0 + LPR * UNROLL, next);
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
        const float xsum = xsum_s[c], xcorr = xcorr_s[c];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
          const float2 sof = __half22float2(cur.so[u][r]);
          // Σ x·(s·q + o) = s·(Σ x·(c + q) − Σ x·c) + o·Σ x
          part[r] += sof.x * (dot32(cur.q[u][r], xf) - xcorr) + sof.y * xsum;
        }
      }
      cur = next;
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      float v = part[r];
#pragma unroll
      for (int m = LPR / 2; m > 0; m >>= 1) v += kopt_shfl_xor(v, m);
      if (sl == 0 && row0 + r < N) y[row0 + r] = v;
    }
    // The next group's first batch goes out before this warp's next turn.
    if (base + stride < total_groups) {
      select_rows(base + stride);
      load_batch(sl, cur);
    }
  }
}
