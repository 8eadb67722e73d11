// Streaming read: 16-byte loads, UNROLL loads in flight per thread, one store
// per thread that depends on every load so nothing is optimised away.
KOPT_KERNEL void kopt_read_bandwidth(const uint4* __restrict__ p, kopt_u64 n16, kopt_u32* out) {
  kopt_u32 acc = 0;
  const kopt_u64 stride = (kopt_u64)gridDim.x * blockDim.x;
  kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = kopt_load_stream16(p + i + u * stride);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n16; i += stride) {
    uint4 v = kopt_load_stream16(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) out[0] = acc;
}
