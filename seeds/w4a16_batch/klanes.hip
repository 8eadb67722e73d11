/* kopt:
{
  "name": "klanes",
  "description": "Lanes over K, every row at once, in integer arithmetic. A warp owns COLS adjacent columns; in a step each lane reads 16 consecutive bytes (32 weights) of each of its columns, so the warp reads 512 contiguous bytes per column (the batch-1 kernels' stream), masks the nibbles into bytes once for all rows (two logic ops per eight weights) and, per row, multiplies them with the row's x by dp4a (v_dot4 on gfx906): four per eight weights, an exact int32 dot per chunk of 32, then one float FMA pair per row, column and chunk for the group's scale and offset (y += s * dot * u + o * sum(x), u the chunk's unit of fixed point). x is staged once per block for its slice of K (XS steps of WARP chunks, all MR rows, rows past M as zeros so no row branches) in shared memory as 16-bit fixed point scaled to each chunk's largest value (|X| <= 32639, so the high byte stays signed; each x off by at most about 2^-15 of it: inside the 1e-2 rule even beside an outlier of 128), split into signed high and low byte planes, each 16-byte piece of a step's row laid out across the lanes (a warp's reads of a piece are consecutive: no bank conflicts, and every read a constant offset from one address a stage); it takes about CT tiles of WARPS x COLS columns over that slice, dealt round its warps COLS columns at a time (so the warps of the grid differ by COLS columns at most), each warp walking its own with the weights DEPTH stages ahead. At the end of a tile a warp adds its lanes' sums in a transposing butterfly (each step halves the values a lane holds, fewer than MR x COLS shuffles in all where a plain butterfly takes MR x COLS x log2(WARP)). XS 0 cuts K into as few slices as shared memory and OCC blocks per SM allow, unless their short last slice would leave more than an eighth of their steps idle, then into one step a slice (on 8x5120x3072 slices of 2, 2 and 1 steps took 18.35 us, five of one 15.39; on 8x7168x9216 slices of 2, 2, 2 and 1 took 46.90, seven of one 50.03); CT 0 sizes the grid to OCC blocks per SM, the columns split evenly among them (SPREAD 0: a column block per tile of WARPS x COLS x GROUPS columns at most; SPREAD 1: per warp's tile, so blocks fill the SMs where block tiles are too few, warps past a block's share idle: 16 rows of 384x5120 6.79 -> 5.81 us, 8 rows of 5120x256 5.86 -> 6.21), and the launch bounds let OCC blocks of eight warps fit an SM (at two, 128 registers), so the whole grid is resident at once (no second wave of a few blocks). Slices of K are added in a fixed order by the last block of each column range, its loads of several sums and slices in flight together (one launch; a ticket per column range at the start of the workspace, rearmed, then the partial sums; the tickets' region, one a column whatever the knobs, lets builds of other knobs share a workspace). MR is the row capacity (the library builds one per M bucket). GROUPS is how many column groups a warp works side by side, each of WARP / GROUPS lanes over K (the tile then WARPS x GROUPS x COLS columns): where K / 32 is below the warp's width, lanes past K idle in every step with one group, fewer with several; the groups read the same x, their lanes interleaved (lane l in group l % GROUPS), so lanes that read the same piece of x are adjacent and a warp's read costs shared memory about half the time (one read serves them all). LAYOUT 0 reads dot's and gen's packed layout (q as canonical, then half2 (scale, offset) [N][K/G]), so the library runs it on the weights its batch-1 kernels already hold; LAYOUT 1 reads the canonical arrays (the relayout copies them). X16 1 keeps each x as one 16-bit word instead of two byte planes and multiplies it by dp2a (two 16-by-8-bit products an instruction, dp4a's pipe and rate): as many dot instructions, but no planes to combine, one accumulator per row and column instead of three, on gfx906 v_dot2_i32_i16 on the weight bytes widened once per word.",
  "let": {"STEPS": "cdiv(K / 32, WARP / GROUPS)",
          "TILES": "cdiv(N, WARPS * COLS * GROUPS)",
          "FEWEST": "min(STEPS, max(cdiv(STEPS, max(1, min(8, 40960 / (MR * WARP / GROUPS * 72)))), cdiv(OCC * SMS, TILES)))",
          "PER": "cdiv(STEPS, FEWEST)",
          "SLICES": "(XS > 0) * cdiv(STEPS, max(XS, 1)) + (XS == 0) * cdiv(STEPS, 1 + (7 * PER * cdiv(STEPS, PER) <= 8 * STEPS) * (PER - 1))"},
  "relayout": {"kernel": "relayout", "grid": ["cdiv(N * (K / G), 256)"], "block": [256]},
  "packed_bytes": "align(N * K / 2, 256) + (1 - LAYOUT) * N * (K / G) * 4 + LAYOUT * 2 * align(N * (K / G) * 2, 256)",
  "launches": [{"kernel": "gemm",
                "grid": ["(CT > 0) * cdiv(TILES, max(CT, 1)) + (CT == 0) * min(cdiv(N, (WARPS - SPREAD * (WARPS - 1)) * COLS * GROUPS), max(1, OCC * SMS / SLICES))",
                         "SLICES"],
                "block": ["WARPS * WARP"],
                "shared_bytes": "MR * WARP / GROUPS * 72 * cdiv(STEPS, SLICES)"}],
  "workspace_bytes": "align(N, 64) * 4 + SLICES * M * N * 4",
  "requires": ["K % 32 == 0", "G % 32 == 0", "M <= MR", "MR * WARP / GROUPS * 72 * max(XS, 1) <= 40960", "WARPS * WARP <= 512"],
  "params": {
    "MR":     {"values": [1, 2, 4, 8, 16], "default": 16},
    "COLS":   {"values": [1, 2, 4], "default": 2},
    "WARPS":  {"values": [2, 4, 8, 16], "default": 8},
    "DEPTH":  {"values": [2, 4, 6, 8], "default": 2},
    "XS":     {"values": [0, 1, 2, 3, 4, 6, 8], "default": 0},
    "CT":     {"values": [0, 1, 2, 4, 8, 16], "default": 0},
    "LAYOUT": {"values": [0, 1], "default": 0},
    "GROUPS": {"values": [1, 2, 4], "default": 1},
    "X16":    {"values": [0, 1], "default": 0},
    "OCC":    {"values": [1, 2, 3, 4], "default": 2},
    "SPREAD": {"values": [0, 1], "default": 0}
  }
}
*/
// x is read and y written through the dtype hooks (KOPT_X_PAIR, KOPT_Y_STORE;
// the device prelude), so the library builds this kernel for other dtypes too.

// LAYOUT 0 (dot's and gen's packed layout): q bytes as canonical ([N][K/2],
// low nibble = even k), then half2 (scale, offset) [N][K/G] after a 256-byte
// boundary. LAYOUT 1: the canonical blob (q, scales, offsets).

// A build that only runs the kernel (the library's builds for dtype pairs
// whose weights another build lays out) defines KOPT_NO_RELAYOUT.
#ifndef KOPT_NO_RELAYOUT
KOPT_KERNEL void relayout(const kopt_u8* __restrict__ canonical, kopt_u8* __restrict__ packed, int K, int N, int G,
                          int M) {
  // One thread per (column, group): its 32 * (G / 32) bytes of q, and its scale and offset.
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x, groups = K / G;
  if (i >= (kopt_u64)N * groups) return;
  const uint4* from = reinterpret_cast<const uint4*>(canonical + i * (G / 2));
  uint4* to = reinterpret_cast<uint4*>(packed + i * (G / 2));
  for (int b = 0; b < G / 32; ++b) to[b] = from[b];
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2));
  const __half* scales = kopt_canonical_scales(canonical, K, N, G);
  const __half* offsets = kopt_canonical_offsets(canonical, K, N, G);
  if (LAYOUT == 0) {
    reinterpret_cast<__half2*>(packed + q_bytes)[i] = __halves2half2(scales[i], offsets[i]);
  } else {
    reinterpret_cast<__half*>(packed + q_bytes)[i] = scales[i];
    reinterpret_cast<__half*>(packed + q_bytes + kopt_align256((kopt_u64)N * groups * 2))[i] = offsets[i];
  }
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
KOPT_INLINE void klanes_fixed_chunk(const uint4* h, uint4* pieces, float* scale, float* sum) {
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

// One stage of a lane's weights: 16 bytes of each column and its group's
// (scale, offset), kept as loaded (converted when used, so no instruction
// waits for a load before its stage is consumed).
struct KlanesStage {
  uint4 q[COLS];
  __half2 so[COLS];      // LAYOUT 0
  __half s[COLS], o[COLS];  // LAYOUT 1
};

// Word `part` (weights 8 * part .. 8 * part + 7) of a column's 16 bytes,
// its nibbles masked into bytes: the even k, the odd k.
KOPT_INLINE void klanes_nibbles(const uint4& q, int part, kopt_u32& even, kopt_u32& odd) {
  const kopt_u32 v = part == 0 ? q.x : part == 1 ? q.y : part == 2 ? q.z : q.w;
  even = v & 0x0F0F0F0Fu;
  odd = (v >> 4) & 0x0F0F0F0Fu;
}

// A chunk's dot of one row and column into its sum: s * dot * u + o *
// sum(x), xs = (u, sum(x)) the chunk's unit of fixed point and sum.
KOPT_INLINE float klanes_add_chunk(float acc, float scale, float offset, int dot, float2 xs) {
  return fmaf(scale, (float)dot * xs.x, fmaf(offset, xs.y, acc));
}

// A stage's scale and offset of each column, as floats.
KOPT_INLINE void klanes_scale_offset(const KlanesStage& st, float* scale, float* offset) {
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const float2 so = LAYOUT == 0 ? __half22float2(st.so[j]) : make_float2(__half2float(st.s[j]), __half2float(st.o[j]));
    scale[j] = so.x;
    offset[j] = so.y;
  }
}

// X16: `in` plus one part's dot of x (xp: (X0, X2), (X4, X6), (X1, X3),
// (X5, X7)) with eight weights (their even and odd k as bytes), by dp2a.
KOPT_INLINE int klanes_dot2(const uint4& xp, kopt_u32 even, kopt_u32 odd, int in) {
  return kopt_dot2_s16u8_hi((int)xp.w, odd,
                            kopt_dot2_s16u8_lo((int)xp.z, odd,
                                               kopt_dot2_s16u8_hi((int)xp.y, even, kopt_dot2_s16u8_lo((int)xp.x, even, in))));
}

// a or b by a mask of bits: written as a select of two array elements, the
// compiler turns it into a load from a selected address, which keeps the
// array in scratch on gfx906.
KOPT_INLINE float klanes_pick(bool first, float a, float b) {
  const kopt_u32 m = 0u - (kopt_u32)first;
  return __uint_as_float((__float_as_uint(a) & m) | (__float_as_uint(b) & ~m));
}

// The transposing butterfly of a tile's sums over lane mask MASK (and the
// masks below it) while a lane holds 2 * HALF values or more: the lanes with
// the mask bit keep the upper half of their values and send the lower, the
// others the reverse; once one value is left the steps are plain sums. The
// masks stop at LOWEST, the lane stride of a column group's lanes.
template <int MASK, int HALF, int LOWEST>
KOPT_INLINE void klanes_fold(float (&v)[MR * COLS], int lane, int& first) {
  if constexpr (MASK >= LOWEST) {
    if constexpr (HALF >= 1) {
      const bool upper = (lane & MASK) != 0;
#pragma unroll
      for (int i = 0; i < HALF; ++i) {
        const float lo = v[i], hi = v[i + HALF];
        v[i] = klanes_pick(upper, hi, lo) + kopt_shfl_xor(klanes_pick(upper, lo, hi), MASK);
      }
      if (upper) first += HALF;
    } else {
      v[0] += kopt_shfl_xor(v[0], MASK);
    }
    klanes_fold<MASK / 2, HALF / 2, LOWEST>(v, lane, first);
  }
}

// OCC blocks of eight warps per SM on NVIDIA (the grid is sized to it; two,
// sixteen warps, keep the bytes in flight the weight stream needs at 128
// registers a thread; three or four cut the registers to 80 and 64). Blocks
// of sixteen warps at OCC 1 get no minimum from the quotient; their 512
// threads hold a thread to 128 registers. NVIDIA only (the prelude's
// KOPT_LAUNCH_BOUNDS): on AMD it would cut the registers to 64.
KOPT_KERNEL void KOPT_LAUNCH_BOUNDS(WARPS * KOPT_WARP_SIZE, OCC * 8 / WARPS)
    gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w, float* __restrict__ y, float* __restrict__ ws,
         int K, int N, int G, int M) {
  constexpr int W = KOPT_WARP_SIZE;
  constexpr int V = MR * COLS;  // sums a lane holds per tile (a power of two)
  constexpr int SG = GROUPS;  // column groups a warp works side by side
  constexpr int L = W / SG;   // lanes a column (over K)
  extern __shared__ uint4 klanes_x[];  // x of the slice in fixed point (below)
  const int lane = threadIdx.x % W, warp = threadIdx.x / W;
  // The lane's place in its group and its group, interleaved: lanes that read
  // the same x are adjacent, so a quarter warp's 16-byte reads of x touch
  // fewer pieces (the H100 serves a warp's read of 16 pieces in pairs in 2.25
  // clocks, of 32 or of 16 repeated per quarter warp in 4).
  const int kl = lane / SG, sub = lane % SG;

  const int chunks = K / 32, steps = (chunks + L - 1) / L;
  const int per = (steps + gridDim.y - 1) / gridDim.y;  // steps of a slice
  const int s_begin = min(steps, (int)blockIdx.y * per), nsteps = min(steps, s_begin + per) - s_begin;
  const int used_slices = (steps + per - 1) / per;  // the last blocks of y may have no steps
  // A warp's tiles (COLS columns each) split evenly over the blocks of a
  // slice, then dealt round the block's warps: the warps of the grid differ
  // by one tile at most, and so do the SMs by one block's share. (Whole
  // block tiles made SMs differ by up to a third: on 8x5120x3072, 192
  // tiles on 88 blocks of a slice, 2 or 3 each.)
  const int warp_tiles = (N + SG * COLS - 1) / (SG * COLS);
  const int w_begin = (int)((kopt_u64)blockIdx.x * warp_tiles / gridDim.x);
  const int w_end = (int)((kopt_u64)(blockIdx.x + 1) * warp_tiles / gridDim.x);
  const int mine = max(0, (w_end - w_begin - warp + WARPS - 1) / WARPS);  // this warp's tiles
  const int units = mine * nsteps;
  const int groups = K / G;
  const kopt_u64 q_bytes = kopt_align256((kopt_u64)N * (K / 2));

  // Column j of this lane group's part of the warp's tile t (t counts the
  // warp's own tiles of SG x COLS columns).
  auto column = [&](int t, int j) { return ((w_begin + warp + t * WARPS) * SG + sub) * COLS + j; };
  // A unit is (tile, step of the slice), tile-major. Cursors walk the units
  // one at a time with no division in the loop (a runtime division costs
  // about twenty instructions: four a unit cost as much as the dot products
  // of two rows): the step, the tile, and the lane's group index g with
  // chunk * 32 = g * G + rest, which a step moves by L * 32.
  const int first_chunk = s_begin * L + kl;
  const int g_first = first_chunk * 32 / G, rest_first = first_chunk * 32 % G;
  const int g_step = L * 32 / G, rest_step = L * 32 % G;
  struct KlanesCursor {
    int tile, step, g, rest;
  };
  auto advance = [&](KlanesCursor& at) {
    if (++at.step == nsteps) {
      at.step = 0;
      ++at.tile;
      at.g = g_first;
      at.rest = rest_first;
    } else {
      at.g += g_step;
      at.rest += rest_step;
      if (at.rest >= G) {
        at.rest -= G;
        ++at.g;
      }
    }
  };
  // Chunks past K read the last chunk's q (the same 16 bytes for every such
  // lane: no extra traffic) and zero scale and offset; their x is zero too,
  // so they add nothing. (A select of q against zeros made the compiler copy
  // the loaded word at once, waiting for the load where it was issued: on
  // 8x7168x9216, 18% of the warps' stall samples were those copies.)
  auto load = [&](KlanesStage& st, const KlanesCursor& at) {
    const int c = (s_begin + at.step) * L + kl;
    const bool inside = c < chunks;
    const int c_read = min(c, chunks - 1);
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      const int col = min(column(at.tile, j), N - 1);  // past N: a copy, never written
      const kopt_u64 where = (kopt_u64)col * groups + (inside ? at.g : 0);
      st.q[j] = kopt_load16_no_l1(w + (kopt_u64)col * (K / 2) + (kopt_u64)c_read * 16);
      if (LAYOUT == 0) {
        st.so[j] = inside ? reinterpret_cast<const __half2*>(w + q_bytes)[where] : __floats2half2_rn(0.f, 0.f);
      } else {
        st.s[j] = inside ? reinterpret_cast<const __half*>(w + q_bytes)[where] : __float2half(0.f);
        st.o[j] = inside ? reinterpret_cast<const __half*>(w + q_bytes + kopt_align256((kopt_u64)N * groups * 2))[where]
                         : __float2half(0.f);
      }
    }
  };

  // A staging item is one row's chunk of the slice: its lane c of a step,
  // its row r and its step s.
  struct KlanesXItem {
    int c, r, s;
  };
  auto x_item_at = [&](int item) {
    const int rs = item / L;
    return KlanesXItem{item % L, rs / nsteps, rs % nsteps};
  };
  // A staging item's 32 values of x; zeros past M and K.
  auto x_item_load = [&](int item, uint4 (&h)[4]) {
    const auto [c, r, s] = x_item_at(item);
    const int gc = (s_begin + s) * L + c;
#pragma unroll
    for (int i = 0; i < 4; ++i) h[i] = make_uint4(0u, 0u, 0u, 0u);
    if (item < MR * nsteps * L && r < M && gc < chunks) {
      const uint4* from = reinterpret_cast<const uint4*>(x + (kopt_u64)r * K + (kopt_u64)gc * 32);
#pragma unroll
      for (int i = 0; i < 4; ++i) h[i] = from[i];
    }
  };
  // From 8 rows a thread's first two staging items of x are requested
  // together, before either is staged (staged one by one, the second waits a
  // round trip of its own). At 16 rows they are requested before the weight
  // stages, as x is what the block waits for first (there they are all of a
  // thread's items: 256 threads, and a slice's 40960 bytes hold 512 items at
  // most); at 8 rows right after them. Measured on an H100 (2026-11-28,
  // PERFORMANCE.md), the library's contest sums against the same builds
  // without: 16 rows, x first, 299.88 -> 295.13 us (7168x9216 60.33 ->
  // 58.67; x after the weights 297.85 against x first's 295.98 in a later
  // run); 8 rows, x after the weights, 196.46 -> 194.18 (7168x9216 39.33 ->
  // 37.69, 4608x7168 22.01 -> 21.22, no shape slower by more than 0.22),
  // where x first left the sum flat (196.63 against 197.17). Not at 4 rows
  // and fewer, flat there (137.82 -> 138.03), nor where the weight stream is
  // deeper than four stages, whose registers leave no room to hold them
  // (gfx906 scratch).
  constexpr int EARLY = MR >= 8 && DEPTH <= 4 ? 2 : 0;
  constexpr bool X_FIRST = MR >= 16;
  uint4 h_early[EARLY > 0 ? EARLY : 1][4];
  auto request_early_x = [&] {
#pragma unroll
    for (int e = 0; e < EARLY; ++e) x_item_load(threadIdx.x + e * WARPS * W, h_early[e]);
  };
  if constexpr (X_FIRST) request_early_x();
  KlanesStage st[DEPTH];
  KlanesCursor loading = {0, 0, g_first, rest_first};
#pragma unroll
  for (int d = 0; d < DEPTH; ++d)
    if (d < units) {
      load(st[d], loading);
      advance(loading);
    }
  if constexpr (!X_FIRST) request_early_x();

  // The slice's x, all rows, staged once in fixed point, one thread per row
  // and chunk. Rows past M are zeros: every row is computed, no branch. Laid
  // out [step][row][piece][lane]: the lanes' 16-byte reads of a piece are
  // consecutive (no bank conflicts), and every read of a stage is one
  // per-stage address plus a constant offset. (Rows a runtime stride apart
  // and pieces swizzled by lane cost about ten integer ops of addressing a
  // row beside its 32 dp4a; laid out so: M = 8 227.68 -> 214.95 us, M = 16
  // 395.35 -> 371.29, M = 4 162.58 -> 155.44 on the H100's contest sums.)
  uint4* x_pieces = klanes_x;                                                  // [per][MR][4][L]
  float2* x_scales = reinterpret_cast<float2*>(klanes_x + MR * per * L * 4);  // [per][MR][L]
  for (int item = threadIdx.x, round = 0; item < MR * nsteps * L; item += WARPS * W, ++round) {
    const auto [c, r, s] = x_item_at(item);
    uint4 h[4];
    if (round >= EARLY) x_item_load(item, h);
#pragma unroll
    for (int e = 0; e < EARLY; ++e)
      if (round == e)
#pragma unroll
        for (int i = 0; i < 4; ++i) h[i] = h_early[e][i];
    uint4 pieces[4];
    float scale, sum;
    klanes_fixed_chunk(h, pieces, &scale, &sum);
    const int at = (s * MR + r) * L + c;
#pragma unroll
    for (int p = 0; p < 4; ++p) x_pieces[((s * MR + r) * 4 + p) * L + c] = pieces[p];
    x_scales[at] = make_float2(scale, sum);
  }
  __syncthreads();

  float acc[MR][COLS];
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) acc[r][j] = 0.f;

  // A stage: per column, its 32 nibbles masked into bytes (even k, odd k) in
  // two logic ops a word, shared by all rows; per row and column, dp4a with
  // the row's fixed-point x (an int32 dot per chunk, exact), then
  // y += s * dot * u + o * sum(x), u the chunk's unit of fixed point.
  auto consume = [&](const KlanesStage& cur, int s) {
    // With X16 and 32 sums a lane or more, row by row: every part's masked
    // weights held, one row's dots at a time, which the registers hold
    // without spilling (every row's dots at once spilled 48 bytes at 16 rows
    // and two columns). Measured on an H100 (2026-11-27, PERFORMANCE.md),
    // the seed at 16 rows, two groups, spread: 7168x9216 61.81 -> 60.45 us,
    // 5120x3072 20.30 -> 19.77, 512x7168 6.92 -> 6.68, none slower by more
    // than 0.04; at 8 rows, or one column, flat either way, so not there.
    constexpr bool ROW_BY_ROW = X16 && MR * COLS >= 32;
    if constexpr (ROW_BY_ROW) {
      kopt_u32 even[4][COLS], odd[4][COLS];
#pragma unroll
      for (int part = 0; part < 4; ++part)
#pragma unroll
        for (int j = 0; j < COLS; ++j) klanes_nibbles(cur.q[j], part, even[part][j], odd[part][j]);
      float sc[COLS], of[COLS];
      klanes_scale_offset(cur, sc, of);
      const uint4* x_row = x_pieces + s * MR * 4 * L + kl;
      const float2* x_scale = x_scales + s * MR * L + kl;
#pragma unroll
      for (int r = 0; r < MR; ++r) {
        int dot[COLS];
#pragma unroll
        for (int part = 0; part < 4; ++part) {
          const uint4 xp = x_row[(r * 4 + part) * L];
#pragma unroll
          for (int j = 0; j < COLS; ++j) dot[j] = klanes_dot2(xp, even[part][j], odd[part][j], part == 0 ? 0 : dot[j]);
        }
        const float2 xs = x_scale[r * L];
#pragma unroll
        for (int j = 0; j < COLS; ++j) acc[r][j] = klanes_add_chunk(acc[r][j], sc[j], of[j], dot[j], xs);
      }
      return;
    }
    // Up to 16 sums a lane, the high and low planes' dots run on through the
    // chunk's four parts (dp4a's own accumulator) and meet once (|high| and
    // |low| <= 128 * 15 * 32, far inside int32): one integer op a part less.
    // Past 16 the second set of accumulators costs more than it saves at 128
    // registers, and each part's pair meets in `dot`. Measured on an H200 (2026-11-26, PERFORMANCE.md): at 8 rows the
    // contest sum 267.19 -> 258.61 us, at 16 rows 410.16 -> 424.64.
    constexpr bool CHAIN = !X16 && MR * COLS <= 16;
    int high[MR][COLS], low[MR][COLS], dot[MR][COLS];
#pragma unroll
    for (int part = 0; part < 4; ++part) {
      kopt_u32 even[COLS], odd[COLS];
#pragma unroll
      for (int j = 0; j < COLS; ++j) klanes_nibbles(cur.q[j], part, even[j], odd[j]);
      const uint4* x_part = x_pieces + (s * MR * 4 + part) * L + kl;
#pragma unroll
      for (int r = 0; r < MR; ++r) {
        const uint4 xp = x_part[r * 4 * L];
#pragma unroll
        for (int j = 0; j < COLS; ++j) {
          if (X16) {
            dot[r][j] = klanes_dot2(xp, even[j], odd[j], part == 0 ? 0 : dot[r][j]);
            continue;
          }
          const bool carry = CHAIN && part > 0;
          high[r][j] = kopt_dot4_s8((int)odd[j], (int)xp.w,
                                    kopt_dot4_s8((int)even[j], (int)xp.z, carry ? high[r][j] : 0));
          low[r][j] = kopt_dot4_s8((int)odd[j], (int)xp.y,
                                   kopt_dot4_s8((int)even[j], (int)xp.x, carry ? low[r][j] : 0));
          if (!CHAIN) dot[r][j] = (part == 0 ? 0 : dot[r][j]) + high[r][j] * 256 + low[r][j];
        }
      }
    }
    float sc[COLS], of[COLS];
    klanes_scale_offset(cur, sc, of);
    const float2* x_scale = x_scales + s * MR * L + kl;
#pragma unroll
    for (int r = 0; r < MR; ++r) {
      const float2 xs = x_scale[r * L];
#pragma unroll
      for (int j = 0; j < COLS; ++j) {
        const int d = CHAIN ? high[r][j] * 256 + low[r][j] : dot[r][j];
        acc[r][j] = klanes_add_chunk(acc[r][j], sc[j], of[j], d, xs);
      }
    }
  };

  // A tile's sums: the transposing butterfly, then each lane writes the sums
  // it ended with (to y, or to this slice's partial sums).
  // After the tickets' region, one a column (no grid has more column ranges
  // than columns), so the partial sums start at the same place for every
  // build whatever its knobs, and builds can share a workspace.
  float* partials = ws + ((N + 63) / 64) * 64;
  float* out = gridDim.y > 1 ? partials + (kopt_u64)blockIdx.y * M * N : y;
  auto finish_tile = [&](int tile) {
    float v[V];
#pragma unroll
    for (int r = 0; r < MR; ++r)
#pragma unroll
      for (int j = 0; j < COLS; ++j) {
        v[r * COLS + j] = acc[r][j];
        acc[r][j] = 0.f;
      }
    int first = 0;  // index of the first value this lane holds
    klanes_fold<(L / 2) * SG, V / 2, SG>(v, lane, first);
    constexpr int HELD = V >= L ? V / L : 1;
    const bool writer = V >= L || (kl & (L / V - 1)) == 0;
    if (!writer) return;
#pragma unroll
    for (int i = 0; i < HELD; ++i) {
      const int r = (first + i) / COLS, n = column(tile, (first + i) % COLS);
      if (r < M && n < N) KOPT_Y_STORE(out, (kopt_u64)r * N + n, v[i], gridDim.y > 1);
    }
  };

  KlanesCursor consuming = {0, 0, g_first, rest_first};  // (its g is not used)
  for (int u0 = 0; u0 < units; u0 += DEPTH) {
#pragma unroll
    for (int d = 0; d < DEPTH; ++d) {
      const int u = u0 + d;
      if (u < units) {
        consume(st[d], consuming.step);
        if (u + DEPTH < units) {
          load(st[d], loading);
          advance(loading);
        }
        if (consuming.step == nsteps - 1) finish_tile(consuming.tile);
        advance(consuming);
      }
    }
  }
  if (gridDim.y == 1) return;

  // Slices of K: the last block of this column range to finish (a ticket per
  // range, rearmed for the next call) adds the slices in order (deterministic).
  __shared__ int klanes_last;
  int* tickets = reinterpret_cast<int*>(ws);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    klanes_last = atomicAdd(&tickets[blockIdx.x], 1) == (int)gridDim.y - 1;
    if (klanes_last) tickets[blockIdx.x] = 0;
  }
  __syncthreads();
  if (!klanes_last) return;
  __threadfence();
  const volatile float* parts = partials;  // written by other blocks: not from L1
  const int n_begin = w_begin * SG * COLS, width = min(N, w_end * SG * COLS) - n_begin, count = M * width;
  // A thread's ITEMS sums at once, SLICES slices of each read before any is
  // added, so their loads are in flight together. (One at a time, the sums
  // waited a round trip to L2 per slice: Nsight Compute on the H100,
  // 2026-11-27, put 15% of the warps' stall samples of 16 rows of 7168x9216
  // after the main loop, 39% of 1536x6144, most at the barrier above or on
  // these loads; the library's 16-row contest sum went 335 -> 308 us.) The
  // slices are still added in order, so y is the same bits in every run.
  constexpr int ITEMS = 4, SLICES = 8, STRIDE = WARPS * W;
  for (int i0 = threadIdx.x; i0 < count; i0 += ITEMS * STRIDE) {
    kopt_u64 at[ITEMS];
    float sum[ITEMS];
    bool mine[ITEMS];
#pragma unroll
    for (int b = 0; b < ITEMS; ++b) {
      const int i = i0 + b * STRIDE, r = i / width;
      mine[b] = i < count;
      at[b] = (kopt_u64)r * N + n_begin + (i - r * width);
      sum[b] = 0.f;
    }
    for (int s0 = 0; s0 < used_slices; s0 += SLICES) {
      float part[ITEMS][SLICES];
#pragma unroll
      for (int b = 0; b < ITEMS; ++b)
#pragma unroll
        for (int s = 0; s < SLICES; ++s)
          part[b][s] = mine[b] && s0 + s < used_slices ? parts[(kopt_u64)(s0 + s) * M * N + at[b]] : 0.f;
#pragma unroll
      for (int b = 0; b < ITEMS; ++b)
#pragma unroll
        for (int s = 0; s < SLICES; ++s) sum[b] += part[b][s];
    }
#pragma unroll
    for (int b = 0; b < ITEMS; ++b)
      if (mine[b]) KOPT_Y_STORE(y, at[b], sum[b], false);
  }
}
