// kopt device prelude: prepended to every candidate before compilation, so
// one candidate source compiles with NVRTC (NVIDIA), hipRTC (AMD, at run time)
// and clang -x hip (the offline gfx906 check). It gives candidates a portable
// vocabulary; candidates include nothing themselves.
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#include <cuda_fp16.h>
#define KOPT_NVIDIA 1
#ifndef KOPT_WARP_SIZE
#define KOPT_WARP_SIZE 32
#endif
#define KOPT_FULL_MASK 0xffffffffu
#else
#if !defined(__HIPCC_RTC__)
// hipRTC includes these itself; including them again fails (redefinition).
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#endif
#define KOPT_AMD 1
#ifndef KOPT_WARP_SIZE
#define KOPT_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#endif
#endif

// NVRTC has no <cstdint>.
typedef unsigned char kopt_u8;
typedef unsigned short kopt_u16;
typedef unsigned int kopt_u32;
typedef int kopt_i32;
typedef unsigned long long kopt_u64;
typedef long long kopt_i64;

#define KOPT_KERNEL extern "C" __global__
// Launch bounds whose minimum of resident blocks an SM applies on NVIDIA
// only: there it makes the compiler fit that many blocks' registers. On AMD
// the same argument means waves per SIMD, another quantity (3 of them cap a
// wave64 thread at 85 registers, which spilled gen), so there the compiler
// keeps its own register budget.
#if defined(KOPT_NVIDIA)
#define KOPT_LAUNCH_BOUNDS(threads, nvidia_min_blocks) __launch_bounds__(threads, nvidia_min_blocks)
#else
#define KOPT_LAUNCH_BOUNDS(threads, nvidia_min_blocks) __launch_bounds__(threads)
#endif
#define KOPT_INLINE __device__ __forceinline__

// Warp shuffles without a hard-coded warp size or mask convention.
KOPT_INLINE float kopt_shfl_xor(float v, int lane_mask) {
#if defined(KOPT_NVIDIA)
  return __shfl_xor_sync(KOPT_FULL_MASK, v, lane_mask);
#else
  return __shfl_xor(v, lane_mask);
#endif
}
KOPT_INLINE int kopt_shfl_xor(int v, int lane_mask) {
#if defined(KOPT_NVIDIA)
  return __shfl_xor_sync(KOPT_FULL_MASK, v, lane_mask);
#else
  return __shfl_xor(v, lane_mask);
#endif
}
KOPT_INLINE float kopt_shfl_down(float v, unsigned delta) {
#if defined(KOPT_NVIDIA)
  return __shfl_down_sync(KOPT_FULL_MASK, v, delta);
#else
  return __shfl_down(v, delta);
#endif
}

// Sum over the lanes of one warp (or wave); every lane gets the total.
KOPT_INLINE float kopt_warp_sum(float v) {
#pragma unroll
  for (int m = KOPT_WARP_SIZE / 2; m > 0; m >>= 1) v += kopt_shfl_xor(v, m);
  return v;
}

// 16-byte load of read-only data that is used once (weights): bypasses L1 on
// NVIDIA; a plain global load on AMD.
KOPT_INLINE uint4 kopt_load_stream16(const void* p) {
#if defined(KOPT_NVIDIA)
  return __ldg(reinterpret_cast<const uint4*>(p));
#else
  return *reinterpret_cast<const uint4*>(p);
#endif
}

// The same load with an explicit cache policy for the weight stream, so a
// kernel's cache behaviour is a knob the search can move. no_allocate keeps
// the streamed bytes out of L1 (room for what is reused); the L2 variant also
// asks the L2 to fetch the whole 256-byte block around the address (fewer,
// larger DRAM requests). Neither keeps data in the L2 across calls. On AMD
// both are plain global loads.
KOPT_INLINE uint4 kopt_load16_no_l1(const void* p) {
#if defined(KOPT_NVIDIA)
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
#else
  return *reinterpret_cast<const uint4*>(p);
#endif
}
KOPT_INLINE uint4 kopt_load16_no_l1_l2_256(const void* p) {
#if defined(KOPT_NVIDIA)
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
#else
  return *reinterpret_cast<const uint4*>(p);
#endif
}

// a.x*b.x + a.y*b.y + c with fp32 accumulation (v_dot2_f32_f16 on gfx906).
KOPT_INLINE float kopt_dot2(__half2 a, __half2 b, float c) {
#if defined(KOPT_AMD)
  typedef _Float16 kopt_f16x2 __attribute__((ext_vector_type(2)));
  kopt_f16x2 va, vb;
  __builtin_memcpy(&va, &a, 4);
  __builtin_memcpy(&vb, &b, 4);
  // Not amd_mixed_dot: HIP 5.2.3's emits the instruction with a clamp.
  return __builtin_amdgcn_fdot2(va, vb, c, false);
#else
  float2 fa = __half22float2(a), fb = __half22float2(b);
  return fmaf(fa.x, fb.x, fmaf(fa.y, fb.y, c));
#endif
}

// (a & mask) | bits in one instruction. Written plainly, ptxas emits two
// LOP3s when both constants are immediates (an instruction takes one); with
// the constants in registers it is one LOP3 (NVIDIA) or v_and_or_b32 (AMD).
KOPT_INLINE kopt_u32 kopt_and_or(kopt_u32 a, kopt_u32 mask, kopt_u32 bits) {
#if defined(KOPT_NVIDIA)
  kopt_u32 d;
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(d) : "r"(a), "r"(mask), "r"(bits));
  return d;
#else
  return (a & mask) | bits;
#endif
}

// Four-way 8-bit dot products with 32-bit accumulation, one instruction on
// both platforms (dp4a on sm_61+, v_dot4_*_i8/u8 on gfx906):
// c + Σ a.byte[i] * b.byte[i], bytes signed (s8) or unsigned (u8).
KOPT_INLINE int kopt_dot4_s8(int a, int b, int c) {
#if defined(KOPT_NVIDIA)
  int d;
  asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  return __builtin_amdgcn_sdot4(a, b, c, false);
#endif
}
KOPT_INLINE kopt_u32 kopt_dot4_u8(kopt_u32 a, kopt_u32 b, kopt_u32 c) {
#if defined(KOPT_NVIDIA)
  kopt_u32 d;
  asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  return __builtin_amdgcn_udot4(a, b, c, false);
#endif
}

// c + Σ a.byte[i] * b.byte[i] with a's bytes signed and b's unsigned: one
// dp4a on NVIDIA; gfx906 has no mixed-sign form, so there it is two signed
// dot products over b's low seven bits and its top bit (exact).
KOPT_INLINE int kopt_dot4_s8u8(int a, kopt_u32 b, int c) {
#if defined(KOPT_NVIDIA)
  int d;
  asm("dp4a.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  const int low = __builtin_amdgcn_sdot4(a, (int)(b & 0x7F7F7F7Fu), c, false);
  return low + 128 * __builtin_amdgcn_sdot4(a, (int)((b >> 7) & 0x01010101u), 0, false);
#endif
}

// Two 16-bit by 8-bit products with 32-bit accumulation: c + a.short[0] *
// b.byte[i] + a.short[1] * b.byte[i + 1], i = 0 (_lo) or 2 (_hi), a's halves
// signed and b's bytes unsigned. One dp2a on NVIDIA, in dp4a's pipe at its
// rate, so a 16-bit operand costs one instruction per two products where two
// byte planes of it cost two and a combination. gfx906 has no 16-by-8 form:
// the two bytes widened to halves for v_dot2_i32_i16 (the widening depends on
// b alone, so calls that share b share it).
#if defined(KOPT_AMD)
typedef short kopt_i16x2 __attribute__((ext_vector_type(2)));
KOPT_INLINE int kopt_sdot2_widened(int a, kopt_u32 b_halves, int c) {
  kopt_i16x2 va, vb;
  __builtin_memcpy(&va, &a, 4);
  __builtin_memcpy(&vb, &b_halves, 4);
  return __builtin_amdgcn_sdot2(va, vb, c, false);
}
#endif
KOPT_INLINE int kopt_dot2_s16u8_lo(int a, kopt_u32 b, int c) {
#if defined(KOPT_NVIDIA)
  int d;
  asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  return kopt_sdot2_widened(a, (b & 0xFFu) | ((b & 0xFF00u) << 8), c);
#endif
}
KOPT_INLINE int kopt_dot2_s16u8_hi(int a, kopt_u32 b, int c) {
#if defined(KOPT_NVIDIA)
  int d;
  asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  return kopt_sdot2_widened(a, ((b >> 16) & 0xFFu) | ((b >> 8) & 0xFF0000u), c);
#endif
}

// Two nibbles to two halves in one logic op: (u >> shift) & 0x000F000F with
// the exponent bits of 1024.0 ORed in gives half2(1024 + q_lo, 1024 + q_hi),
// exactly. Nibble i of a 32-bit word pairs with nibble i + 4.
KOPT_INLINE __half2 kopt_nibbles_plus_1024(kopt_u32 u, int shift) {
  kopt_u32 v = kopt_and_or(u >> shift, 0x000F000Fu, 0x64006400u);
#if defined(KOPT_NVIDIA)
  return *reinterpret_cast<__half2*>(&v);
#else
  __half2 h;
  __builtin_memcpy(&h, &v, 4);
  return h;
#endif
}

// Byte offsets of 256-byte aligned sections (problems' canonical weight
// layouts put each array on such a boundary).
KOPT_INLINE kopt_u64 kopt_align256(kopt_u64 v) { return (v + 255ull) & ~255ull; }
