/* kopt:
{
  "name": "xrows",
  "description": "x of every row in registers, lanes over K, integer arithmetic (the batch-1 generator seed's best structure at M = 1, XREG, with rows). A block is KSPLIT warps that split K (0: as many as one chunk a lane needs, cdiv(K / 32, LPR), from the K the kernel is built for); a warp is WARP / LPR lane groups of LPR lanes, and each lane owns one chunk of 32 k of the whole K (K / 32 <= LPR x KSPLIT): at the start it converts that chunk of each of the MR rows of x straight from global memory to 16-bit fixed point in byte planes (as klanes), kept in registers (no shared-memory prologue, no barrier before the first sums). The block then walks tiles of WARP / LPR x ROWS columns (persistent: OCC blocks per SM, which the launch bounds make the compiler fit on NVIDIA; 0: as many as the register estimate below lets an SM hold, at most 32 warps): each lane loads 16 bytes (32 weights) of its chunk for each of its group's ROWS columns, AHEAD tiles ahead of the one it multiplies (a tile first requests the tile AHEAD on, then multiplies its own; with EARLY 1 the first AHEAD tiles' weights are requested before x is converted, so the conversion runs while they are on their way: the library's builds on an H200, 2 rows of 5120x6144 10.13 -> 9.73 us, 3 rows of 3072x5120 8.61 -> 8.31; AHEAD 3 where a block of seven or eight warps runs alone on an SM, 4 rows of 7168x1536 7.59 -> 7.40; where the launch bounds leave too few registers, loads held ahead spill and run much slower, and one such build with EARLY 1 gave wrong sums), masks the nibbles into bytes once for all rows, and per row multiplies them with its x by dp4a (v_dot4 on gfx906): an exact int32 dot per chunk, then y += s * dot * u + o * sum(x), u the chunk's unit of fixed point. A group adds its lanes' sums in a transposing butterfly (fewer than MR x ROWS shuffles in all where MR x ROWS is a power of two; a plain butterfly otherwise), the warps of a block add theirs in a fixed order through shared memory (two batches of sets taken in turn, so one barrier a batch of BATCH tiles). Rows past M are zeros, so no row branches. MR is the row capacity (x takes 18 registers a row; 8 rows, probed on an H100 at one block an SM (at K of 5120 to 7168 a lane then needs 223 to 255 registers, so two blocks of five to seven warps do not fit), were slower than klanes's x in shared memory on 11 of the 14 contest shapes, faster where K is long and the tiles few: 7168x1536 11.68 -> 11.02 us, 7168x1024 9.39 -> 8.86, 5120x256 5.91 -> 5.43, which the library runs at 5 to 8 rows on MR 8 builds (OCC 1, BATCH 8, EARLY 0: EARLY 1 was slower there); the last rules keep a block's registers, about 18 a row, 5 a column for each tile of the ring and 40 more a lane, within a register file of 64K, and on gfx906 within the 256 a lane has where a SIMD holds one wavefront of the block, 128 where it holds two). X16 1 keeps each x as one 16-bit word instead of two byte planes and multiplies it by dp2a (two 16-by-8-bit products an instruction, dp4a's pipe and rate; v_dot2_i32_i16 on gfx906 on the weight bytes widened once per word), as klanes does: as many dot instructions, but no planes to combine (one integer multiply-add a row and column less, in the dot pipe on NVIDIA) and one accumulator a row instead of two. BATCH is how many tiles a block walks between its barriers: each tile's warp sums go to a set of their own in shared memory, and after the batch's last tile one barrier, then the block adds the batch's sets (a barrier a tile made every warp wait there for the slowest each tile; on an H200, 4 rows of 5120x3072 10.24 -> 9.76 us at BATCH 8, 2 rows of 7168x9216 19.83 -> 18.71; where a block has one tile, 2 rows of 5120x256, 3.27 -> 3.34). The weights are the batch-1 kernels' packed layout (q as canonical, then half2 (scale, offset) [N][K/G]), which the relayout makes from the canonical arrays.",
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + N * (K / G) * 4",
  "let": {"BLOCK_WARPS": "(KSPLIT > 0) * KSPLIT + (KSPLIT == 0) * cdiv(K / 32, LPR)",
          "REGISTERS": "18 * MR + 5 * (AHEAD + 1) * ROWS + 40"},
  "launches": [{"kernel": "gemm", "grid": ["min(cdiv(N, (WARP / LPR) * ROWS), SMS * ((OCC > 0) * OCC + (OCC == 0) * max(1, min(32 / BLOCK_WARPS, 65536 / (WARP * BLOCK_WARPS * REGISTERS)))))"], "block": ["WARP * BLOCK_WARPS"]}],
  "requires": ["K % 32 == 0", "G % 32 == 0", "M <= MR", "LPR <= WARP", "K / 32 <= LPR * BLOCK_WARPS", "WARP * BLOCK_WARPS <= 1024", "WARP * BLOCK_WARPS * REGISTERS <= 65536", "WARP == 32 || REGISTERS * cdiv(BLOCK_WARPS, 4) <= 256"],
  "params": {
    "MR":     {"values": [1, 2, 4, 8], "default": 4},
    "ROWS":   {"values": [1, 2, 3, 4, 6, 8], "default": 4},
    "LPR":    {"values": [8, 16, 32, 64], "default": 32},
    "KSPLIT": {"values": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16], "default": 0},
    "OCC":    {"values": [0, 1, 2, 3, 4, 6, 8, 12, 16], "default": 0},
    "X16":    {"values": [0, 1], "default": 0},
    "BATCH":  {"values": [1, 2, 4, 8], "default": 1},
    "AHEAD":  {"values": [1, 2, 3], "default": 1},
    "EARLY":  {"values": [0, 1], "default": 1}
  }
}
*/
// x is read and y written through the dtype hooks (KOPT_X_PAIR, KOPT_Y_STORE;
// the device prelude), so the library builds this kernel for other dtypes too.

// The packed layout: q bytes as canonical ([N][K/2], low nibble = even k),
// then half2 (scale, offset) [N][K/G] after a 256-byte boundary.
// A build that only runs the kernel (the library's builds for dtype pairs
// whose weights another build lays out) defines KOPT_NO_RELAYOUT.
#ifndef KOPT_NO_RELAYOUT
KOPT_KERNEL void relayout(const kopt_u8* __restrict__ canonical, kopt_u8* __restrict__ packed,
                          int K, int N, int G, int M) {
  // One thread per (column, group): its G / 2 bytes of q, and its scale and offset.
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x, groups = K / G;
  if (i >= (kopt_u64)N * groups) return;
  const uint4* from = reinterpret_cast<const uint4*>(canonical + i * (G / 2));
  uint4* to = reinterpret_cast<uint4*>(packed + i * (G / 2));
  for (int b = 0; b < G / 32; ++b) to[b] = from[b];
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2));
  reinterpret_cast<__half2*>(packed + q_bytes)[i] = __halves2half2(
      kopt_canonical_scales(canonical, K, N, G)[i], kopt_canonical_offsets(canonical, K, N, G)[i]);
}
#endif

// Chunk c of row r of x (32 values) as 16-bit fixed point scaled to the
// chunk's largest |x| (X = rint(x * 2^(15 - E) * F), E the exponent of that
// largest value, F = 32639 / 32768 so |X| <= 32639: each x off by at most
// 2^-15 / F of it), split into a signed high and low byte (X = 256 * hi +
// lo, lo in -128..127, hi in -128..127 by the bound on X) so dp4a multiplies
// both by the weight bytes. A chunk's dot, |X| * 15 * 32 at most, is below
// 2^24: exact as a float. Piece p holds k = 8p..8p+7 as four words: the low
// bytes of the even k, of the odd k, then the high bytes of each. `scale` is
// 1 / (2^(15 - E) * F) and `sum` the chunk's sum of x (rounded as X), for
// the group offsets. (Its first form, 15 bits, missed the 1e-2 rule on
// one element of one outlier set, 16 rows of 384x5120: 0.011 off where
// 0.0105 was allowed; a hundred more sets passed.)
// With X16 the words are X itself, two a word: (X0, X2), (X4, X6), (X1, X3),
// (X5, X7), so dp2a's low and high halves meet an even-k weight word's bytes
// 0-1 and 2-3 (the odd words likewise).
KOPT_INLINE void xrows_fixed_chunk(const uint4* h, uint4* pieces, float* scale, float* sum) {
  float v[32];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const __half2* pair = reinterpret_cast<const __half2*>(&h[i]);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float2 f = KOPT_X_PAIR(pair[e]);
      v[8 * i + 2 * e] = f.x;
      v[8 * i + 2 * e + 1] = f.y;
    }
  }
  float largest = 0.f;
#pragma unroll
  for (int i = 0; i < 32; ++i) largest = fmaxf(largest, fabsf(v[i]));
  // E from the exponent bits (largest < 2^E), 2^(15 - E) and 2^(E - 15)
  // built the same way; F is exact. A chunk whose largest value is below
  // 2^-100 counts as zeros, so 2^(15 - E) stays a normal float (an fp16's
  // magnitude is at least 2^-24; a bf16 x can be far smaller, and its
  // chunk then adds less than 2^-90 of a weight to y).
  constexpr float kFit = 32639.f / 32768.f, kUnfit = 32768.f / 32639.f;
  const int E = (int)(__float_as_uint(largest) >> 23) - 126;
  const bool nonzero = largest >= __uint_as_float(27u << 23);  // 2^-100
  const float up = nonzero ? __uint_as_float((kopt_u32)(127 + 15 - E) << 23) * kFit : 0.f;
  // X = rint(x * up) in one FMA: x * up + 1.5 * 2^23 rounds to an integer
  // whose float bits are the magic number's plus X, and the magic number's
  // low 22 bits are zero, so those bits hold X in two's complement: lo is
  // byte 0 of them, hi = (X + 128) >> 8 byte 1 of them plus 128, and the
  // bits summed less 32 magic numbers are the sum of X (|X| < 2^15).
  constexpr float kMagic = 12582912.f;  // 1.5 * 2^23
  kopt_u32 summed = 0u;
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    kopt_u32 lo[8], hi[8];
#pragma unroll
    for (int b = 0; b < 8; ++b) {
      lo[b] = __float_as_uint(fmaf(v[8 * p + b], up, kMagic));
      hi[b] = lo[b] + 128u;
      summed += lo[b];
    }
    // Bytes of four values into one word: even k (b = 0, 2, 4, 6), odd k.
    auto pack = [](const kopt_u32* from, int first, unsigned byte) {
      const unsigned pick = byte | ((byte + 4u) << 4);  // that byte of a, then of b
      const kopt_u32 ab = __byte_perm(from[first], from[first + 2], pick);
      const kopt_u32 cd = __byte_perm(from[first + 4], from[first + 6], pick);
      return __byte_perm(ab, cd, 0x5410u);
    };
    if (X16)
      pieces[p] = make_uint4(__byte_perm(lo[0], lo[2], 0x5410u), __byte_perm(lo[4], lo[6], 0x5410u),
                             __byte_perm(lo[1], lo[3], 0x5410u), __byte_perm(lo[5], lo[7], 0x5410u));
    else
      pieces[p] = make_uint4(pack(lo, 0, 0u), pack(lo, 1, 0u), pack(hi, 0, 1u), pack(hi, 1, 1u));
  }
  const int total = (int)(summed - 32u * 0x4B400000u);
  *scale = nonzero ? __uint_as_float((kopt_u32)(127 - 15 + E) << 23) * kUnfit : 0.f;
  *sum = (float)total * *scale;
}

// a or b by a mask of bits: written as a select of two array elements, the
// compiler turns it into a load from a selected address, which keeps the
// array in scratch on gfx906.
KOPT_INLINE float xrows_pick(bool first, float a, float b) {
  const kopt_u32 m = 0u - (kopt_u32)first;
  return __uint_as_float((__float_as_uint(a) & m) | (__float_as_uint(b) & ~m));
}

// The transposing butterfly of a lane group's sums, step STEP (lane mask
// LPR >> STEP): while a lane holds more than one value, the lanes with the
// mask bit keep the upper half of their values and send the lower, the
// others the reverse; once one value is left the steps are plain sums.
template <int STEP>
KOPT_INLINE void xrows_fold(float (&v)[MR * ROWS], int lane, int& first) {
  constexpr int mask = LPR >> STEP, half = (MR * ROWS) >> STEP;
  if constexpr (mask >= 1) {
    if constexpr (half >= 1) {
      const bool upper = (lane & mask) != 0;
#pragma unroll
      for (int i = 0; i < half; ++i) {
        const float lo = v[i], hi = v[i + half];
        v[i] = xrows_pick(upper, hi, lo) + kopt_shfl_xor(xrows_pick(upper, lo, hi), mask);
      }
      if (upper) first += half;
    } else {
      v[0] += kopt_shfl_xor(v[0], mask);
    }
    xrows_fold<STEP + 1>(v, lane, first);
  }
}

// Warps a block may have: KSPLIT, or (0) one chunk of the built-for K per
// lane; a build for any K (no KOPT_SHAPE_K) holds the most a block can have
// and reads its warps from the launch.
#if KSPLIT > 0
#define XROWS_WARPS KSPLIT
#elif defined(KOPT_SHAPE_K)
#define XROWS_WARPS ((KOPT_SHAPE_K / 32 + LPR - 1) / LPR)
#else
#define XROWS_WARPS (1024 / KOPT_WARP_SIZE)
#endif
// Blocks an SM must hold (NVIDIA only, the prelude's KOPT_LAUNCH_BOUNDS):
// the grid's OCC, the same expression as the contract's.
#if OCC > 0
#define XROWS_MIN_BLOCKS OCC
#else
#define XROWS_MIN_BLOCKS_BY_REGISTERS (65536 / (XROWS_WARPS * KOPT_WARP_SIZE * (18 * MR + 5 * (AHEAD + 1) * ROWS + 40)))
#define XROWS_MIN_BLOCKS_BY_WARPS (32 / XROWS_WARPS)
#define XROWS_MIN_BLOCKS_LEAST \
  (XROWS_MIN_BLOCKS_BY_REGISTERS < XROWS_MIN_BLOCKS_BY_WARPS ? XROWS_MIN_BLOCKS_BY_REGISTERS : XROWS_MIN_BLOCKS_BY_WARPS)
#define XROWS_MIN_BLOCKS (XROWS_MIN_BLOCKS_LEAST > 1 ? XROWS_MIN_BLOCKS_LEAST : 1)
#endif
KOPT_KERNEL void KOPT_LAUNCH_BOUNDS(XROWS_WARPS* KOPT_WARP_SIZE, XROWS_MIN_BLOCKS)
    gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y,
         float* __restrict__ ws, int K, int N, int G, int M) {
  constexpr int W = KOPT_WARP_SIZE;
  constexpr int GROUPS = W / LPR;            // lane groups of a warp
  constexpr int PER_TILE = GROUPS * ROWS;    // columns of a tile
  constexpr int V = MR * ROWS;               // sums a lane holds per tile
  constexpr bool FOLD = (V & (V - 1)) == 0;  // transposing butterfly (V a power of two)
  // The warps' sums of BATCH tiles (one where a build for any K would need
  // more than 32 KB), added after one barrier; two such batches, one written
  // while the other is added: the barrier before a batch's sums are added is
  // the only one (the batch after next, which writes the same sets again,
  // starts after the next batch's barrier, which every thread reaches only
  // after adding this one's).
  constexpr int SET_BYTES = XROWS_WARPS * GROUPS * V * 4;
  constexpr int TILES_A_BATCH = BATCH * 2 * SET_BYTES <= 32768 ? BATCH : 1;
  __shared__ float xrows_sums[2 * TILES_A_BATCH][XROWS_WARPS][GROUPS][V];
  int batch = 0, filled = 0;  // the batch's first set, its tiles written
  const int lane = threadIdx.x % W, warp = threadIdx.x / W, group = lane / LPR, member = lane % LPR;
  const int warps = blockDim.x / W;  // XROWS_WARPS, but where the build is for any K
  const int chunks = K / 32, groups = K / G;
  const int chunk = warp * LPR + member;  // this lane's chunk of K
  const bool inside = chunk < chunks;
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2));
  const int tiles = (N + PER_TILE - 1) / PER_TILE;

  // The lane's chunk of row r of x, as loaded (zeros past M or K).
  auto load_x = [&](int r, uint4(&h)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) h[i] = make_uint4(0u, 0u, 0u, 0u);
    if (r < M && inside) {
      const uint4* from =
          reinterpret_cast<const uint4*>(x + (kopt_u64)r * K + (kopt_u64)chunk * 32);
#pragma unroll
      for (int i = 0; i < 4; ++i) h[i] = from[i];
    }
  };

  // A tile's loads: 16 bytes of each of the group's columns at the lane's
  // chunk and its group's (scale, offset). Past K: the last chunk's q (the
  // same bytes for every such lane) with zero scale and offset and zero x,
  // so nothing is added (a select of q against zeros made the compiler wait
  // for the load where it was issued).
  const int chunk_read = min(chunk, chunks - 1);
  struct Stage {
    uint4 q[ROWS];
    __half2 so[ROWS];
  };
  auto load = [&](Stage& st, int tile) {
#pragma unroll
    for (int c = 0; c < ROWS; ++c) {
      const int col =
          min(tile * PER_TILE + group * ROWS + c, N - 1);  // past N: a copy, never written
      st.q[c] = kopt_load16_no_l1(w + (kopt_u64)col * (K / 2) + (kopt_u64)chunk_read * 16);
      st.so[c] = inside ? reinterpret_cast<const __half2*>(
                              w + q_bytes)[(kopt_u64)col * groups + chunk * 32 / G]
                        : __floats2half2_rn(0.f, 0.f);
    }
  };

  // The lane's chunk of every row of x in fixed point, and the first AHEAD
  // tiles' weights: with EARLY, x loaded, the weights requested, then x
  // converted (the conversion runs while the weights are on their way);
  // else x converted row by row, then the weights requested. Each tile then
  // first requests the tile AHEAD on (st[AHEAD]) and multiplies st[0]; the
  // stages move down one at the end of the tile, after its sums.
  uint4 xp[MR][4];
  float xs[MR], xsum[MR];
  uint4 h[EARLY ? MR : 1][4];
#pragma unroll
  for (int r = 0; r < MR; ++r) {
    load_x(r, h[EARLY ? r : 0]);
    if (!EARLY) xrows_fixed_chunk(h[0], xp[r], &xs[r], &xsum[r]);
  }
  Stage st[AHEAD + 1];
  const Stage& cur = st[0];
  int tile = blockIdx.x;
#pragma unroll
  for (int d = 0; d < AHEAD; ++d)
    if (tile + d * (int)gridDim.x < tiles) load(st[d], tile + d * gridDim.x);
  if (EARLY)
#pragma unroll
    for (int r = 0; r < MR; ++r) xrows_fixed_chunk(h[r], xp[r], &xs[r], &xsum[r]);
  for (; tile < tiles; tile += gridDim.x) {
    if (tile + AHEAD * (int)gridDim.x < tiles) load(st[AHEAD], tile + AHEAD * gridDim.x);
    float v[V];
#pragma unroll
    for (int c = 0; c < ROWS; ++c) {
      // The high and low planes' dots run on through the chunk's four parts
      // (dp4a's own accumulator) and meet once: |high| and |low| <=
      // 128 * 15 * 32, far inside int32. With X16 one dot a row, dp2a's, kept in
      // low (high unused).
      int high[MR], low[MR];
#pragma unroll
      for (int part = 0; part < 4; ++part) {
        const kopt_u32 word = part == 0   ? cur.q[c].x
                              : part == 1 ? cur.q[c].y
                              : part == 2 ? cur.q[c].z
                                          : cur.q[c].w;
        const kopt_u32 even = word & 0x0F0F0F0Fu, odd = (word >> 4) & 0x0F0F0F0Fu;
#pragma unroll
        for (int r = 0; r < MR; ++r) {
          const uint4 p = xp[r][part];
          if (X16) {
            low[r] = kopt_dot2_s16u8_hi(
                (int)p.w, odd,
                kopt_dot2_s16u8_lo(
                    (int)p.z, odd,
                    kopt_dot2_s16u8_hi((int)p.y, even,
                                       kopt_dot2_s16u8_lo((int)p.x, even, part == 0 ? 0 : low[r]))));
            continue;
          }
          high[r] = kopt_dot4_s8((int)odd, (int)p.w, kopt_dot4_s8((int)even, (int)p.z, part == 0 ? 0 : high[r]));
          low[r] = kopt_dot4_s8((int)odd, (int)p.y, kopt_dot4_s8((int)even, (int)p.x, part == 0 ? 0 : low[r]));
        }
      }
      const float2 so = __half22float2(cur.so[c]);
#pragma unroll
      for (int r = 0; r < MR; ++r)
        v[r * ROWS + c] =
            fmaf(so.x, (float)(X16 ? low[r] : high[r] * 256 + low[r]) * xs[r], so.y * xsum[r]);
    }
    // The group's sums, then the block's in a fixed order.
    if constexpr (FOLD) {
      int first = 0;
      xrows_fold<1>(v, member, first);
      constexpr int HELD = V >= LPR ? V / LPR : 1;
      if (V >= LPR || (member & (LPR / V - 1)) == 0)
#pragma unroll
        for (int i = 0; i < HELD; ++i) xrows_sums[batch + filled][warp][group][first + i] = v[i];
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i) {
#pragma unroll
        for (int m = LPR / 2; m >= 1; m /= 2) v[i] += kopt_shfl_xor(v[i], m);
        if (member == 0) xrows_sums[batch + filled][warp][group][i] = v[i];
      }
    }
#pragma unroll
    for (int d = 0; d < AHEAD; ++d) st[d] = st[d + 1];
    if (++filled < TILES_A_BATCH && tile + (int)gridDim.x < tiles) continue;
    __syncthreads();
    // The batch's tiles: its `filled` tiles up to this one, gridDim.x apart.
    const int count = filled * GROUPS * V, first_tile = tile - (filled - 1) * (int)gridDim.x;
    for (int i = threadIdx.x; i < count; i += warps * W) {
      const int b = i / (GROUPS * V), g = i / V % GROUPS, at = i % V, r = at / ROWS;
      const int n = (first_tile + b * (int)gridDim.x) * PER_TILE + g * ROWS + at % ROWS;
      float sum = 0.f;
#pragma unroll
      for (int k = 0; k < warps; ++k) sum += xrows_sums[batch + b][k][g][at];
      if (r < M && n < N) KOPT_Y_STORE(y, (kopt_u64)r * N + n, sum, false);
    }
    batch = TILES_A_BATCH - batch;
    filled = 0;
  }
}
