"""16 rows of 7168x9216 through kopt_w4a16 in a CUDA graph for SECONDS, µs a call."""
import sys, time
import numpy as np, torch
sys.path.insert(0, "bench")
from koptlinear_rows import random_layer
seconds = float(sys.argv[1]); rows = int(sys.argv[2]); K, N = 7168, 9216
layer, _ = random_layer(4, K, N, 64, None, np.random.default_rng(1))
x = torch.randn(rows, K, dtype=torch.float16, device="cuda")
for _ in range(3): layer(x)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    for _ in range(200): layer(x)
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
t0 = time.time(); n = 0; s.record()
while time.time() - t0 < seconds:
    g.replay(); n += 1
e.record(); e.synchronize()
print(f"rows {rows} {K}x{N}: {s.elapsed_time(e) * 1e3 / (200 * n):.2f} us a call over {n * 200} calls, {time.time() - t0:.1f} s")
