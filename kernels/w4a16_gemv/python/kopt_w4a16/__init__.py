"""kopt_w4a16 for Python: the shipped W4A16 kernels on PyTorch tensors.

The package is pure Python over the shipped library's C API (ctypes), so
nothing is compiled where it is installed. It looks for libkopt_w4a16.so in
$KOPT_W4A16_LIBRARY (a file), beside this package, then in the system's
library path. PyTorch is needed only for KoptLinear; the importers work on
NumPy arrays (or anything numpy.asarray reads) and need no GPU.

    from kopt_w4a16 import KoptLinear
    layer = KoptLinear.from_awq(qweight, qzeros, scales, group_size=128)
    y = layer(x)          # x: fp16/bf16 [..., K] on the GPU -> y: x's dtype [..., N]
"""
import ctypes
import os

import numpy as np

from . import _core
from ._core import KoptError

__all__ = ["KoptError", "HostWeights", "import_awq", "import_gptq", "import_gguf", "devices",
           "KoptLinear", "library_path", "GGML_TYPE_Q4_0", "GGML_TYPE_Q4_1", "GEMM_ROWS"]

GGML_TYPE_Q4_0 = 2
GGML_TYPE_Q4_1 = 3
# KoptLinear's default gemm_rows: from this many rows one GEMM on the
# dequantised weights beats the batched kernels (on an H200, between 16 and
# 24 rows on Llama-3-8B's larger layers, by 48 on 4096x1024; PERFORMANCE.md).
GEMM_ROWS = 32


class _HostWeights(ctypes.Structure):
    _fields_ = [("K", ctypes.c_int), ("N", ctypes.c_int), ("G", ctypes.c_int),
                ("qweight", ctypes.POINTER(ctypes.c_ubyte)),
                ("scales", ctypes.POINTER(ctypes.c_ushort)),
                ("offsets", ctypes.POINTER(ctypes.c_ushort)),
                ("k_order", ctypes.POINTER(ctypes.c_int)),
                ("max_offset_rounding", ctypes.c_float)]


def _declare(lib):
    """The functions kopt_w4a16 adds to the C API every library has."""
    c_int, c_void_p, c_size_t = ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t
    hw = ctypes.POINTER(_HostWeights)
    lib.kopt_w4a16_import_awq.argtypes = [c_void_p, c_void_p, c_void_p, c_int, c_int, c_int, hw]
    lib.kopt_w4a16_import_gptq.argtypes = [c_void_p, c_void_p, c_void_p, c_void_p, c_int, c_int,
                                           c_int, c_int, hw]
    lib.kopt_w4a16_import_gguf.argtypes = [c_void_p, c_size_t, c_int, c_int, c_int, hw]
    lib.kopt_w4a16_host_weights_free.argtypes = [hw]
    lib.kopt_w4a16_host_weights_free.restype = None
    lib.kopt_w4a16_create_from_host.argtypes = [hw, c_void_p, ctypes.POINTER(c_void_p)]


_library = _core.Library("kopt_w4a16", os.path.dirname(os.path.abspath(__file__)), _declare)
_binding = _core.Binding(_library)
_lib = _library.get
library_path = _library.path
devices = _library.devices


def _check(code, what):
    _library.check(code, what)


def _numpy(a, dtype, name):
    return _core.as_numpy(_library, a, dtype, name)


class HostWeights:
    """kopt's canonical arrays in host memory, as an importer made them."""

    def __init__(self):
        self._c = _HostWeights()

    def __del__(self):
        if _library.handle is not None:
            _library.handle.kopt_w4a16_host_weights_free(ctypes.byref(self._c))

    @property
    def shape(self):
        return self._c.K, self._c.N, self._c.G

    @property
    def max_offset_rounding(self):
        """The largest |fp16 offset − exact −z·s| of the import."""
        return float(self._c.max_offset_rounding)

    def arrays(self):
        """(qweight uint8 [N, K/2], scales fp16 [N, K/G], offsets fp16 [N, K/G], k_order or None)."""
        K, N, G = self.shape
        q = np.ctypeslib.as_array(self._c.qweight, shape=(N, K // 2)).copy()
        s = np.ctypeslib.as_array(self._c.scales, shape=(N, K // G)).copy().view(np.float16)
        o = np.ctypeslib.as_array(self._c.offsets, shape=(N, K // G)).copy().view(np.float16)
        order = np.ctypeslib.as_array(self._c.k_order, shape=(K,)).copy() if self._c.k_order else None
        return q, s, o, order

    def dequantize(self):
        """W as float32 [K, N] in the format's own K order (kopt's w = scale·q + offset)."""
        q, s, o, order = self.arrays()
        K, N, G = self.shape
        nib = np.empty((N, K), np.float32)
        nib[:, 0::2] = q & 15
        nib[:, 1::2] = q >> 4
        w = nib * np.repeat(s.astype(np.float32), G, axis=1) + np.repeat(o.astype(np.float32), G, axis=1)
        out = np.empty((K, N), np.float32)
        out[order if order is not None else np.arange(K)] = w.T
        return out


def import_awq(qweight, qzeros, scales, group_size):
    """AutoAWQ GEMM layout: qweight int32 [K, N/8], qzeros int32 [K/G, N/8], scales fp16 [K/G, N]."""
    qw, qz = _numpy(qweight, np.int32, "qweight"), _numpy(qzeros, np.int32, "qzeros")
    sc = _numpy(scales, np.uint16, "scales")
    K, N = qw.shape[0], qw.shape[1] * 8
    h = HostWeights()
    _check(_lib().kopt_w4a16_import_awq(qw.ctypes.data, qz.ctypes.data, sc.ctypes.data, K, N, group_size,
                                        ctypes.byref(h._c)), "AWQ import")
    return h


def import_gptq(qweight, qzeros, scales, group_size, g_idx=None, zeros_minus_one=True):
    """GPTQ: qweight int32 [K/8, N], qzeros int32 [K/G, N/8], scales fp16 [K/G, N], g_idx int32 [K] or None."""
    qw, qz = _numpy(qweight, np.int32, "qweight"), _numpy(qzeros, np.int32, "qzeros")
    sc = _numpy(scales, np.uint16, "scales")
    K, N = qw.shape[0] * 8, qw.shape[1]
    gi = None if g_idx is None else _numpy(g_idx, np.int32, "g_idx")
    if gi is not None and gi.shape != (K,):
        raise KoptError(f"kopt_w4a16: g_idx must have K = {K} entries; got shape {gi.shape}")
    h = HostWeights()
    _check(_lib().kopt_w4a16_import_gptq(qw.ctypes.data, qz.ctypes.data, sc.ctypes.data,
                                         None if gi is None else gi.ctypes.data, K, N, group_size,
                                         1 if zeros_minus_one else 0, ctypes.byref(h._c)), "GPTQ import")
    return h


def import_gguf(data, ggml_type, K, N):
    """A GGUF Q4_0 / Q4_1 tensor's bytes: N rows (output features) of K values."""
    raw = _numpy(data, np.uint8, "data")
    h = HostWeights()
    _check(_lib().kopt_w4a16_import_gguf(raw.ctypes.data, raw.nbytes, ggml_type, K, N,
                                         ctypes.byref(h._c)), "GGUF import")
    return h


class KoptLinear(_core.Linear):
    """y = x · W (+ bias) on kopt's kernels, W int4 from an AWQ, GPTQ or GGUF tensor.

    x: fp16 or bf16 [..., K] on the current CUDA device, last dimension
    contiguous; y: [..., N] in out_dtype (default: x's dtype), on the current
    stream. Up to 16 rows at a time run on the library's batched kernels,
    which read the weights once for all of them, as one kernel where y has
    x's dtype (else with a conversion of x or y beside it); one row with y in
    x's dtype on the shape's batch-1 kernel built for that dtype, where the
    library has that build. From gemm_rows rows on
    (a prompt's prefill), W is dequantised into a temporary tensor of x's
    dtype and the rows run as one GEMM (torch.nn.functional.linear), as
    engines switch from a GEMV to a GEMM where the rows are many; None:
    never. That GEMM rounds W to x's dtype.
    Calls can be captured in a CUDA graph, and under torch.compile a call is
    one operator (kopt_w4a16::linear_rows), so it traces without a break.
    """

    _binding = _binding

    def __init__(self, host_weights, bias=None, out_dtype=None, gemm_rows=GEMM_ROWS):
        K, N, G = host_weights.shape
        self._adopt(lambda stream, out: _lib().kopt_w4a16_create_from_host(ctypes.byref(host_weights._c), stream, out),
                    K, N, bias, out_dtype, gemm_rows)
        self.group_size = G
        self.max_offset_rounding = host_weights.max_offset_rounding

    @classmethod
    def from_awq(cls, qweight, qzeros, scales, group_size, bias=None, out_dtype=None, gemm_rows=GEMM_ROWS):
        return cls(import_awq(qweight, qzeros, scales, group_size), bias, out_dtype, gemm_rows)

    @classmethod
    def from_gptq(cls, qweight, qzeros, scales, group_size, g_idx=None, zeros_minus_one=True, bias=None,
                  out_dtype=None, gemm_rows=GEMM_ROWS):
        return cls(import_gptq(qweight, qzeros, scales, group_size, g_idx, zeros_minus_one), bias, out_dtype,
                   gemm_rows)

    @classmethod
    def from_gguf(cls, data, ggml_type, in_features, out_features, bias=None, out_dtype=None, gemm_rows=GEMM_ROWS):
        return cls(import_gguf(data, ggml_type, in_features, out_features), bias, out_dtype, gemm_rows)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, group_size={self.group_size}"
