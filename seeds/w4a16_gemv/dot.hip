/* kopt:
{
  "name": "dot",
  "description": "Integer dot products: x converted once per block to 24-bit fixed point (one power-of-two scale per 32 values, so the conversion is exact to 2^-23 of the chunk's largest |x|) and split into three byte planes in shared memory; the nibbles are masked into bytes (even k: one AND, odd k: shift and AND) and multiplied by the planes with dp4a / v_dot4 (four products per instruction, int32 accumulation, exact); per 32 weights two int->float conversions, then scale and offset in fp32. About 9 instructions per 8 weights against vec's 19. Same packed layout, persistent warps and software pipeline as vec. SPLIT > 1 splits K over grid.y: each block converts and reads only its slice of x, writes partial sums to the workspace, and the last block to finish a tile of columns (an atomic ticket) adds the SPLIT partials in a fixed order: one launch, deterministic.",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + N * (K / G) * 4",
  "launches": [{"kernel": "gemv",
                "grid": ["min(cdiv(N, WARPS * (WARP / LPR) * ROWS), max(1, SMS * OCC / SPLIT))", "SPLIT"],
                "block": ["WARPS * WARP"], "shared_bytes": "cdiv(K / 32, SPLIT) * 112"}],
  "workspace_bytes": "SPLIT * N * 4 + cdiv(N, WARPS * (WARP / LPR) * ROWS) * 4",
  "requires": ["K % 32 == 0", "G % 32 == 0", "LPR <= WARP", "cdiv(K / 32, SPLIT) * 112 <= 49152"],
  "params": {
    "SPLIT":  {"values": [1, 2, 3, 4, 6, 8], "default": 1},
    "ROWS":   {"values": [1, 2, 4, 8], "default": 2},
    "WARPS":  {"values": [1, 2, 4, 8], "default": 8},
    "LPR":    {"values": [4, 8, 16, 32, 64], "default": 32},
    "UNROLL": {"values": [1, 2, 4], "default": 1},
    "OCC":    {"values": [1, 2, 3, 4, 6, 8, 16], "default": 3}
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

// x in shared memory, chunk c (32 values, k = 32c + 8j + i) at c * XSTRIDE
// words: for each j, six words of four bytes: the low, middle and high byte
// of the fixed-point x for even k (i = 0, 2, 4, 6) and odd k (i = 1, 3, 5, 7),
// matching the byte order of the masked nibbles; then Σx and the chunk's
// scale 2^(E - 22). 28 words: eight consecutive lanes' 16-byte reads fall on
// distinct banks.
#define XSTRIDE 28
#define XLOADS 4

// Σ X·q over the 32 nibbles of one uint4, where X is the fixed-point x:
// exact in int32, returned as float (X·q < 2^23 · 15 · 32 needs the split
// into bytes: the high-byte sum is scaled by 2^16 after conversion).
KOPT_INLINE float dot32(const uint4 q, const kopt_u32* p) {
  const kopt_u32 words[4] = {q.x, q.y, q.z, q.w};
  kopt_u32 lo = 0, mid = 0;
  int hi = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const kopt_u32 even = words[j] & 0x0F0F0F0Fu, odd = (words[j] >> 4) & 0x0F0F0F0Fu;
    const kopt_u32* pj = p + 6 * j;
    lo = kopt_dot4_u8(pj[0], even, lo);
    lo = kopt_dot4_u8(pj[1], odd, lo);
    mid = kopt_dot4_u8(pj[2], even, mid);
    mid = kopt_dot4_u8(pj[3], odd, mid);
    hi = kopt_dot4_s8((int)pj[4], (int)even, hi);
    hi = kopt_dot4_s8((int)pj[5], (int)odd, hi);
  }
  // lo, mid <= 255 * 15 * 32 each, so lo + 256 * mid < 2^25 fits an int.
  return (float)hi * 65536.f + (float)(int)(lo + (mid << 8));
}

// Four x values (fixed point, int) into one word of their bytes at `shift`.
KOPT_INLINE kopt_u32 byte_plane(const int* v, int shift) {
  return ((kopt_u32)(v[0] >> shift) & 0xFFu) | (((kopt_u32)(v[1] >> shift) & 0xFFu) << 8) |
         (((kopt_u32)(v[2] >> shift) & 0xFFu) << 16) | (((kopt_u32)(v[3] >> shift) & 0xFFu) << 24);
}

KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemv(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                      float* __restrict__ y, float* __restrict__ ws, int K, int N, int G) {
  extern __shared__ kopt_u32 xs[];
  __shared__ int last_of_tile;
  const int chunks = K / 32;  // 16-byte chunks per column
  // This block's slice of K (all of it when SPLIT is 1).
  const int per_split = (chunks + SPLIT - 1) / SPLIT;
  const int c_begin = blockIdx.y * per_split;
  const int c_end = min(chunks, c_begin + per_split);
  const int lane = threadIdx.x % KOPT_WARP_SIZE;
  const int warp = threadIdx.x / KOPT_WARP_SIZE;
  const int sub = lane / LPR, sl = lane % LPR;  // lane group and lane within it
  // Persistent blocks, as in vec: a tile is the WARPS * groups_per_warp
  // groups of ROWS columns a block covers at once; blocks take tiles in turn
  // and pay the x prologue once.
  const int groups_per_warp = KOPT_WARP_SIZE / LPR;
  const int groups_per_tile = WARPS * groups_per_warp;
  const int total_groups = (N + ROWS - 1) / ROWS;
  const __half2* so = packed_scale_offset(w, K, N);
  const int gshift = (G & (G - 1)) == 0 ? __ffs(G) - 1 : -1;

  struct Batch {
    uint4 q[UNROLL][ROWS];
    __half2 so[UNROLL][ROWS];
  };
  Batch cur, next;
  int row0 = 0;
  const kopt_u8* rows[ROWS];
  auto select_rows = [&](int group) {
    row0 = group * ROWS;
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      // Columns past N read column N-1 (valid memory) and are not written.
      rows[r] = w + (kopt_u64)min(row0 + r, N - 1) * (K / 2);
  };
  auto group_of = [&](int c) { return gshift >= 0 ? (c * 32) >> gshift : (c * 32) / G; };
  auto load_batch = [&](int c0, Batch& dst) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int c = min(c0 + u * LPR, c_end - 1);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        dst.q[u][r] = kopt_load_stream16(rows[r] + (kopt_u64)c * 16);
        dst.so[u][r] = so[(kopt_u64)min(row0 + r, N - 1) * (K / G) + group_of(c)];
      }
    }
  };
  auto group_at = [&](int tile) { return tile * groups_per_tile + warp * groups_per_warp + sub; };
  // The first weights are requested before the x prologue.
  if (group_at(blockIdx.x) < total_groups) {
    select_rows(group_at(blockIdx.x));
    load_batch(c_begin + sl, cur);
  }

  // Prologue over this block's slice: four consecutive threads hold one
  // chunk (8 halves each). The chunk's exponent E is the largest fp16
  // exponent among its 32 values (shuffle max over the four), so
  // X = x·2^(22−E) has |X| < 2^23 and is x exactly unless |x| < 2^(E−12);
  // Σx is a shuffle sum in a fixed order.
  const int xvecs = (c_end - c_begin) * 4;
  const uint4* xv_global = reinterpret_cast<const uint4*>(x) + c_begin * 4;
  for (int base_i = 0; base_i < xvecs; base_i += XLOADS * blockDim.x) {
    uint4 h[XLOADS];
#pragma unroll
    for (int t = 0; t < XLOADS; ++t) {
      const int i = base_i + t * blockDim.x + threadIdx.x;
      h[t] = i < xvecs ? xv_global[i] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int t = 0; t < XLOADS; ++t) {
      const int i = base_i + t * blockDim.x + threadIdx.x;
      const kopt_u32 hw[4] = {h[t].x, h[t].y, h[t].z, h[t].w};
      float v[8];
      float sum = 0.f;
      int field = 1;  // subnormals and zeros scale like the smallest normal
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&hw[e]));
        v[2 * e] = f.x;
        v[2 * e + 1] = f.y;
        sum += f.x + f.y;
        field = max(field, (int)max((hw[e] >> 10) & 0x1Fu, (hw[e] >> 26) & 0x1Fu));
      }
      sum += kopt_shfl_xor(sum, 1);
      sum += kopt_shfl_xor(sum, 2);
      field = max(field, kopt_shfl_xor(field, 1));
      field = max(field, kopt_shfl_xor(field, 2));
      const int E = field - 15;
      const float to_fixed = __int_as_float((127 + 22 - E) << 23);  // 2^(22-E), exact
      int even[4], odd[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        even[e] = __float2int_rn(v[2 * e] * to_fixed);
        odd[e] = __float2int_rn(v[2 * e + 1] * to_fixed);
      }
      if (i < xvecs) {
        kopt_u32* dst = xs + (i / 4) * XSTRIDE + (i % 4) * 6;
        reinterpret_cast<uint2*>(dst)[0] = make_uint2(byte_plane(even, 0), byte_plane(odd, 0));
        reinterpret_cast<uint2*>(dst)[1] = make_uint2(byte_plane(even, 8), byte_plane(odd, 8));
        reinterpret_cast<uint2*>(dst)[2] = make_uint2(byte_plane(even, 16), byte_plane(odd, 16));
        if (i % 4 == 0) {
          reinterpret_cast<float*>(xs)[(i / 4) * XSTRIDE + 24] = sum;
          reinterpret_cast<float*>(xs)[(i / 4) * XSTRIDE + 25] = __int_as_float((127 + E - 22) << 23);
        }
      }
    }
  }
  __syncthreads();

  // Tiles: the loop condition is the same for the whole block (SPLIT > 1
  // synchronises the block once per tile); a warp without columns in the
  // last tile idles through it.
  const int tiles = (total_groups + groups_per_tile - 1) / groups_per_tile;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const bool active = group_at(tile) < total_groups;
    float part[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) part[r] = 0.f;
    if (active) {
      for (int c0 = c_begin + sl; c0 < c_end; c0 += LPR * UNROLL) {
        if (c0 + LPR * UNROLL < c_end) load_batch(c0 + LPR * UNROLL, next);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
          const int c = c0 + u * LPR;
          if (c >= c_end) break;
          kopt_u32 p[24];
          const uint4* xv = reinterpret_cast<const uint4*>(xs + (c - c_begin) * XSTRIDE);
#pragma unroll
          for (int v = 0; v < 6; ++v) {
            const uint4 f = xv[v];
            p[4 * v] = f.x;
            p[4 * v + 1] = f.y;
            p[4 * v + 2] = f.z;
            p[4 * v + 3] = f.w;
          }
          // (Σx, 2^(E-22)) of the chunk
          const float2 meta = reinterpret_cast<const float2*>(xs + (c - c_begin) * XSTRIDE + 24)[0];
#pragma unroll
          for (int r = 0; r < ROWS; ++r) {
            const float2 sof = __half22float2(cur.so[u][r]);
            // Σ x·(s·q + o) = s·Σ x·q + o·Σ x
            part[r] += sof.x * (dot32(cur.q[u][r], p) * meta.y) + sof.y * meta.x;
          }
        }
        cur = next;
      }
    }
    // The group's lanes add their sums. Every lane of the warp takes part,
    // active or not (an inactive group adds zeros): a full-mask shuffle must
    // be reached by the whole warp, and with LPR below the warp's width the
    // last tile can leave some of a warp's groups without columns.
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      float v = part[r];
#pragma unroll
      for (int m = LPR / 2; m > 0; m >>= 1) v += kopt_shfl_xor(v, m);
      if (active && sl == 0 && row0 + r < N) {
        if (SPLIT == 1) y[row0 + r] = v;
        else ws[(kopt_u64)blockIdx.y * N + row0 + r] = v;
      }
    }
    // The next tile's first batch goes out before this one is finished.
    if (active && tile + gridDim.x < tiles && group_at(tile + gridDim.x) < total_groups) {
      select_rows(group_at(tile + gridDim.x));
      load_batch(c_begin + sl, cur);
    }
    if (SPLIT > 1) {
      // The last of the SPLIT blocks to finish this tile adds the partials
      // in slice order (deterministic) and rearms the tile's ticket.
      int* tickets = reinterpret_cast<int*>(ws + (kopt_u64)SPLIT * N);
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) {
        last_of_tile = atomicAdd(&tickets[tile], 1) == SPLIT - 1;
        if (last_of_tile) tickets[tile] = 0;
      }
      __syncthreads();
      if (last_of_tile) {
        __threadfence();
        const volatile float* partials = ws;  // written by other blocks: not from L1
        const int first = tile * groups_per_tile * ROWS;
        const int end = min(N, first + groups_per_tile * ROWS);
        for (int n = first + threadIdx.x; n < end; n += blockDim.x) {
          float v = 0.f;
#pragma unroll
          for (int s = 0; s < SPLIT; ++s) v += partials[(kopt_u64)s * N + n];
          y[n] = v;
        }
      }
    }
  }
}
