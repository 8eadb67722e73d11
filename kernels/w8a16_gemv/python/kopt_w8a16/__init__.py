"""kopt_w8a16 for Python: the shipped W8A16 kernels on PyTorch tensors.

W is int8 with one scale per output channel, w[n][k] = scale[n] · q[n][k]:
the weight-only int8 of torchao (`int8_weight_only`: its int_data and
scale), of TensorRT-LLM (per-channel, its [K, N] weights transposed) and of
a checkpoint quantised here (`quantize_per_channel`).

The package is pure Python over the shipped library's C API (ctypes), so
nothing is compiled where it is installed. It looks for libkopt_w8a16.so in
$KOPT_W8A16_LIBRARY (a file), beside this package, then in the system's
library path. PyTorch is needed only for KoptLinear; quantize_per_channel
also works on NumPy arrays and needs no GPU.

    from kopt_w8a16 import KoptLinear
    layer = KoptLinear.from_float(linear.weight)        # or from_int8(q, scales)
    y = layer(x)          # x: fp16/bf16 [..., K] on the GPU -> y: x's dtype [..., N]
"""
import ctypes
import os

import numpy as np

from . import _core
from ._core import KoptError

__all__ = ["KoptError", "KoptLinear", "quantize_per_channel", "devices", "library_path", "GEMM_ROWS"]

# KoptLinear's default gemm_rows: past the largest bucket of the batched
# kernels (16 rows) one GEMM on the dequantised weights is faster. Measured
# on an H200 (PERFORMANCE.md, 2026-11-29), µs at 16 and 20 rows against the
# GEMM path: 4096x14336 63.7 and 94.4 against 84.9, 7168x9216 74.7 and
# 108.6 against 96.9.
GEMM_ROWS = 17
FP16_MAX = 65504.0



def _declare(lib):
    """kopt_w8a16_create's arguments (the other functions are every library's)."""
    c_int, c_void_p = ctypes.c_int, ctypes.c_void_p
    lib.kopt_w8a16_create.argtypes = [c_void_p, c_void_p, c_int, c_int, c_void_p, ctypes.POINTER(c_void_p)]


_library = _core.Library("kopt_w8a16", os.path.dirname(os.path.abspath(__file__)), _declare)
_binding = _core.Binding(_library)
_lib = _library.get
library_path = _library.path
devices = _library.devices


def quantize_per_channel(weight):
    """nn.Linear's weight [N, K] (a torch tensor, kept on its device, or a
    NumPy array) as int8 q [N, K] and fp16 scales [N]: each channel's scale
    its largest |w| / 127 rounded to fp16, q = round(w / scale) within
    ±127 (symmetric, so -128 is never used; a channel of zeros gets scale 0
    and q 0). Returns (q, scales) of the input's kind."""
    if hasattr(weight, "detach"):
        import torch
        w = weight.detach().float()
        scales = (w.abs().amax(dim=1) / 127).half()
        if not torch.isfinite(scales).all():
            raise _library.error(f"a channel's largest |w| is past fp16's range times 127 ({FP16_MAX * 127:g})")
        s = scales.float()[:, None]
        q = torch.where(s > 0, torch.round(w / torch.where(s > 0, s, 1)), 0).clamp(-127, 127).to(torch.int8)
        return q, scales
    w = np.asarray(weight, np.float32)
    if w.ndim != 2:
        raise _library.error(f"the weight must be [N, K]; got shape {w.shape}")
    with np.errstate(over="ignore"):
        scales = (np.abs(w).max(axis=1) / 127).astype(np.float16)
    if not np.isfinite(scales).all():
        raise _library.error(f"a channel's largest |w| is past fp16's range times 127 ({FP16_MAX * 127:g})")
    s = scales.astype(np.float32)[:, None]
    q = np.where(s > 0, np.round(w / np.where(s > 0, s, 1)), 0).clip(-127, 127).astype(np.int8)
    return q, scales


class KoptLinear(_core.Linear):
    """y = x · W (+ bias) on kopt's kernels, W int8 with a scale per output channel.

    x: fp16 or bf16 [..., K] on the current CUDA device, last dimension
    contiguous; y: [..., N] in out_dtype (default: x's dtype), on the current
    stream. Up to 16 rows at a time run on the library's batched kernels,
    which read the weights once for all of them, as one kernel where y has
    x's dtype (fp16 and bf16; fp32 y from fp16 x); one row on the shape's
    batch-1 kernel (built for x's dtype where y has it). From gemm_rows rows
    on (a prompt's prefill), W is dequantised into a temporary tensor of x's
    dtype and the rows run as one GEMM (torch.nn.functional.linear); None:
    never. That GEMM rounds W to x's dtype.
    Calls can be captured in a CUDA graph, and under torch.compile a call is
    one operator (kopt_w8a16::linear_rows), so it traces without a break.
    """

    _binding = _binding

    def __init__(self, qweight, scales, bias=None, out_dtype=None, gemm_rows=GEMM_ROWS):
        """qweight: int8 [N, K] (nn.Linear's layout), scales: [N] of any float
        dtype, rounded to fp16 (relative 2^-11; past fp16's range: an error);
        torch tensors on any device or NumPy arrays, copied to the GPU."""
        torch = _core.torch_module(_library)
        q = torch.as_tensor(qweight)
        if q.dtype != torch.int8 or q.dim() != 2:
            raise _library.error(f"qweight must be int8 [N, K]; got {q.dtype} of shape {tuple(q.shape)}")
        N, K = q.shape
        s = torch.as_tensor(scales)
        if not s.is_floating_point() or tuple(s.shape) != (N,):
            raise _library.error(f"scales must be floats [N] = [{N}]; got {s.dtype} of shape {tuple(s.shape)}")
        if not torch.isfinite(s).all() or s.abs().max().item() > FP16_MAX:
            raise _library.error(f"scales must be finite and within fp16's range (|s| <= {FP16_MAX:g})")

        def create(stream, out):  # called once the library has seen a GPU
            q_gpu = q.to("cuda").contiguous()
            s_gpu = s.to("cuda", torch.float16).contiguous()
            return _lib().kopt_w8a16_create(q_gpu.data_ptr(), s_gpu.data_ptr(), K, N, stream, out)

        self._adopt(create, K, N, bias, out_dtype, gemm_rows)

    @classmethod
    def from_int8(cls, qweight, scales, bias=None, out_dtype=None, gemm_rows=GEMM_ROWS):
        return cls(qweight, scales, bias, out_dtype, gemm_rows)

    @classmethod
    def from_float(cls, weight, bias=None, out_dtype=None, gemm_rows=GEMM_ROWS):
        """nn.Linear's weight [N, K] quantised by quantize_per_channel."""
        q, scales = quantize_per_channel(weight)
        return cls(q, scales, bias, out_dtype, gemm_rows)
