#!/usr/bin/env python3
"""KoptLinear by the number of rows: where one GEMM on the dequantised
weights overtakes the library's kernels, and what a call costs the host.

For each shape (K x N; --bits 4: kopt_w4a16, AWQ-packed random int4, group
128; --bits 8: kopt_w8a16, random int8 with a scale per channel) and each
row count, the same layer three ways (with --bits 8 a fourth: PyTorch's
int8 weight-only kernel, torch._weight_int8pack_mm, on the same int8
weights and scales): the library's kernels at every M
(gemm_rows=None), the GEMM path at every M (gemm_rows=1: dequantise, then
torch.nn.functional.linear), and bf16 weights already in memory through
F.linear (cuBLAS; what an engine holding fp16/bf16 weights pays). GPU time
per call: 20 calls between two CUDA events after a warm-up, the median of
five rounds (where a call's GPU time is below its host time, about 25 µs,
the host's time shows). The dequantisation alone, the same way. Then the host's time per call of a small layer at one row,
whose GPU time is far below it: 2000 calls timed on the host with a
synchronisation at the end.

    PYTHONPATH=BUILD/python python3 bench/koptlinear_rows.py [--bits 4|8] [--shapes 4096x14336,...]
        [--rows 1,16,...]
"""
import argparse
import statistics
import time

import numpy as np
import torch



def random_layer(bits, K, N, G, gemm_rows, rng):
    """A KoptLinear of random weights, and (--bits 8) a call of PyTorch's
    int8 weight-only kernel on the same weights: f(x) -> y."""
    if bits == 4:
        import kopt_w4a16 as kw
        qweight = rng.integers(-2 ** 31, 2 ** 31, (K, N // 8), dtype=np.int64).astype(np.int32)
        qzeros = rng.integers(-2 ** 31, 2 ** 31, (K // G, N // 8), dtype=np.int64).astype(np.int32)
        scales = (rng.integers(512, 1024, (K // G, N)) * 2.0 ** -20).astype(np.float16)
        return kw.KoptLinear.from_awq(qweight, qzeros, scales, G, gemm_rows=gemm_rows), None
    import kopt_w8a16 as k8
    q = torch.from_numpy(rng.integers(-128, 128, (N, K)).astype(np.int8))
    scales = torch.from_numpy((rng.integers(512, 1024, N) * 2.0 ** -18).astype(np.float16))
    layer = k8.KoptLinear.from_int8(q, scales, gemm_rows=gemm_rows)
    int8 = getattr(torch, "_weight_int8pack_mm", None)
    q_gpu, s_gpu = q.cuda(), scales.cuda().bfloat16()
    return layer, (lambda x: int8(x, q_gpu, s_gpu)) if int8 is not None else None


def gpu_us(call, calls=20, rounds=5):
    for _ in range(3):
        call()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(rounds):
        start.record()
        for _ in range(calls):
            call()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times)


def host_us(layer, x, calls=2000):
    for _ in range(50):
        layer(x)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        layer(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e6 / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="4096x4096,4096x1024,4096x14336,14336x4096,7168x9216")
    ap.add_argument("--rows", default="1,8,16,24,32,48,64,128,512")
    ap.add_argument("--group", type=int, default=128)
    ap.add_argument("--bits", type=int, choices=(4, 8), default=4)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"device: {torch.cuda.get_device_name()}; torch {torch.__version__}; kopt_w{args.bits}a16")
    rows = [int(r) for r in args.rows.split(",")]
    alone = {}
    print("\n| shape | path | " + " | ".join(f"M = {m}" for m in rows) + " |")
    print("|---|---|" + "---|" * len(rows))
    for shape in args.shapes.split(","):
        K, N = (int(v) for v in shape.split("x"))
        layer, int8 = random_layer(args.bits, K, N, args.group, None, rng)
        w = layer.dequantize(torch.bfloat16)
        if w is None:
            print(f"| {shape} | no dequantiser for this shape's layout: {layer.kernel} |")
            continue
        line = {"kernels (µs)": [], "dequantise + GEMM (µs)": [], "bf16 weights, F.linear (µs)": []}
        if int8:
            line["PyTorch int8 weight-only (µs)"] = []
        for m in rows:
            x = (torch.rand(m, K, device="cuda") * 2 - 1).bfloat16()
            layer.gemm_rows = None
            line["kernels (µs)"].append(gpu_us(lambda: layer(x)))
            layer.gemm_rows = 1
            line["dequantise + GEMM (µs)"].append(gpu_us(lambda: layer(x)))
            line["bf16 weights, F.linear (µs)"].append(gpu_us(lambda: torch.nn.functional.linear(x, w)))
            if int8:
                line["PyTorch int8 weight-only (µs)"].append(gpu_us(lambda: int8(x)))
        for path, values in line.items():
            print(f"| {shape} | {path} | " + " | ".join(f"{v:.1f}" for v in values) + " |")
        alone[shape] = gpu_us(lambda: layer.dequantize(torch.bfloat16))
    print("\ndequantising alone (µs): " + ", ".join(f"{s} {us:.1f}" for s, us in alone.items()))
    small, _ = random_layer(args.bits, 256, 256, 64, None, rng)
    x = torch.rand(1, 256, device="cuda").bfloat16()
    print(f"\nhost time per call, 256x256 at one row: {host_us(small, x):.1f} µs")


if __name__ == "__main__":
    main()
