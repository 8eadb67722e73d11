# Host time per KoptLinear call (256x256, one row), for the binding on PYTHONPATH.
import time, numpy as np, torch, kopt_w4a16 as kw
rng = np.random.default_rng(0)
K = N = 256; G = 64
qw = rng.integers(-2**31, 2**31, (K, N // 8), dtype=np.int64).astype(np.int32)
qz = rng.integers(-2**31, 2**31, (K // G, N // 8), dtype=np.int64).astype(np.int32)
sc = (rng.integers(512, 1024, (K // G, N)) * 2.0 ** -20).astype(np.float16)
layer = kw.KoptLinear.from_awq(qw, qz, sc, G)
x = torch.rand(1, K, device="cuda").bfloat16()
for _ in range(100): layer(x)
best = []
for _ in range(5):
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(2000): layer(x)
    torch.cuda.synchronize(); best.append((time.perf_counter() - t) * 1e6 / 2000)
lin = torch.nn.Linear(K, N, bias=False, device="cuda", dtype=torch.bfloat16)
for _ in range(100): lin(x)
ref = []
for _ in range(5):
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(2000): lin(x)
    torch.cuda.synchronize(); ref.append((time.perf_counter() - t) * 1e6 / 2000)
print(f"{kw.__file__}: KoptLinear {sorted(best)[2]:.2f} us a call; torch.nn.Linear {sorted(ref)[2]:.2f}")
