"""kopt_w8a16's Python binding on a GPU (run on the GPU machine with
PyTorch): KoptLinear from int8 weights and from float weights against torch
on the format's own dequantised weights, fp16 and bf16 in, fp32/fp16/bf16
out, one to sixteen rows, many rows as one GEMM on the dequantised weights,
a CUDA graph, torch.compile, a bias, and one clear error for each wrong
input."""
import unittest

import numpy as np
import torch

import kopt_w8a16 as k8
from test_python_binding_gpu import (check, check_graph_replays, check_kernels_then_gemm,
                                     check_one_row_in_its_dtypes, random_x)


def rounded(w, dtype):
    """W [K, N] as the GEMM path holds it: each weight rounded to x's dtype
    (what that path promises), in float64."""
    return torch.from_numpy(w).to(dtype).double().numpy()


def int8_weights(K, N, seed):
    """Random int8 q [N, K] (all of -128..127) and scales [N], and W [K, N] = (s·q)ᵀ in float64."""
    rng = np.random.default_rng(seed)
    q = rng.integers(-128, 128, (N, K)).astype(np.int8)
    scales = (rng.integers(512, 1024, N) * 2.0 ** -18).astype(np.float16)
    return q, scales, (q.astype(np.float64) * scales.astype(np.float64)[:, None]).T


class KoptLinearW8a16GpuTest(unittest.TestCase):
    def test_dtypes_and_rows(self):
        K, N = 4096, 1024
        q, scales, w = int8_weights(K, N, 1)
        layer = k8.KoptLinear.from_int8(torch.from_numpy(q), torch.from_numpy(scales))
        self.assertIn("batched", layer.kernel)
        for x_dtype in (torch.float16, torch.bfloat16):
            for out in (None, torch.float32, torch.float16, torch.bfloat16):
                for rows in (1, 2, 3, 16):
                    layer.out_dtype = out
                    x = random_x(rows, K, x_dtype)
                    y = layer(x)
                    self.assertEqual((y.dtype, tuple(y.shape)), (out or x_dtype, (rows, N)))
                    check(self, y, x, w, f"x {x_dtype}, y {y.dtype}, {rows} rows")
        x = random_x(10, K).view(2, 5, K)
        self.assertEqual(tuple(layer(x).shape), (2, 5, N))

    def test_one_row_in_its_dtypes_on_the_entrys_own_build(self):
        # One fp16 or bf16 row with y in x's dtype runs the batch-1 entry built
        # for those dtypes (a tuned vec and a tuned splitk shape; a shape of
        # the generic rule, whose variant may have none), no conversion kernels.
        for K, N in ((5120, 6144), (7168, 1024), (4096, 1000)):
            q, scales, w = int8_weights(K, N, K + N)
            layer = k8.KoptLinear.from_int8(torch.from_numpy(q), torch.from_numpy(scales))
            own = "its own builds" in layer.kernel
            self.assertTrue(own or N == 1000, layer.kernel)
            check_one_row_in_its_dtypes(self, layer, K, w, f"{K}x{N}", own_builds=own)

    def test_shapes_the_batched_kernels_do_not_take(self):
        # K not a multiple of 16: every row on the shape's generic kernel; the
        # dequantiser one weight at a time where K is not a multiple of 8.
        for K, N in ((1000, 300), (33, 7)):
            q, scales, w = int8_weights(K, N, K)
            layer = k8.KoptLinear.from_int8(q, scales, gemm_rows=None)
            for rows in (1, 5):
                x = random_x(rows, K)
                check(self, layer(x), x, w, f"{K}x{N}, {rows} rows")
            for dtype in (torch.float16, torch.bfloat16):
                got = layer.dequantize(dtype).double().t().cpu().numpy()
                np.testing.assert_array_equal(got, rounded(w, dtype), f"{K}x{N} dequantised to {dtype}")

    def test_from_float_and_dequantize(self):
        K, N = 2048, 512
        weight = torch.randn(N, K, device="cuda") * 0.02
        q, scales = k8.quantize_per_channel(weight)
        self.assertEqual((q.device.type, q.dtype, scales.dtype), ("cuda", torch.int8, torch.float16))
        layer = k8.KoptLinear.from_float(weight)
        exact = q.double() * scales.double()[:, None]  # [N, K]
        for dtype in (torch.float16, torch.bfloat16):
            got = layer.dequantize(dtype)
            self.assertEqual((got.dtype, tuple(got.shape)), (dtype, (N, K)))
            self.assertTrue(torch.equal(got, exact.to(dtype)), f"dequantised to {dtype}")
        x = random_x(4, K, torch.bfloat16)
        check(self, layer(x), x, exact.t().cpu().numpy(), "from_float, 4 rows")
        # The quantisation itself: within half a step of each channel.
        self.assertTrue(((weight.double() - exact).abs() <= scales.double()[:, None] * 0.5004).all())

    def test_many_rows_run_as_one_gemm(self):
        K, N = 4096, 1024
        q, scales, w = int8_weights(K, N, 2)
        layer = k8.KoptLinear.from_int8(q, scales, gemm_rows=32)
        # The GEMM rounds W to x's dtype (in bf16 by up to 2^-9 of each
        # weight, which the rule's atol does not hold at these weights'
        # sizes): its rows against W so rounded.
        check_kernels_then_gemm(self, layer, K, N, w, lambda dtype: rounded(w, dtype))
        never = k8.KoptLinear.from_int8(q, scales, gemm_rows=None)
        x = random_x(40, K)
        check(self, never(x), x, w, "40 rows on the kernels")

    def test_calls_replay_from_a_cuda_graph(self):
        K, N = 4096, 1024
        q, scales, w = int8_weights(K, N, 3)
        layer = k8.KoptLinear.from_int8(q, scales, gemm_rows=32)
        check_graph_replays(self, layer, K, w, lambda dtype: rounded(w, dtype))

    def test_torch_compile_and_bias(self):
        K, N = 2048, 512
        q, scales, w = int8_weights(K, N, 4)
        bias = (torch.rand(N, device="cuda") * 2 - 1).half()
        layer = k8.KoptLinear.from_int8(q, scales, bias=bias, gemm_rows=32)
        for rows in (1, 5, 40):
            x = random_x(rows, K)
            ref = w if rows < 32 else rounded(w, torch.float16)  # the GEMM path's W
            check(self, layer(x), x, ref, f"{rows} rows with a bias", bias)
        if not hasattr(torch.library, "custom_op"):
            self.skipTest("this PyTorch has no torch.library.custom_op")
        compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
        for rows in (3, 40):
            x = random_x(rows, K, torch.bfloat16)
            ref = w if rows < 32 else rounded(w, torch.bfloat16)  # the GEMM path's W
            check(self, compiled(x), x, ref, f"{rows} rows through torch.compile, with a bias", bias)

    def test_wrong_inputs_are_one_line(self):
        K, N = 512, 256
        q, scales, _ = int8_weights(K, N, 5)
        layer = k8.KoptLinear.from_int8(q, scales)
        cases = [
            (lambda: layer(torch.rand(1, K, device="cuda")), "x must be float16 or bfloat16"),
            (lambda: layer(torch.rand(1, K, dtype=torch.float16)), "x must be on a CUDA device"),
            (lambda: layer(random_x(1, K + 16)), "last dimension must be K = 512"),
            (lambda: layer(random_x(K, 2).t()), "x must be contiguous"),
            (lambda: k8.KoptLinear.from_int8(q.astype(np.int16), scales), "qweight must be int8 [N, K]"),
            (lambda: k8.KoptLinear.from_int8(q, scales[:-1]), "scales must be floats [N] = [256]"),
            (lambda: k8.KoptLinear.from_int8(q, np.full(N, 1e6, np.float32)), "within fp16's range"),
        ]
        for call, needle in cases:
            with self.assertRaises(k8.KoptError) as e:
                call()
            self.assertIn(needle, str(e.exception))
            self.assertNotIn("\n", str(e.exception))


if __name__ == "__main__":
    unittest.main()
