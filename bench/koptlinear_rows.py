#!/usr/bin/env python3
"""KoptLinear by the number of rows: where one GEMM on the dequantised
weights overtakes the library's kernels, and what a call costs the host.

For each shape (K x N, AWQ-packed random int4, group 128) and each row
count, the same layer three ways: the library's kernels at every M
(gemm_rows=None), the GEMM path at every M (gemm_rows=1: dequantise, then
torch.nn.functional.linear), and bf16 weights already in memory through
F.linear (cuBLAS; what an engine holding fp16/bf16 weights pays). GPU time
per call: 20 calls between two CUDA events after a warm-up, the median of
five rounds (where a call's GPU time is below its host time, about 25 µs,
the host's time shows). The dequantisation alone, the same way. Then the host's time per call of a small layer at one row,
whose GPU time is far below it: 2000 calls timed on the host with a
synchronisation at the end.

    PYTHONPATH=BUILD/python python3 bench/koptlinear_rows.py [--shapes 4096x14336,...] [--rows 1,16,...]
"""
import argparse
import statistics
import time

import numpy as np
import torch

import kopt_w4a16 as kw


def awq_layer(K, N, G, gemm_rows, rng):
    qweight = rng.integers(-2 ** 31, 2 ** 31, (K, N // 8), dtype=np.int64).astype(np.int32)
    qzeros = rng.integers(-2 ** 31, 2 ** 31, (K // G, N // 8), dtype=np.int64).astype(np.int32)
    scales = (rng.integers(512, 1024, (K // G, N)) * 2.0 ** -20).astype(np.float16)
    return kw.KoptLinear.from_awq(qweight, qzeros, scales, G, gemm_rows=gemm_rows)


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
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"device: {torch.cuda.get_device_name()}; torch {torch.__version__}; library: {kw.library_path()}")
    rows = [int(r) for r in args.rows.split(",")]
    alone = {}
    print("\n| shape | path | " + " | ".join(f"M = {m}" for m in rows) + " |")
    print("|---|---|" + "---|" * len(rows))
    for shape in args.shapes.split(","):
        K, N = (int(v) for v in shape.split("x"))
        layer = awq_layer(K, N, args.group, None, rng)
        w = layer.dequantize(torch.bfloat16)
        if w is None:
            print(f"| {shape} | no dequantiser for this shape's layout: {layer.kernel} |")
            continue
        line = {"kernels (µs)": [], "dequantise + GEMM (µs)": [], "bf16 weights, F.linear (µs)": []}
        for m in rows:
            x = (torch.rand(m, K, device="cuda") * 2 - 1).bfloat16()
            layer.gemm_rows = None
            line["kernels (µs)"].append(gpu_us(lambda: layer(x)))
            layer.gemm_rows = 1
            line["dequantise + GEMM (µs)"].append(gpu_us(lambda: layer(x)))
            line["bf16 weights, F.linear (µs)"].append(gpu_us(lambda: torch.nn.functional.linear(x, w)))
        for path, values in line.items():
            print(f"| {shape} | {path} | " + " | ".join(f"{v:.1f}" for v in values) + " |")
        alone[shape] = gpu_us(lambda: layer.dequantize(torch.bfloat16))
    print("\ndequantising alone (µs): " + ", ".join(f"{s} {us:.1f}" for s, us in alone.items()))
    small = awq_layer(256, 256, 64, None, rng)
    x = torch.rand(1, 256, device="cuda").bfloat16()
    print(f"\nhost time per call, 256x256 at one row: {host_us(small, x):.1f} µs")


if __name__ == "__main__":
    main()
