"""The Python binding on a GPU (run on the GPU machine with PyTorch):
KoptLinear from AWQ, GPTQ act-order and GGUF tensors against torch on the
format's own dequantised weights, fp16 and bf16 in, fp32/fp16/bf16 out,
several rows, many rows as one GEMM on the dequantised weights, and one
clear error for each wrong input."""
import unittest

import numpy as np
import torch

import kopt_w4a16 as kw
from test_python_binding import awq_tensors, gptq_act_order_tensors


def random_x(rows, K, dtype=torch.float16):
    """rows x K values uniform in [-1, 1) on the GPU, in dtype."""
    return (torch.rand(rows, K, device="cuda") * 2 - 1).to(dtype)


def check(test, y, x, w, what, bias=None):
    ref = x.double().cpu().numpy() @ w
    if bias is not None:
        ref = ref + bias.double().cpu().numpy()
    got = y.double().cpu().numpy()
    # kopt's rule for its kernels (atol = rtol = 1e-2), on top of the output dtype's own rounding.
    eps = {torch.float32: 0.0, torch.float16: 2 ** -11, torch.bfloat16: 2 ** -8}[y.dtype]
    bad = np.abs(got - ref) > 1e-2 + (1e-2 + eps) * np.abs(ref)
    test.assertFalse(bad.any(), f"{what}: {bad.sum()} of {bad.size} outside the tolerance; "
                                f"max |diff| {np.abs(got - ref).max():.4g}")


def check_graph_replays(test, layer, K, w, gemm_w=lambda dtype: None):
    """A layer with gemm_rows 32 called in a CUDA graph, as engines capture
    decode steps (a warm-up off the default stream first, PyTorch's recipe),
    at 1, 4, 16 rows (the kernels) and 64 (the GEMM), then replayed twice on
    new bf16 x, each y against W (the GEMM's rows against gemm_w(bf16) where
    it gives one)."""
    for rows in (1, 4, 16, 64):
        x = random_x(rows, K, torch.bfloat16)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            layer(x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            y = layer(x)
        ref = gemm_w(torch.bfloat16) if rows >= 32 else None
        for _ in range(2):
            x.copy_(random_x(rows, K, torch.bfloat16))
            graph.replay()
            torch.cuda.synchronize()
            check(test, y, x, w if ref is None else ref, f"{rows} rows replayed from a graph")


def check_kernels_then_gemm(test, layer, K, N, w, gemm_w=lambda dtype: None):
    """A layer with gemm_rows 32: 31 rows on the kernels, 32 and 300 as one
    GEMM, fp16 and bf16 x, y in x's dtype and in fp32, each against W [K, N]
    (the GEMM's rows against gemm_w(x's dtype) where it gives one)."""
    for x_dtype in (torch.float16, torch.bfloat16):
        for out in (None, torch.float32):
            for rows in (31, 32, 300):
                layer.out_dtype = out
                x = random_x(rows, K, x_dtype)
                y = layer(x)
                test.assertEqual((y.dtype, tuple(y.shape)), (out or x_dtype, (rows, N)))
                ref = gemm_w(x_dtype) if rows >= 32 else None
                check(test, y, x, w if ref is None else ref, f"x {x_dtype}, y {y.dtype}, {rows} rows")


def check_one_row_in_its_dtypes(test, layer, K, w, what, own_builds=True):
    """One row of fp16 and of bf16 x, y in x's dtype and in fp32, each
    against W [K, N]; where the entry has builds of its own for the pairs
    (its kernel description says so), with x exact in both dtypes (multiples
    of 2^-7 in [-1, 1)) their y is the entry's fp32 y rounded, bit for bit:
    the same sums, only x's reading and y's store differ."""
    if own_builds:
        test.assertIn("(one fp16-fp16 or bf16-bf16 row: its own builds)", layer.kernel)
    for x_dtype in (torch.float16, torch.bfloat16):
        for out in (None, torch.float32):
            layer.out_dtype = out
            x = random_x(1, K, x_dtype)
            check(test, layer(x), x, w, f"{what}: one row, x {x_dtype}, y {out or x_dtype}")
    x = torch.round(random_x(1, K, torch.float32) * 128) / 128
    layer.out_dtype = torch.float32
    y32 = layer(x.half())
    layer.out_dtype = None
    if own_builds:
        test.assertTrue(torch.equal(layer(x.half()), y32.half()), f"{what}: fp16 y")
        test.assertTrue(torch.equal(layer(x.bfloat16()), y32.bfloat16()), f"{what}: bf16 y")


class KoptLinearGpuTest(unittest.TestCase):
    def test_awq_dtypes_and_rows(self):
        K, N, G = 4096, 1024, 128
        qweight, qzeros, scales, w = awq_tensors(K, N, G, 5)
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G)
        for x_dtype in (torch.float16, torch.bfloat16):
            for out in (None, torch.float32, torch.float16, torch.bfloat16):
                for rows in (1, 3, 16):
                    layer.out_dtype = out
                    x = random_x(rows, K, x_dtype)
                    y = layer(x)
                    self.assertEqual(y.dtype, out or x_dtype)
                    self.assertEqual(tuple(y.shape), (rows, N))
                    check(self, y, x, w, f"x {x_dtype}, y {y.dtype}, {rows} rows")
        x = torch.rand(2, 5, K, device="cuda", dtype=torch.float16)
        self.assertEqual(tuple(layer(x).shape), (2, 5, N))

    def test_gptq_act_order(self):
        K, N, G = 2048, 512, 64
        qweight, qzeros, s, g_idx, w = gptq_act_order_tensors(K, N, G, 6)
        layer = kw.KoptLinear.from_gptq(qweight, qzeros, s, G, g_idx=g_idx)
        # x gathered into the weights' K order, then each dtype pair (the
        # batched kernels read fp16 and bf16 pairs themselves) and one row.
        for x_dtype, out in ((torch.float16, None), (torch.bfloat16, None), (torch.bfloat16, torch.float32)):
            layer.out_dtype = out
            for rows in (1, 4):
                x = random_x(rows, K, x_dtype)
                check(self, layer(x), x, w, f"GPTQ act-order, x {x_dtype}, y {out}, {rows} rows")

    def test_gguf_q4_0(self):
        K, N = 2048, 256
        rng = np.random.default_rng(8)
        q = rng.integers(0, 16, (N, K))
        d = (rng.integers(512, 1024, (N, K // 32)) * 2.0 ** -17).astype(np.float16) * np.where(
            rng.integers(0, 2, (N, K // 32)) == 1, 1, -1).astype(np.float16)
        blocks = bytearray()
        for n in range(N):
            for b in range(K // 32):
                qs = q[n, b * 32:b * 32 + 16] | (q[n, b * 32 + 16:b * 32 + 32] << 4)
                blocks += d[n, b].tobytes() + qs.astype(np.uint8).tobytes()
        layer = kw.KoptLinear.from_gguf(np.frombuffer(bytes(blocks), np.uint8), kw.GGML_TYPE_Q4_0, K, N)
        w = ((q - 8) * np.repeat(d.astype(np.float64), 32, axis=1)).T
        x = random_x(2, K, torch.bfloat16)
        check(self, layer(x), x, w, "GGUF Q4_0")

    def test_dequantize_matches_the_format(self):
        K, N, G = 1024, 256, 64
        qweight, qzeros, scales, w = awq_tensors(K, N, G, 11)
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G)
        for dtype, eps in ((torch.float16, 2 ** -11), (torch.bfloat16, 2 ** -8)):
            got = layer.dequantize(dtype)
            self.assertEqual((got.dtype, tuple(got.shape)), (dtype, (N, K)))
            # w = s·q + o with o = -z·s rounded to fp16 once, then w rounded to dtype once.
            diff = np.abs(got.double().cpu().numpy() - w.T)
            bound = eps * np.abs(w.T) + layer.max_offset_rounding + 2 ** -24
            self.assertTrue((diff <= bound).all(), f"{dtype}: max |diff| {diff.max():.3g}")
        with self.assertRaises(kw.KoptError) as e:
            layer.dequantize(torch.float32)
        self.assertIn("must be float16 or bfloat16", str(e.exception))
        # The C API's own checks, below the binding's.
        lib, out = kw._lib(), torch.empty(N * K + 8, dtype=torch.float16, device="cuda")
        for ptr, dtype, needle in ((out.data_ptr(), 0, "out must be fp16 (1) or bf16 (2); got dtype 0"),
                                   (out.data_ptr() + 2, 1, "out must be 16-byte aligned")):
            self.assertEqual(lib.kopt_w4a16_dequantize(layer._handle, ptr, dtype, None), 1)
            self.assertEqual(lib.kopt_w4a16_last_error().decode(), needle)

    def test_a_layout_without_dequantiser_keeps_the_kernels(self):
        # G = 48 is not a multiple of 32: the batched kernels' layouts, which the
        # dequantiser reads, do not serve it.
        K, N, G = 96, 64, 48
        qweight, qzeros, scales, w = awq_tensors(K, N, G, 14)
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G, gemm_rows=8)
        self.assertIsNone(layer.dequantize())
        x = random_x(20, K)
        check(self, layer(x), x, w, "20 rows on the kernels")

    def test_many_rows_run_as_one_gemm(self):
        K, N, G = 4096, 1024, 128
        qweight, qzeros, scales, w = awq_tensors(K, N, G, 12)
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G, gemm_rows=32)
        # The GEMM rounds W to x's dtype: that rounding on top of the rule
        # (these weights are small enough for the rule's atol to hold it).
        check_kernels_then_gemm(self, layer, K, N, w)
        never = kw.KoptLinear.from_awq(qweight, qzeros, scales, G, gemm_rows=None)
        x = random_x(40, K)
        check(self, never(x), x, w, "40 rows on the kernels")
        # GPTQ act-order: the dequantised weights come out in x's K order.
        K, N, G = 2048, 512, 64
        qweight, qzeros, s, g_idx, w = gptq_act_order_tensors(K, N, G, 13)
        layer = kw.KoptLinear.from_gptq(qweight, qzeros, s, G, g_idx=g_idx, gemm_rows=16)
        x = random_x(64, K)
        check(self, layer(x), x, w, "GPTQ act-order, 64 rows as one GEMM")

    def test_calls_replay_from_a_cuda_graph(self):
        # Engines capture decode steps in CUDA graphs: a call, the kernels' and
        # the GEMM path's, must capture and replay on new x.
        K, N, G = 4096, 1024, 128
        qweight, qzeros, scales, w = awq_tensors(K, N, G, 15)
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G, gemm_rows=32)
        check_graph_replays(self, layer, K, w)

    def test_torch_compile_traces_a_call_whole(self):
        # Engines compile their models: a call must trace without a graph break
        # (fullgraph) through its fake, and run the kernels or the GEMM path.
        if not hasattr(torch.library, "custom_op"):
            self.skipTest("this PyTorch has no torch.library.custom_op")
        K, N, G = 2048, 512, 64
        qweight, qzeros, scales, w = awq_tensors(K, N, G, 16)
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G, gemm_rows=32)
        compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
        for rows in (3, 40):
            x = random_x(rows, K)
            check(self, compiled(x), x, w, f"{rows} rows through torch.compile")

    def test_bf16_x_past_fp16s_range_on_the_batched_kernels(self):
        # Blocks of rows, and a single row on the batch-1 entry's own bf16
        # build, read bf16 x themselves (and write bf16 y), in fixed point
        # scaled to each chunk of 32 values: a row scaled by 2^20 (past
        # fp16's largest, 65504, where x staged through fp16 would saturate)
        # gives exactly 2^20 times its y, and a chunk far below fp16's smallest
        # (2^-24) counts as the zeros it nearly is, not as an overflowing scale.
        K, N, G = 4096, 1024, 128
        qweight, qzeros, scales, w = awq_tensors(K, N, G, 18)
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G)
        for rows in (1, 4, 16):
            x = random_x(rows, K, torch.bfloat16)
            y = layer(x)
            check(self, y, x, w, f"{rows} rows of bf16 x")
            big = x.clone()
            big[0] *= 2.0 ** 20
            y_big = layer(big)
            self.assertGreater(y_big[0].float().abs().max().item(), 65504.0)
            self.assertTrue(torch.equal(y_big[0].float(), y[0].float() * 2.0 ** 20), f"{rows} rows, scaled")
            self.assertTrue(torch.equal(y_big[1:], y[1:]))
            tiny, zeros = x.clone(), x.clone()
            tiny[-1, 64:96] = 2.0 ** -120
            zeros[-1, 64:96] = 0.0
            self.assertTrue(torch.equal(layer(tiny), layer(zeros)), f"{rows} rows, a chunk of 2^-120")

    def test_one_row_in_its_dtypes_on_the_entrys_own_build(self):
        # One row in fp16 or bf16 with y in x's dtype runs the batch-1 entry
        # built for those dtypes (a tuned shape's, a generic gen variant's and
        # the generic split-K one's: two launches, its partial sums fp32), no
        # conversion kernels; y in fp32 keeps fp16 x on the entry itself.
        for K, N, G, seed in ((7168, 1024, 64, "gen"), (4096, 1024, 128, "gen"), (8192, 128, 128, "splitk")):
            qweight, qzeros, scales, w = awq_tensors(K, N, G, 19)
            layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G)
            self.assertIn(seed + " {", layer.kernel)
            check_one_row_in_its_dtypes(self, layer, K, w, f"{K}x{N}")

    def test_bias_on_every_path(self):
        # The kernels', the GEMM's and the compiled operator's y, each plus the bias.
        K, N, G = 2048, 512, 64
        qweight, qzeros, scales, w = awq_tensors(K, N, G, 17)
        bias = (torch.rand(N, device="cuda") * 2 - 1).half()
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G, bias=bias, gemm_rows=32)
        compiled = torch.compile(layer, fullgraph=True, backend="aot_eager") if hasattr(
            torch.library, "custom_op") else layer
        for out in (None, torch.float32):
            layer.out_dtype = out
            for rows in (1, 5, 40):
                x = random_x(rows, K)
                check(self, layer(x), x, w, f"{rows} rows, y {out}, with a bias", bias)
        layer.out_dtype = None
        x = random_x(3, K, torch.bfloat16)
        check(self, compiled(x), x, w, "3 rows through torch.compile, with a bias", bias)

    def test_wrong_inputs_are_one_line(self):
        K, N, G = 512, 256, 64
        qweight, qzeros, scales, _ = awq_tensors(K, N, G, 9)
        layer = kw.KoptLinear.from_awq(qweight, qzeros, scales, G)
        cases = [
            (torch.rand(1, K, device="cuda"), "x must be float16 or bfloat16"),
            (torch.rand(1, K, dtype=torch.float16), "x must be on a CUDA device"),
            (torch.rand(1, K + 2, device="cuda", dtype=torch.float16), "last dimension must be K = 512"),
            (torch.rand(K, 2, device="cuda", dtype=torch.float16).t(), "x must be contiguous"),
        ]
        for x, needle in cases:
            with self.assertRaises(kw.KoptError) as e:
                layer(x)
            self.assertIn(needle, str(e.exception))
            self.assertNotIn("\n", str(e.exception))


if __name__ == "__main__":
    unittest.main()
