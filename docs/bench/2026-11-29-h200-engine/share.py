# Where a Llama-3-8B layer's seven KoptLinear calls spend GPU time at 1 and 8 rows, bf16 in and out: by kernel.
import collections, numpy as np, torch, kopt_w4a16 as kw
from torch.profiler import profile, ProfilerActivity
rng = np.random.default_rng(0)
def layer(K, N, G=128):
    qw = rng.integers(-2**31, 2**31, (K, N // 8), dtype=np.int64).astype(np.int32)
    qz = rng.integers(-2**31, 2**31, (K // G, N // 8), dtype=np.int64).astype(np.int32)
    sc = (rng.integers(512, 1024, (K // G, N)) * 2.0 ** -20).astype(np.float16)
    return kw.KoptLinear.from_awq(qw, qz, sc, G)
shapes = [(4096, 4096), (4096, 1024), (4096, 1024), (4096, 4096), (4096, 14336), (4096, 14336), (14336, 4096)]
layers = [layer(K, N) for K, N in shapes]
for rows in (1, 8):
    xs = [torch.rand(rows, K, device="cuda").bfloat16() for K, _ in shapes]
    for l, x in zip(layers, xs): l(x)
    torch.cuda.synchronize()
    reps = 20
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            for l, x in zip(layers, xs): l(x)
        torch.cuda.synchronize()
    by = collections.Counter()
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", 0)
        name = e.key
        kind = "x to fp16 (kopt_library_stage_x)" if "stage_x" in name else "y to bf16 (kopt_library_store_y)" if "store_y" in name else "the GEMV kernels"
        by[kind] += t
    total = sum(by.values())
    print(f"{rows} row(s): {total / reps:.1f} us a layer's seven calls; " + "; ".join(f"{k} {v / reps:.1f} us ({100 * v / total:.0f}%)" for k, v in by.most_common()))
