#!/usr/bin/env python3
"""Peer baselines for the 14 contest shapes, timed like `kopt bench`.

- cublas_fp16: y = x @ W with W dequantized to fp16 ([K, N]), through
  torch.matmul (cuBLAS); it moves 4x the bytes of the int4 format.
- torch_int4: PyTorch's int4 weight-only kernel (tinygemm,
  torch.ops.aten._weight_int4pack_mm, bf16, group size 64).
- torch_int8: PyTorch's int8 weight-only kernel (torch._weight_int8pack_mm,
  int8 [N, K] with one scale per channel, W8A16's format), where this
  build of PyTorch has it for the GPU.

Method: enough weight copies to exceed 4x the L2, a CUDA graph of >= 64
calls cycling over them, 10 timed replays between two events, the median
per call. Prints a Markdown table and writes JSON to the path in argv[1].
"""
import json
import statistics
import sys

import torch

SHAPES = [(7168, 9216), (7168, 1536), (7168, 1024), (5120, 6144), (5120, 3584), (5120, 3072), (5120, 768),
          (5120, 256), (4608, 7168), (4096, 7168), (3072, 5120), (1536, 6144), (512, 7168), (384, 5120)]
G = 64


def int4_bytes(k, n):
    return n * k // 2 + 4 * n * (k // G) + 2 * k + 4 * n


def time_calls(calls, l2_bytes):
    """calls: list of zero-argument callables (one per weight copy)."""
    stream = torch.cuda.Stream()
    reps = max(1, -(-64 // len(calls)))
    with torch.cuda.stream(stream):
        for c in calls:  # warm-up outside the graph (allocations, autotuning)
            c()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            for _ in range(reps):
                for c in calls:
                    c()
    n = reps * len(calls)
    samples = []
    with torch.cuda.stream(stream):  # replay() launches on the current stream
        for i in range(12):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(stream)
            graph.replay()
            stop.record(stream)
            stop.synchronize()
            if i >= 2:
                samples.append(start.elapsed_time(stop) * 1000.0 / n)
    return statistics.median(samples)


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else "torch_peers.json"
    # argv[2]: the rows of x (decode batch M), default 1; the table keeps the
    # contest's shape names and the JSON records M per row.
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    props = torch.cuda.get_device_properties(0)
    l2 = props.L2_cache_size
    results = []
    print(f"device: {props.name}, L2 {l2 >> 20} MB, torch {torch.__version__}, M = {rows} rows of x")
    print("| shape | cuBLAS fp16 µs | torch int4 µs | torch int8 µs |")
    print("|---|---|---|---|")
    for k, n in SHAPES:
        row = {"shape": f"{k}x{n}", "M": rows}
        x = torch.randn(rows, k, device="cuda", dtype=torch.float16)
        # cuBLAS on dequantized fp16 weights
        try:
            copies = max(2, -(-4 * l2 // (k * n * 2)))
            ws = [torch.randn(k, n, device="cuda", dtype=torch.float16) * 0.05 for _ in range(copies)]
            ys = [torch.empty(rows, n, device="cuda", dtype=torch.float16) for _ in range(copies)]
            row["cublas_fp16_us"] = time_calls([lambda w=w, y=y: torch.matmul(x, w, out=y) for w, y in zip(ws, ys)], l2)
            del ws, ys
        except Exception as e:  # noqa: BLE001 - report, keep going
            row["cublas_fp16_error"] = str(e)[:200]
        # tinygemm int4 weight-only
        try:
            xb = x.to(torch.bfloat16)
            copies = max(2, -(-4 * l2 // int4_bytes(k, n)))
            packs = []
            for _ in range(copies):
                q = torch.randint(0, 256, (n, k // 2), device="cuda", dtype=torch.uint8)
                packed = torch.ops.aten._convert_weight_to_int4pack(q, 8)
                sz = torch.randn(k // G, n, 2, device="cuda", dtype=torch.bfloat16) * 0.01
                packs.append((packed, sz))
            row["torch_int4_us"] = time_calls(
                [lambda p=p, s=s: torch.ops.aten._weight_int4pack_mm(xb, p, G, s) for p, s in packs], l2)
            del packs
        except Exception as e:  # noqa: BLE001
            row["torch_int4_error"] = str(e)[:200]
        # int8 weight-only, one scale per output channel
        try:
            copies = max(2, -(-4 * l2 // (k * n)))
            int8s = [(torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8),
                      torch.rand(n, device="cuda", dtype=torch.float16) * 0.002) for _ in range(copies)]
            row["torch_int8_us"] = time_calls(
                [lambda w=w, s=s: torch._weight_int8pack_mm(x, w, s) for w, s in int8s], l2)
            del int8s
        except Exception as e:  # noqa: BLE001
            row["torch_int8_error"] = str(e)[:200]
        torch.cuda.empty_cache()
        results.append(row)
        fmt = lambda key: f"{row[key]:.2f}" if key in row else "error"
        print(f"| {row['shape']} | {fmt('cublas_fp16_us')} | {fmt('torch_int4_us')} | {fmt('torch_int8_us')} |")
    for r in results[:1]:
        if "torch_int8_error" in r:
            print(f"torch int8: {r['torch_int8_error']}")
    for key in ("cublas_fp16_us", "torch_int4_us", "torch_int8_us"):
        if all(key in r for r in results):
            print(f"sum {key}: {sum(r[key] for r in results):.2f}")
    with open(out_path, "w") as f:
        json.dump({"device": props.name, "torch": torch.__version__, "G": G, "results": results}, f,
                  indent=2)


if __name__ == "__main__":
    main()
