# The dequantiser alone on a preallocated buffer, against torch writing the same bytes.
import numpy as np, torch, kopt_w4a16 as kw, statistics
rng = np.random.default_rng(0)
def layer(K, N, G=128):
    qw = rng.integers(-2**31, 2**31, (K, N // 8), dtype=np.int64).astype(np.int32)
    qz = rng.integers(-2**31, 2**31, (K // G, N // 8), dtype=np.int64).astype(np.int32)
    sc = (rng.integers(512, 1024, (K // G, N)) * 2.0 ** -20).astype(np.float16)
    return kw.KoptLinear.from_awq(qw, qz, sc, G)
def t(f, n=20):
    for _ in range(3): f()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    r = []
    for _ in range(5):
        s.record()
        for _ in range(n): f()
        e.record(); e.synchronize(); r.append(s.elapsed_time(e) * 1e3 / n)
    return statistics.median(r)
lib = kw._lib()
for K, N in ((4096, 14336), (7168, 9216)):
    L = layer(K, N)
    print(K, N, L.kernel[:80])
    for dt, code in ((torch.bfloat16, 2), (torch.float16, 1)):
        buf = torch.empty(N, K, dtype=dt, device="cuda")
        st = torch.cuda.current_stream().cuda_stream
        print(f"  {dt}: dequantize {t(lambda: lib.kopt_w4a16_dequantize(L._handle, buf.data_ptr(), code, st)):.1f} us;"
              f" zero_ {t(lambda: buf.zero_()):.1f}; copy_ {t(lambda: buf.copy_(buf.flip(0))):.1f}")
