# A fresh process whose first KoptLinear call is a compiled one (fullgraph): it must trace and match eager.
import numpy as np, torch, kopt_w4a16 as kw
rng = np.random.default_rng(1)
K, N, G = 1024, 256, 64
qw = rng.integers(-2**31, 2**31, (K, N // 8), dtype=np.int64).astype(np.int32)
qz = rng.integers(-2**31, 2**31, (K // G, N // 8), dtype=np.int64).astype(np.int32)
sc = (rng.integers(512, 1024, (K // G, N)) * 2.0 ** -20).astype(np.float16)
layer = kw.KoptLinear.from_awq(qw, qz, sc, G)
f = torch.compile(layer, fullgraph=True, backend="aot_eager")
for rows in (2, 48):
    x = torch.rand(rows, K, device="cuda").half()
    y = f(x)
    ref = layer(x)
    print(rows, "rows: compiled == eager:", torch.equal(y, ref), tuple(y.shape), y.dtype)
