"""kopt_w8a16's Python binding without a GPU: it imports, its per-channel
quantiser keeps each weight within half a step of its channel's scale, bad
weights and a missing library are one line each, and asking for a GPU says
there is none. Run by ctest with PYTHONPATH=BUILD/python (the package and
libkopt_w8a16.so built there)."""
import os
import subprocess
import sys
import unittest

import numpy as np

import kopt_w8a16 as k8


class QuantizePerChannelTest(unittest.TestCase):
    def test_each_weight_within_half_a_step(self):
        rng = np.random.default_rng(1)
        w = rng.standard_normal((64, 96)).astype(np.float32) * np.exp(rng.uniform(-8, 8, (64, 1))).astype(np.float32)
        w[5] = 0.0
        w[7, 3] = 1e4  # one outlier sets its channel's step
        q, scales = k8.quantize_per_channel(w)
        self.assertEqual((q.dtype, q.shape, scales.dtype, scales.shape), (np.int8, w.shape, np.float16, (64,)))
        self.assertGreaterEqual(q.min(), -127)  # symmetric: -128 never used
        s = scales.astype(np.float64)[:, None]
        # fp16 rounds a scale by at most 2^-11 of it, or 2^-25 where it is
        # subnormal (below 2^-14: channels whose largest |w| is under 0.0078).
        rounding = np.maximum(s * 2.0 ** -11, 2.0 ** -25)
        # Half a step, plus what the scale's rounding moves the largest weight by (127 steps).
        self.assertTrue((np.abs(w - s * q) <= 0.5 * s + 127 * rounding).all())
        np.testing.assert_array_equal(q[5], 0)
        self.assertEqual(scales[5], 0)
        largest = np.abs(w).max(axis=1)[:, None]
        self.assertTrue((np.abs(s - largest / 127) <= rounding).all())

    def test_bad_weights_are_one_line(self):
        for w, needle in ((np.zeros(8, np.float32), "must be [N, K]"),
                          (np.full((2, 4), 1e10, np.float32), "past fp16's range")):
            with self.assertRaises(k8.KoptError) as e:
                k8.quantize_per_channel(w)
            self.assertIn(needle, str(e.exception))
            self.assertNotIn("\n", str(e.exception))


class LibraryTest(unittest.TestCase):
    def test_dequantize_refuses_null_pointers_in_one_line(self):
        lib = k8._lib()
        self.assertEqual(lib.kopt_w8a16_dequantize(None, None, 1, None), 1)  # KOPT_W8A16_INVALID_ARGUMENT
        self.assertEqual(lib.kopt_w8a16_last_error().decode(), "null pointer")

    def test_a_missing_library_is_one_line(self):
        env = dict(os.environ, KOPT_W8A16_LIBRARY="/nonexistent/libkopt_w8a16.so")
        code = ("import kopt_w8a16 as k8\n"
                "try:\n    k8.devices()\nexcept k8.KoptError as e:\n    print(e)\n")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        self.assertIn("kopt_w8a16: cannot load the library (/nonexistent/libkopt_w8a16.so)", out.stdout)
        self.assertIn("--target kopt_w8a16_shared", out.stdout)
        self.assertEqual(out.stdout.count("\n"), 1)


class NoGpuTest(unittest.TestCase):
    def test_no_gpu_is_said_once(self):
        if k8.devices() > 0:
            self.skipTest("this machine has a GPU")
        q, scales = np.zeros((2, 64), np.int8), np.ones(2, np.float16)
        try:
            import torch  # noqa: F401
        except ImportError:
            with self.assertRaises(k8.KoptError) as e:
                k8.KoptLinear.from_int8(q, scales)
            self.assertIn("needs PyTorch", str(e.exception))
            return
        with self.assertRaises(k8.KoptError) as e:
            k8.KoptLinear.from_int8(q, scales)
        self.assertIn("no GPU", str(e.exception))


if __name__ == "__main__":
    unittest.main()
