"""The Python binding without a GPU: it imports, its importers match each
format's own dequantisation (through the shipped library's C importers),
and asking for a GPU says there is none in one line. Run by ctest with
PYTHONPATH=BUILD/python (the package and libkopt_w4a16.so built there)."""
import unittest

import numpy as np

import kopt_w4a16 as kw

AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]  # AutoAWQ packs column AWQ_ORDER[i] into nibble i


def random_group_quant(K, N, G, seed):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 16, (K, N))
    z = rng.integers(1, 16, (K // G, N))
    s = (rng.integers(512, 1024, (K // G, N)) * 2.0 ** -20).astype(np.float16)
    return q, z, s


def awq_tensors(K, N, G, seed):
    """AutoAWQ's GEMM tensors of a random quantisation, and its dequantised W [K, N]."""
    q, z, s = random_group_quant(K, N, G, seed)
    qweight = np.zeros((K, N // 8), np.uint32)
    qzeros = np.zeros((K // G, N // 8), np.uint32)
    for i, col in enumerate(AWQ_ORDER):
        qweight |= q[:, col::8].astype(np.uint32) << (4 * i)
        qzeros |= z[:, col::8].astype(np.uint32) << (4 * i)
    w = (q - np.repeat(z, G, axis=0)) * np.repeat(s.astype(np.float64), G, axis=0)
    return qweight.view(np.int32), qzeros.view(np.int32), s, w


def gptq_act_order_tensors(K, N, G, seed):
    """GPTQ's tensors (the original "zero minus one" format) of a random
    quantisation with act-order (groups scattered along K by g_idx), and its
    dequantised W [K, N]."""
    q, z, s = random_group_quant(K, N, G, seed)
    perm = np.random.default_rng(seed + 1).permutation(K)
    g_idx = np.empty(K, np.int32)
    g_idx[perm] = np.arange(K) // G
    qweight = np.zeros((K // 8, N), np.uint32)
    for i in range(8):
        qweight |= q[i::8, :].astype(np.uint32) << (4 * i)
    qzeros = np.zeros((K // G, N // 8), np.uint32)
    for i in range(8):
        qzeros |= (z[:, i::8] - 1).astype(np.uint32) << (4 * i)  # the original format stores z - 1
    w = (q - z[g_idx]) * s[g_idx].astype(np.float64)
    return qweight.view(np.int32), qzeros.view(np.int32), s, g_idx, w


class ImportersTest(unittest.TestCase):
    def test_awq(self):
        K, N, G = 256, 32, 64
        qweight, qzeros, s, ref = awq_tensors(K, N, G, 1)
        h = kw.import_awq(qweight, qzeros, s, G)
        self.assertEqual(h.shape, (K, N, G))
        np.testing.assert_allclose(h.dequantize(), ref, atol=h.max_offset_rounding + 1e-7, rtol=0)

    def test_gptq_act_order(self):
        K, N, G = 256, 16, 32
        qweight, qzeros, s, g_idx, ref = gptq_act_order_tensors(K, N, G, 2)
        h = kw.import_gptq(qweight, qzeros, s, G, g_idx=g_idx)
        self.assertIsNotNone(h.arrays()[3])
        np.testing.assert_allclose(h.dequantize(), ref, atol=h.max_offset_rounding + 1e-7, rtol=0)

    def test_gguf_q4_1_negative_scale(self):
        K, N = 64, 3
        rng = np.random.default_rng(4)
        q = rng.integers(0, 16, (N, K))
        d = -(rng.integers(512, 1024, (N, K // 32)) * 2.0 ** -16).astype(np.float16)
        m = (rng.integers(512, 1024, (N, K // 32)) * 2.0 ** -14).astype(np.float16)
        blocks = bytearray()
        for n in range(N):
            for b in range(K // 32):
                blocks += d[n, b].tobytes() + m[n, b].tobytes()
                qs = q[n, b * 32:b * 32 + 16] | (q[n, b * 32 + 16:b * 32 + 32] << 4)
                blocks += qs.astype(np.uint8).tobytes()
        h = kw.import_gguf(np.frombuffer(bytes(blocks), np.uint8), kw.GGML_TYPE_Q4_1, K, N)
        ref = (q * np.repeat(d.astype(np.float64), 32, axis=1) + np.repeat(m.astype(np.float64), 32, axis=1)).T
        np.testing.assert_allclose(h.dequantize(), ref, atol=1e-7, rtol=0)

    def test_errors_are_one_line(self):
        with self.assertRaises(kw.KoptError) as e:
            kw.import_gguf(np.zeros(71, np.uint8), kw.GGML_TYPE_Q4_0, 64, 2)
        self.assertIn("71 bytes, but 2 rows of 2 Q4_0 blocks are 72", str(e.exception))
        self.assertNotIn("\n", str(e.exception))
        with self.assertRaises(kw.KoptError) as e:
            kw.import_awq(np.zeros((64, 2), np.float64), np.zeros((1, 2), np.int32), np.zeros((1, 16), np.float16), 64)
        self.assertIn("qweight must hold int32", str(e.exception))


class CApiTest(unittest.TestCase):
    def test_dequantize_refuses_null_pointers_in_one_line(self):
        lib = kw._lib()
        self.assertEqual(lib.kopt_w4a16_dequantize(None, None, 1, None), 1)  # KOPT_W4A16_INVALID_ARGUMENT
        self.assertEqual(lib.kopt_w4a16_last_error().decode(), "null pointer")

    def test_gemm_refuses_x_off_a_16_byte_boundary(self):
        # The kernels read x 16 bytes at a time where K is a multiple of 8: a
        # misaligned read would end the GPU context, so the call says so in one
        # line instead. The check reads only the handle's K, before any GPU
        # work: a zeroed stand-in handle (K = 0) serves here.
        lib = kw._lib()
        rows = np.zeros(64, np.float32)
        at = rows.ctypes.data + (-rows.ctypes.data) % 16  # a 16-byte boundary inside rows
        self.assertEqual(lib.kopt_w4a16_gemm(at, at + 2, 1, 1, at, 0, None), 1)  # INVALID_ARGUMENT
        message = lib.kopt_w4a16_last_error().decode()
        self.assertIn("x must start on a 16-byte boundary", message)
        self.assertNotIn("\n", message)
        self.assertEqual(lib.kopt_w4a16_gemm(at, at, 2, 1, at + 2, 0, None), 1)  # fp32 y off 4 bytes
        self.assertIn("y must start on a boundary", lib.kopt_w4a16_last_error().decode())


class NoGpuTest(unittest.TestCase):
    def test_no_gpu_is_said_once(self):
        if kw.devices() > 0:
            self.skipTest("this machine has a GPU")
        try:
            import torch  # noqa: F401
        except ImportError:
            with self.assertRaises(kw.KoptError) as e:
                kw.KoptLinear(kw.import_gguf(np.zeros(72, np.uint8), kw.GGML_TYPE_Q4_0, 64, 2))
            self.assertIn("needs PyTorch", str(e.exception))
            return
        with self.assertRaises(kw.KoptError) as e:
            kw.KoptLinear(kw.import_gguf(np.zeros(72, np.uint8), kw.GGML_TYPE_Q4_0, 64, 2))
        self.assertIn("no GPU", str(e.exception))


if __name__ == "__main__":
    unittest.main()
