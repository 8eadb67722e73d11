/* kopt:
{
  "name": "lanes",
  "description": "Lane groups over K, every row at once, in fp32. A lane group of LPC lanes owns COLS adjacent channels; in a step each lane reads 16 consecutive int8 weights of each of its channels (the group reads 16 * LPC contiguous bytes a channel; DEPTH steps of them requested ahead in a ring of registers, a stage's first ones before its x is staged), turns each weight into an exact float once for all rows (a byte perm under 2^23's exponent and one subtraction), and per row multiplies them with the row's x by FMAs into an fp32 sum per (row, channel). x is staged in shared memory as fp32 for XT values of K at a time, every row the build holds (MR; rows past M as zeros, so no row branches), each thread's loads of x requested four at a time before any is stored; each lane's four values a read laid out so the LPC lanes of a group read consecutive 16-byte pieces (no bank conflicts; a group's lanes are WARP / LPC apart, so the lanes of the groups that read the same piece are adjacent and one read serves them). At the end the LPC lanes of a group add their sums by shuffles and each writes a share of them, times the channel's scale. The grid's second dimension splits K into SPLIT slices of whole steps; their fp32 partial sums go to the workspace and the last block of each column range (a ticket per range at the start of the workspace, rearmed) adds them in a fixed order (one launch, deterministic), so narrow N still fills the GPU. MR is the row capacity (the library builds one per M bucket); WARPS x (WARP / LPC) x COLS channels a block. X16 1 multiplies in integers instead: x staged as 16-bit fixed point, each chunk of 16 values scaled to its largest (off by at most 2^-15 of it), and each weight word biased to unsigned bytes (q + 128) and multiplied by dp2a (two 16-by-8-bit products an instruction, no conversion of the weights; v_dot2_i32_i16 on gfx906): an exact int32 dot a chunk, started at -128 times the chunk's sum so the bias cancels, then one FMA with the chunk's unit per row and channel.",
  "launches": [{"kernel": "gemm",
                "grid": ["cdiv(N, WARPS * (WARP / LPC) * COLS)", "SPLIT"],
                "block": ["WARPS * WARP"]}],
  "workspace_bytes": "align(N, 64) * 4 + SPLIT * M * N * 4",
  "requires": ["K % 16 == 0", "M <= MR", "LPC <= WARP", "XT % (16 * LPC) == 0", "MR * XT * 4 <= 49152", "WARPS * WARP <= 512", "MR * COLS * WARP <= 2048", "DEPTH * COLS * WARP <= 256"],
  "params": {
    "MR":    {"values": [1, 2, 4, 8, 16], "default": 16},
    "COLS":  {"values": [1, 2, 4], "default": 2},
    "LPC":   {"values": [1, 2, 4, 8, 16, 32], "default": 4},
    "WARPS": {"values": [2, 4, 8, 16], "default": 8},
    "SPLIT": {"values": [1, 2, 3, 4, 6, 8, 12, 16, 24, 32], "default": 1},
    "XT":    {"values": [256, 512, 1024, 2048], "default": 512},
    "DEPTH": {"values": [1, 2, 3, 4], "default": 2},
    "X16":   {"values": [0, 1], "default": 0}
  }
}
*/
// Y[m][n] = scale[n] * sum_k X[m][k] * q[n][k]

// x is read and y written through the dtype hooks (KOPT_X_PAIR, KOPT_Y_STORE;
// the device prelude), so the library builds this kernel for other dtypes too.

// Lane groups a warp, and the channels of a block.
#define LANES_GROUPS (KOPT_WARP_SIZE / LPC)
#define LANES_BLOCK_COLS (WARPS * LANES_GROUPS * COLS)

// The four signed bytes of a weight word as floats, exactly: each byte
// biased to b + 128 (the XOR), placed under the exponent of 2^23 (so the
// float is 2^23 + b + 128), and the 2^23 + 128 taken off.
KOPT_INLINE void lanes_weights(kopt_u32 word, float* f) {
  const kopt_u32 biased = word ^ 0x80808080u;
#pragma unroll
  for (int i = 0; i < 4; ++i) f[i] = __uint_as_float(__byte_perm(biased, 0x4B000000u, 0x7650u | i)) - 8388736.f;
}

// Where the float4 of x values k .. k + 3 (k a multiple of 4, relative to the
// stage) sits in the stage: in each block of 16 * LPC values, a lane's four
// pieces (its 16 values) are LPC apart, so the LPC lanes of a group read
// consecutive pieces.
KOPT_INLINE int lanes_piece(int k) {
  const int block = k / (16 * LPC), in = (k / 4) % (4 * LPC);
  return block * 4 * LPC + (in % 4) * LPC + in / 4;
}

// X16: a chunk of 16 values of a row of x as 16-bit fixed point, X =
// rint(x * up), up = 2^(15 - E) * F with E the exponent of the chunk's
// largest |x| (largest < 2^E) and F = 32767 / 32768, so |X| <= 32767 and
// each x is off by at most 2^-15 / F of the largest. Its words are X's pairs
// in k order, the first four in `first`, the last four in `second`; `unit`
// holds 1 / up and, as an int's bits, -128 times the chunk's sum of X (the
// dot's start, cancelling the bias of the weight bytes). A chunk's dot is at
// most 16 * 32767 * 255 in size: exact in an int32. A chunk whose largest
// value is below 2^-100 counts as zeros, so up stays a normal float (a bf16
// x can be that small; such a chunk adds under 2^-90 of a weight to y).
KOPT_INLINE void lanes_fixed_chunk(const uint4* h, uint4* first, uint4* second, float2* unit) {
  float v[16];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
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
  for (int i = 0; i < 16; ++i) largest = fmaxf(largest, fabsf(v[i]));
  const int E = (int)(__float_as_uint(largest) >> 23) - 126;
  const bool nonzero = largest >= __uint_as_float(27u << 23);  // 2^-100
  const float up = nonzero ? __uint_as_float((kopt_u32)(127 + 15 - E) << 23) * (32767.f / 32768.f) : 0.f;
  const float down = nonzero ? __uint_as_float((kopt_u32)(127 - 15 + E) << 23) * (32768.f / 32767.f) : 0.f;
  // rint(x * up) in one FMA: x * up + 1.5 * 2^23 rounds to an integer whose
  // float's low bits hold X in two's complement (|X| < 2^15 leaves the
  // exponent alone), so the bits summed less 16 magic numbers are the sum.
  constexpr float kMagic = 12582912.f;  // 1.5 * 2^23
  kopt_u32 bits[16], summed = 0u;
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    bits[i] = __float_as_uint(fmaf(v[i], up, kMagic));
    summed += bits[i];
  }
  const int sum = (int)(summed - 16u * __float_as_uint(kMagic));
  kopt_u32 words[8];
#pragma unroll
  for (int m = 0; m < 8; ++m) words[m] = __byte_perm(bits[2 * m], bits[2 * m + 1], 0x5410u);
  *first = make_uint4(words[0], words[1], words[2], words[3]);
  *second = make_uint4(words[4], words[5], words[6], words[7]);
  *unit = make_float2(down, __int_as_float(-128 * sum));
}

KOPT_KERNEL void __launch_bounds__(WARPS * KOPT_WARP_SIZE) gemm(const __half* __restrict__ x, const kopt_u8* __restrict__ w,
                                                               float* __restrict__ y, float* __restrict__ ws, int K, int N, int M) {
  // x of the stage: fp32, or (X16) fixed point a chunk of 16 and its unit.
  __shared__ float4 stage[X16 ? 1 : MR][X16 ? 1 : XT / 4];
  __shared__ uint4 fixed[X16 ? MR : 1][2][X16 ? XT / 16 : 1];
  __shared__ float2 units[X16 ? MR : 1][X16 ? XT / 16 : 1];
  // A group's lanes are LANES_GROUPS apart, so the lanes that read the same
  // piece of x (one of each group) are adjacent: a warp's read then costs
  // shared memory about half the time of the same pieces repeated in every
  // quarter warp.
  const int lane = threadIdx.x % KOPT_WARP_SIZE, member = lane / LANES_GROUPS;
  const int group = (threadIdx.x / KOPT_WARP_SIZE) * LANES_GROUPS + lane % LANES_GROUPS;
  const int n0 = blockIdx.x * LANES_BLOCK_COLS + group * COLS;
  // This block's slice of K, in whole steps of 16.
  const int steps = K / 16, per = (steps + gridDim.y - 1) / gridDim.y;
  const int begin = min(K, (int)blockIdx.y * per * 16), end = min(K, begin + per * 16);
  const kopt_u8* rows[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) rows[j] = w + (kopt_u64)min(n0 + j, N - 1) * K;  // past N: a real row, not written

  float acc[MR][COLS];
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) acc[r][j] = 0.f;

  // A stage's steps of this lane (pieces of 16 k: member, member + LPC, ...),
  // their weights DEPTH steps ahead in a ring of registers.
  uint4 ring[DEPTH][COLS];
  auto load = [&](uint4* q, int k0, int step) {
#pragma unroll
    for (int j = 0; j < COLS; ++j) q[j] = kopt_load_stream16(rows[j] + k0 + (member + step * LPC) * 16);
  };
  for (int k0 = begin; k0 < end; k0 += XT) {
    const int len = min(XT, end - k0), pieces = len / 16;
    const int nsteps = pieces > member ? (pieces - member + LPC - 1) / LPC : 0;
    // The stage's first weights are requested before x is staged, so their
    // loads are in flight meanwhile.
#pragma unroll
    for (int d = 0; d < DEPTH; ++d)
      if (d < nsteps) load(ring[d], k0, d);
    __syncthreads();  // the last stage's reads are done
    // x: each thread's loads of a round requested before any is stored.
    constexpr int CHUNKS = X16 ? MR * (XT / 16) : 0, CHUNK_ROUND = 2;
    for (int i0 = threadIdx.x; i0 < CHUNKS; i0 += CHUNK_ROUND * (int)blockDim.x) {
      uint4 h[CHUNK_ROUND][2];
#pragma unroll
      for (int b = 0; b < CHUNK_ROUND; ++b) {
        const int i = i0 + b * blockDim.x, r = i / (XT / 16), k = 16 * (i % (XT / 16));
        const bool live = i < CHUNKS && r < M && k < len;  // len is whole chunks
        const uint4* from = reinterpret_cast<const uint4*>(x + (kopt_u64)r * K + k0 + k);
        h[b][0] = live ? from[0] : make_uint4(0u, 0u, 0u, 0u);
        h[b][1] = live ? from[1] : make_uint4(0u, 0u, 0u, 0u);
      }
#pragma unroll
      for (int b = 0; b < CHUNK_ROUND; ++b) {
        const int i = i0 + b * blockDim.x, r = i / (XT / 16), c = i % (XT / 16);
        if (i >= CHUNKS) break;
        lanes_fixed_chunk(h[b], &fixed[r][0][c], &fixed[r][1][c], &units[r][c]);
      }
    }
    constexpr int TOTAL = X16 ? 0 : MR * (XT / 4), ROUND = 4;
    for (int i0 = threadIdx.x; i0 < TOTAL; i0 += ROUND * (int)blockDim.x) {
      uint2 h[ROUND];
#pragma unroll
      for (int b = 0; b < ROUND; ++b) {
        const int i = i0 + b * blockDim.x, r = i / (XT / 4), k = 4 * (i % (XT / 4));
        h[b] = i < TOTAL && r < M && k < len ? *reinterpret_cast<const uint2*>(x + (kopt_u64)r * K + k0 + k) : make_uint2(0u, 0u);
      }
#pragma unroll
      for (int b = 0; b < ROUND; ++b) {
        const int i = i0 + b * blockDim.x, r = i / (XT / 4), k = 4 * (i % (XT / 4));
        if (i >= TOTAL) break;
        const float2 lo = KOPT_X_PAIR(*reinterpret_cast<const __half2*>(&h[b].x));
        const float2 hi = KOPT_X_PAIR(*reinterpret_cast<const __half2*>(&h[b].y));
        stage[r][lanes_piece(k)] = make_float4(lo.x, lo.y, hi.x, hi.y);
      }
    }
    __syncthreads();
    for (int s0 = 0; s0 < nsteps; s0 += DEPTH) {
#pragma unroll
      for (int d = 0; d < DEPTH; ++d) {
        const int step = s0 + d;
        if (step >= nsteps) break;
        uint4 q[COLS];
#pragma unroll
        for (int j = 0; j < COLS; ++j) q[j] = ring[d][j];
        if (step + DEPTH < nsteps) load(ring[d], k0, step + DEPTH);
        const int k = (member + step * LPC) * 16;
        if (X16) {
          // Weight word i (k = 4i .. 4i + 3) meets x's words 2i (dp2a's
          // low bytes) and 2i + 1 (its high bytes).
          kopt_u32 biased[COLS][4];
#pragma unroll
          for (int j = 0; j < COLS; ++j) {
            biased[j][0] = q[j].x ^ 0x80808080u;
            biased[j][1] = q[j].y ^ 0x80808080u;
            biased[j][2] = q[j].z ^ 0x80808080u;
            biased[j][3] = q[j].w ^ 0x80808080u;
          }
          const int c = k / 16;
#pragma unroll
          for (int r = 0; r < MR; ++r) {
            const uint4 a = fixed[r][0][c], b = fixed[r][1][c];
            const float2 u = units[r][c];
#pragma unroll
            for (int j = 0; j < COLS; ++j) {
              int d = __float_as_int(u.y);
              d = kopt_dot2_s16u8_lo((int)a.x, biased[j][0], d);
              d = kopt_dot2_s16u8_hi((int)a.y, biased[j][0], d);
              d = kopt_dot2_s16u8_lo((int)a.z, biased[j][1], d);
              d = kopt_dot2_s16u8_hi((int)a.w, biased[j][1], d);
              d = kopt_dot2_s16u8_lo((int)b.x, biased[j][2], d);
              d = kopt_dot2_s16u8_hi((int)b.y, biased[j][2], d);
              d = kopt_dot2_s16u8_lo((int)b.z, biased[j][3], d);
              d = kopt_dot2_s16u8_hi((int)b.w, biased[j][3], d);
              acc[r][j] = fmaf(u.x, (float)d, acc[r][j]);
            }
          }
        } else {
#pragma unroll
          for (int part = 0; part < 4; ++part) {
            float f[COLS][4];
#pragma unroll
            for (int j = 0; j < COLS; ++j)
              lanes_weights(part == 0 ? q[j].x : part == 1 ? q[j].y : part == 2 ? q[j].z : q[j].w, f[j]);
            const int at = lanes_piece(k + 4 * part);
#pragma unroll
            for (int r = 0; r < MR; ++r) {
              const float4 v = stage[r][at];
#pragma unroll
              for (int j = 0; j < COLS; ++j)
                acc[r][j] = fmaf(v.w, f[j][3], fmaf(v.z, f[j][2], fmaf(v.y, f[j][1], fmaf(v.x, f[j][0], acc[r][j]))));
            }
          }
        }
      }
    }
  }

  // The group's lanes add their sums; each then writes every LPC-th of them.
#pragma unroll
  for (int mask = KOPT_WARP_SIZE / 2; mask >= LANES_GROUPS; mask /= 2)
#pragma unroll
    for (int r = 0; r < MR; ++r)
#pragma unroll
      for (int j = 0; j < COLS; ++j) acc[r][j] += kopt_shfl_xor(acc[r][j], mask);
  const __half* scales = kopt_w8_scales(w, K, N);
  // After the tickets' region, one a column (no grid has more column ranges
  // than columns), so the partial sums start at the same place whatever the
  // knobs.
  float* partials = ws + ((N + 63) / 64) * 64;
#pragma unroll
  for (int r = 0; r < MR; ++r)
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      const int n = n0 + j;
      if ((r * COLS + j) % LPC != member || r >= M || n >= N) continue;
      if (gridDim.y == 1)
        KOPT_Y_STORE(y, (kopt_u64)r * N + n, __half2float(scales[n]) * acc[r][j], false);
      else
        partials[((kopt_u64)blockIdx.y * M + r) * N + n] = acc[r][j];
    }
  if (gridDim.y == 1) return;

  // Slices of K: the last block of this column range to finish (a ticket per
  // range, rearmed for the next call) adds the slices in order (deterministic).
  __shared__ int lanes_last;
  int* tickets = reinterpret_cast<int*>(ws);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    lanes_last = atomicAdd(&tickets[blockIdx.x], 1) == (int)gridDim.y - 1;
    if (lanes_last) tickets[blockIdx.x] = 0;
  }
  __syncthreads();
  if (!lanes_last) return;
  __threadfence();
  const volatile float* parts = partials;  // written by other blocks: not from L1
  const int first = blockIdx.x * LANES_BLOCK_COLS, width = min(N - first, LANES_BLOCK_COLS);
  for (int i = threadIdx.x; i < M * width; i += blockDim.x) {
    const int r = i / width, n = first + i % width;
    float sum = 0.f;
    for (int s = 0; s < (int)gridDim.y; ++s) sum += parts[((kopt_u64)s * M + r) * N + n];
    KOPT_Y_STORE(y, (kopt_u64)r * N + n, __half2float(scales[n]) * sum, false);
  }
}
