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

__all__ = ["KoptError", "HostWeights", "import_awq", "import_gptq", "import_gguf", "devices",
           "KoptLinear", "library_path", "GGML_TYPE_Q4_0", "GGML_TYPE_Q4_1", "GEMM_ROWS"]

GGML_TYPE_Q4_0 = 2
GGML_TYPE_Q4_1 = 3
_F32, _F16, _BF16 = 0, 1, 2
_NO_KERNEL = 2
# KoptLinear's default gemm_rows: from this many rows one GEMM on the
# dequantised weights beats the batched kernels (on an H200, between 16 and
# 24 rows on Llama-3-8B's larger layers, by 48 on 4096x1024; PERFORMANCE.md).
GEMM_ROWS = 32


class KoptError(RuntimeError):
    """A kopt_w4a16 call failed; the message is the library's one line."""


class _HostWeights(ctypes.Structure):
    _fields_ = [("K", ctypes.c_int), ("N", ctypes.c_int), ("G", ctypes.c_int),
                ("qweight", ctypes.POINTER(ctypes.c_ubyte)),
                ("scales", ctypes.POINTER(ctypes.c_ushort)),
                ("offsets", ctypes.POINTER(ctypes.c_ushort)),
                ("k_order", ctypes.POINTER(ctypes.c_int)),
                ("max_offset_rounding", ctypes.c_float)]


_lib_handle = None


def library_path():
    """Where the shared library is looked for first (None: the system's path)."""
    env = os.environ.get("KOPT_W4A16_LIBRARY")
    if env:
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libkopt_w4a16.so")
    if os.path.exists(here):
        return here
    beside = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libkopt_w4a16.so")
    return beside if os.path.exists(beside) else None


def _lib():
    global _lib_handle
    if _lib_handle is not None:
        return _lib_handle
    path = library_path() or "libkopt_w4a16.so"
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise KoptError(f"kopt_w4a16: cannot load the library ({path}): {e}; build it with "
                        "'cmake --build BUILD --target kopt_w4a16_shared' and set "
                        "KOPT_W4A16_LIBRARY to BUILD/python/libkopt_w4a16.so") from None
    c_int, c_void_p, c_size_t = ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t
    hw = ctypes.POINTER(_HostWeights)
    lib.kopt_w4a16_last_error.restype = ctypes.c_char_p
    lib.kopt_w4a16_devices.restype = c_int
    lib.kopt_w4a16_import_awq.argtypes = [c_void_p, c_void_p, c_void_p, c_int, c_int, c_int, hw]
    lib.kopt_w4a16_import_gptq.argtypes = [c_void_p, c_void_p, c_void_p, c_void_p, c_int, c_int,
                                           c_int, c_int, hw]
    lib.kopt_w4a16_import_gguf.argtypes = [c_void_p, c_size_t, c_int, c_int, c_int, hw]
    lib.kopt_w4a16_host_weights_free.argtypes = [hw]
    lib.kopt_w4a16_host_weights_free.restype = None
    lib.kopt_w4a16_create_from_host.argtypes = [hw, c_void_p, ctypes.POINTER(c_void_p)]
    lib.kopt_w4a16_gemm.argtypes = [c_void_p, c_void_p, c_int, c_int, c_void_p, c_int, c_void_p]
    lib.kopt_w4a16_dequantize.argtypes = [c_void_p, c_void_p, c_int, c_void_p]
    lib.kopt_w4a16_destroy.argtypes = [c_void_p]
    lib.kopt_w4a16_destroy.restype = None
    lib.kopt_w4a16_kernel.argtypes = [c_void_p]
    lib.kopt_w4a16_kernel.restype = ctypes.c_char_p
    _lib_handle = lib
    return lib


def _check(code, what):
    if code != 0:
        raise KoptError(f"kopt_w4a16: {what}: {_lib().kopt_w4a16_last_error().decode()}")


def devices():
    """How many GPUs the library sees (0 without a GPU or a driver)."""
    return _lib().kopt_w4a16_devices()


def _numpy(a, dtype, name):
    if hasattr(a, "detach"):  # a torch tensor, wherever it lives
        a = a.detach().cpu().numpy()
    a = np.ascontiguousarray(np.asarray(a))
    if a.dtype.itemsize != np.dtype(dtype).itemsize or a.dtype.kind not in np.dtype(dtype).kind + "iuf":
        raise KoptError(f"kopt_w4a16: {name} must hold {np.dtype(dtype).name} values; got {a.dtype}")
    return a.view(dtype)


class HostWeights:
    """kopt's canonical arrays in host memory, as an importer made them."""

    def __init__(self):
        self._c = _HostWeights()

    def __del__(self):
        if _lib_handle is not None:
            _lib_handle.kopt_w4a16_host_weights_free(ctypes.byref(self._c))

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


def _torch():
    try:
        import torch
    except ImportError:
        raise KoptError("kopt_w4a16: KoptLinear needs PyTorch; the importers do not") from None
    return torch


def _module_base():
    try:
        import torch
        return torch.nn.Module
    except ImportError:
        return object


class _TorchCalls:
    """What KoptLinear.forward needs of PyTorch, looked up once: a call costs
    microseconds of host time, which a decode step of many layers adds up."""

    def __init__(self, torch):
        self.torch = torch
        self.x_codes = {torch.float16: _F16, torch.bfloat16: _BF16}
        self.y_codes = {torch.float32: _F32, torch.float16: _F16, torch.bfloat16: _BF16}
        self.y_dtypes = {code: dtype for dtype, code in self.y_codes.items()}
        # The current stream's handle: PyTorch's raw getter where it has one
        # (what Triton calls), else through a Stream object (slower).
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.stream = raw if raw is not None else (lambda i: torch.cuda.current_stream(i).cuda_stream)
        self.linear = torch.nn.functional.linear
        # Under torch.compile a call is one custom operator, so the graph has
        # no break where it reads data pointers (engines compile their models);
        # in eager mode the call goes straight to the library, as an operator
        # costs host time of its own.
        compiler = getattr(torch, "compiler", None)
        self.compiling = getattr(compiler, "is_compiling", None) or (lambda: False)
        self.op = None
        if hasattr(torch.library, "custom_op"):
            try:
                @torch.library.custom_op("kopt_w4a16::linear_rows", mutates_args=())
                def linear_rows(x: torch.Tensor, weights: int, n: int, y_code: int, gemm_rows: int) -> torch.Tensor:
                    return _rows(x, weights, n, y_code, gemm_rows)

                @linear_rows.register_fake
                def _(x, weights, n, y_code, gemm_rows):
                    return x.new_empty((*x.shape[:-1], n), dtype=self.y_dtypes[y_code])

                self.op = linear_rows
            except RuntimeError:  # registered already (a second copy of the package): calls stay eager
                self.op = None


_torch_calls = None


def _calls():
    global _torch_calls
    if _torch_calls is None:
        _torch_calls = _TorchCalls(_torch())
    return _torch_calls


# Weights handles whose layout has no dequantiser: their calls stay on the
# kernels at every M.
_no_dequantiser = set()


def _dequantize(weights, n, k, dtype, device):
    """W as an [n, k] tensor of dtype on `device` (the weights' own); None
    where their layout has no dequantiser."""
    c = _calls()
    w = c.torch.empty(n, k, dtype=dtype, device=device)
    code = _lib().kopt_w4a16_dequantize(weights, w.data_ptr(), c.x_codes[dtype], c.stream(w.get_device()))
    if code == _NO_KERNEL:
        return None
    _check(code, "dequantize")
    return w


def _rows(x, weights, n, y_code, gemm_rows):
    """A checked call's work: from gemm_rows rows (0: never) one GEMM on the
    dequantised weights, else the library's kernels."""
    c = _calls()
    rows = x.numel() // x.shape[-1]
    out_dtype = c.y_dtypes[y_code]
    if 0 < gemm_rows <= rows and weights not in _no_dequantiser:
        w = _dequantize(weights, n, x.shape[-1], x.dtype, x.device)
        if w is not None:
            return c.linear(x, w).to(out_dtype)
        _no_dequantiser.add(weights)
    y = c.torch.empty(*x.shape[:-1], n, dtype=out_dtype, device=x.device)
    if rows:
        _check(_lib().kopt_w4a16_gemm(weights, x.data_ptr(), c.x_codes[x.dtype], rows, y.data_ptr(), y_code,
                                      c.stream(x.get_device())), "gemm")
    return y


class KoptLinear(_module_base()):
    """y = x · W (+ bias) on kopt's kernels, W int4 from an AWQ, GPTQ or GGUF tensor.

    x: fp16 or bf16 [..., K] on the current CUDA device, last dimension
    contiguous; y: [..., N] in out_dtype (default: x's dtype), on the current
    stream. Up to 16 rows at a time run on the library's batched kernels,
    which read the weights once for all of them, as one kernel where y has
    x's dtype (else with a conversion of x or y beside it; one row: its
    batch-1 kernel, with both conversions in bf16). From gemm_rows rows on
    (a prompt's prefill), W is dequantised into a temporary tensor of x's
    dtype and the rows run as one GEMM (torch.nn.functional.linear), as
    engines switch from a GEMV to a GEMM where the rows are many; None:
    never. That GEMM rounds W to x's dtype.
    Calls can be captured in a CUDA graph, and under torch.compile a call is
    one operator (kopt_w4a16::linear_rows), so it traces without a break.
    """

    def __init__(self, host_weights, bias=None, out_dtype=None, gemm_rows=GEMM_ROWS):
        torch = _torch()
        _calls()  # PyTorch's calls and the operator, set up here: never first inside a traced forward
        super().__init__()
        self.in_features, self.out_features, self.group_size = host_weights.shape
        if devices() < 1:
            raise KoptError("kopt_w4a16: no GPU: the library sees no device (" +
                            _lib().kopt_w4a16_last_error().decode() + ")")
        handle = ctypes.c_void_p()
        stream = torch.cuda.current_stream().cuda_stream
        _check(_lib().kopt_w4a16_create_from_host(ctypes.byref(host_weights._c), ctypes.c_void_p(stream),
                                                  ctypes.byref(handle)), "creating weights")
        self._handle = handle
        self._weights = handle.value  # the handle as a plain int, which torch.compile reads as a constant
        self.device = torch.device("cuda", torch.cuda.current_device())  # where the weights are
        self.max_offset_rounding = host_weights.max_offset_rounding
        self.bias = None if bias is None else torch.nn.Parameter(bias.detach().cuda(), requires_grad=False)
        self.out_dtype = out_dtype
        self.gemm_rows = gemm_rows
        self.kernel = _lib().kopt_w4a16_kernel(handle).decode()

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

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _lib_handle is not None:
            _no_dequantiser.discard(handle.value)
            _lib_handle.kopt_w4a16_destroy(handle)
            self._handle = None

    def dequantize(self, dtype=None):
        """W as a [N, K] tensor of fp16 or bf16 (default: bfloat16) on the GPU, w = scale·q + offset
        rounded once, in x's K order (nn.Linear's weight layout); None where the shape's kernel
        keeps the weights in a layout of its own."""
        c = _calls()
        dtype = dtype or c.torch.bfloat16
        if dtype not in c.x_codes:
            raise KoptError(f"kopt_w4a16: the dequantised weights must be float16 or bfloat16; got {dtype}")
        return _dequantize(self._weights, self.out_features, self.in_features, dtype, self.device)

    def forward(self, x):
        c = _calls()
        if x.dtype not in c.x_codes:
            raise KoptError(f"kopt_w4a16: x must be float16 or bfloat16; got {x.dtype}")
        if not x.is_cuda:
            raise KoptError(f"kopt_w4a16: x must be on a CUDA device; got {x.device}")
        if x.shape[-1] != self.in_features:
            raise KoptError(f"kopt_w4a16: x's last dimension must be K = {self.in_features}; got shape "
                            f"{tuple(x.shape)}")
        if not x.is_contiguous():
            raise KoptError(f"kopt_w4a16: x must be contiguous (rows of K elements); got stride {x.stride()}")
        out_dtype = self.out_dtype or x.dtype
        y_code = c.y_codes.get(out_dtype)
        if y_code is None:
            raise KoptError(f"kopt_w4a16: the output must be float32, float16 or bfloat16; got {out_dtype}")
        gemm_rows = self.gemm_rows or 0
        if c.op is not None and c.compiling():
            y = c.op(x, self._weights, self.out_features, y_code, gemm_rows)
        else:
            y = _rows(x, self._weights, self.out_features, y_code, gemm_rows)
        if self.bias is not None:
            y.add_(self.bias.to(out_dtype))  # y is this call's own tensor: no second one
        return y

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, group_size={self.group_size}"
