"""What every kopt library's Python binding shares: the shared library
loaded by ctypes, its one-line errors, the calls PyTorch needs looked up
once, and a linear layer's checks and paths (the batched kernels, or one
GEMM on dequantised weights for many rows).

The build copies this file into each package (BUILD/python/<library>/
_core.py), so a package is whole on its own; a package names its library
and declares the C functions only it has.
"""
import ctypes
import os

import numpy as np

F32, F16, BF16 = 0, 1, 2  # the C API's element types
NO_KERNEL = 2  # the C API's code for "no kernel reads this"


class KoptError(RuntimeError):
    """A call of the library failed; the message is the library's one line."""


class Library:
    """lib<name>.so by ctypes, loaded on first use from $<NAME>_LIBRARY (a
    file), the package's folder, the folder above it, or the system's
    library path. `declare(lib)` gives the package's own functions their
    argument types."""

    def __init__(self, name, package_dir, declare=None):
        self.name = name
        self._dir = package_dir
        self._declare = declare
        self.handle = None  # the ctypes library once loaded (None before: nothing to release)

    def path(self):
        """Where the shared library is looked for first (None: the system's path)."""
        env = os.environ.get(self.name.upper() + "_LIBRARY")
        if env:
            return env
        file = "lib" + self.name + ".so"
        for folder in (self._dir, os.path.dirname(self._dir)):
            if os.path.exists(os.path.join(folder, file)):
                return os.path.join(folder, file)
        return None

    def get(self):
        if self.handle is not None:
            return self.handle
        path = self.path() or "lib" + self.name + ".so"
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise KoptError(f"{self.name}: cannot load the library ({path}): {e}; build it with "
                            f"'cmake --build BUILD --target {self.name}_shared' and set "
                            f"{self.name.upper()}_LIBRARY to BUILD/python/{self.name}/lib{self.name}.so") from None
        c_int, c_void_p = ctypes.c_int, ctypes.c_void_p
        self.function(lib, "last_error").restype = ctypes.c_char_p
        self.function(lib, "devices").restype = c_int
        self.function(lib, "gemm").argtypes = [c_void_p, c_void_p, c_int, c_int, c_void_p, c_int, c_void_p]
        self.function(lib, "dequantize").argtypes = [c_void_p, c_void_p, c_int, c_void_p]
        self.function(lib, "destroy").argtypes = [c_void_p]
        self.function(lib, "destroy").restype = None
        self.function(lib, "kernel").argtypes = [c_void_p]
        self.function(lib, "kernel").restype = ctypes.c_char_p
        if self._declare:
            self._declare(lib)
        self.handle = lib
        return lib

    def function(self, lib, short):
        """<name>_<short> of lib."""
        return getattr(lib, self.name + "_" + short)

    def call(self, short, *args):
        return self.function(self.get(), short)(*args)

    def error(self, message):
        return KoptError(f"{self.name}: {message}")

    def check(self, code, what):
        if code != 0:
            raise self.error(f"{what}: {self.call('last_error').decode()}")

    def devices(self):
        """How many GPUs the library sees (0 without a GPU or a driver)."""
        return self.call("devices")


def as_numpy(library, a, dtype, name):
    """a (a NumPy array, anything numpy.asarray reads, or a torch tensor
    wherever it lives) as a contiguous array of dtype's bits: of the same
    item size and a numeric kind, else one line saying what name must hold."""
    if hasattr(a, "detach"):
        a = a.detach().cpu().numpy()
    a = np.ascontiguousarray(np.asarray(a))
    if a.dtype.itemsize != np.dtype(dtype).itemsize or a.dtype.kind not in np.dtype(dtype).kind + "iuf":
        raise library.error(f"{name} must hold {np.dtype(dtype).name} values; got {a.dtype}")
    return a.view(dtype)


def torch_module(library):
    try:
        import torch
    except ImportError:
        raise library.error("KoptLinear needs PyTorch; the host helpers do not") from None
    return torch


def module_base():
    """torch.nn.Module where PyTorch is installed, else object (the host
    helpers then still import)."""
    try:
        import torch
        return torch.nn.Module
    except ImportError:
        return object


class TorchCalls:
    """What a layer's forward needs of PyTorch, looked up once: a call costs
    microseconds of host time, which a decode step of many layers adds up."""

    def __init__(self, torch, binding):
        self.torch = torch
        self.x_codes = {torch.float16: F16, torch.bfloat16: BF16}
        self.y_codes = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16}
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
                @torch.library.custom_op(binding.library.name + "::linear_rows", mutates_args=())
                def linear_rows(x: torch.Tensor, weights: int, n: int, y_code: int, gemm_rows: int) -> torch.Tensor:
                    return binding.rows(x, weights, n, y_code, gemm_rows)

                @linear_rows.register_fake
                def _(x, weights, n, y_code, gemm_rows):
                    return x.new_empty((*x.shape[:-1], n), dtype=self.y_dtypes[y_code])

                self.op = linear_rows
            except RuntimeError:  # registered already (a second copy of the package): calls stay eager
                self.op = None


class Binding:
    """A library's calls on PyTorch tensors: the rows of a layer's x through
    the kernels, or from gemm_rows rows through one GEMM on W dequantised
    into a temporary tensor of x's dtype."""

    def __init__(self, library):
        self.library = library
        self._calls = None
        # Weights handles whose layout has no dequantiser: their calls stay on
        # the kernels at every M.
        self.no_dequantiser = set()

    def calls(self):
        if self._calls is None:
            self._calls = TorchCalls(torch_module(self.library), self)
        return self._calls

    def dequantize(self, weights, n, k, dtype, device):
        """W as an [n, k] tensor of dtype on `device` (the weights' own); None
        where their layout has no dequantiser."""
        c = self.calls()
        w = c.torch.empty(n, k, dtype=dtype, device=device)
        code = self.library.call("dequantize", weights, w.data_ptr(), c.x_codes[dtype], c.stream(w.get_device()))
        if code == NO_KERNEL:
            return None
        self.library.check(code, "dequantize")
        return w

    def rows(self, x, weights, n, y_code, gemm_rows):
        """A checked call's work: from gemm_rows rows (0: never) one GEMM on the
        dequantised weights, else the library's kernels."""
        c = self.calls()
        rows = x.numel() // x.shape[-1]
        out_dtype = c.y_dtypes[y_code]
        if 0 < gemm_rows <= rows and weights not in self.no_dequantiser:
            w = self.dequantize(weights, n, x.shape[-1], x.dtype, x.device)
            if w is not None:
                return c.linear(x, w).to(out_dtype)
            self.no_dequantiser.add(weights)
        y = c.torch.empty(*x.shape[:-1], n, dtype=out_dtype, device=x.device)
        if rows:
            self.library.check(self.library.call("gemm", weights, x.data_ptr(), c.x_codes[x.dtype], rows,
                                                 y.data_ptr(), y_code, c.stream(x.get_device())), "gemm")
        return y


class Linear(module_base()):
    """y = x · W (+ bias) on a kopt library's kernels; a package's KoptLinear
    sets `_binding` and makes the weights handle (`_adopt`).

    x: fp16 or bf16 [..., K] on the current CUDA device, last dimension
    contiguous; y: [..., N] in out_dtype (default: x's dtype), on the current
    stream. Up to 16 rows at a time run on the library's batched kernels,
    which read the weights once for all of them; from gemm_rows rows on (a
    prompt's prefill) one GEMM on W dequantised into a temporary tensor of
    x's dtype (torch.nn.functional.linear), as engines switch from a GEMV to
    a GEMM where the rows are many; None: never. Calls can be captured in a
    CUDA graph, and under torch.compile a call is one operator
    (<library>::linear_rows), so it traces without a break.
    """

    _binding = None

    def _adopt(self, make_handle, in_features, out_features, bias, out_dtype, gemm_rows):
        """Creates the weights on the current device by make_handle(stream, out)
        (a C call filling a handle) and keeps what forward needs."""
        binding = self._binding
        library = binding.library
        torch = torch_module(library)
        binding.calls()  # PyTorch's calls and the operator, set up here: never first inside a traced forward
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        if library.devices() < 1:
            raise library.error("no GPU: the library sees no device (" + library.call("last_error").decode() + ")")
        handle = ctypes.c_void_p()
        stream = torch.cuda.current_stream().cuda_stream
        library.check(make_handle(ctypes.c_void_p(stream), ctypes.byref(handle)), "creating weights")
        self._handle = handle
        self._weights = handle.value  # the handle as a plain int, which torch.compile reads as a constant
        self.device = torch.device("cuda", torch.cuda.current_device())  # where the weights are
        self.bias = None if bias is None else torch.nn.Parameter(bias.detach().cuda(), requires_grad=False)
        self.out_dtype = out_dtype
        self.gemm_rows = gemm_rows
        self.kernel = library.call("kernel", handle).decode()

    def __del__(self):
        handle = getattr(self, "_handle", None)
        library = self._binding.library
        if handle and library.handle is not None:
            self._binding.no_dequantiser.discard(handle.value)
            library.function(library.handle, "destroy")(handle)
            self._handle = None

    def dequantize(self, dtype=None):
        """W as a [N, K] tensor of fp16 or bf16 (default: bfloat16) on the GPU,
        rounded once from the format's fp32 value, in x's K order (nn.Linear's
        weight layout); None where the shape's kernel keeps the weights in a
        layout of its own."""
        c = self._binding.calls()
        dtype = dtype or c.torch.bfloat16
        if dtype not in c.x_codes:
            raise self._binding.library.error(f"the dequantised weights must be float16 or bfloat16; got {dtype}")
        return self._binding.dequantize(self._weights, self.out_features, self.in_features, dtype, self.device)

    def forward(self, x):
        binding = self._binding
        c = binding.calls()
        error = binding.library.error
        if x.dtype not in c.x_codes:
            raise error(f"x must be float16 or bfloat16; got {x.dtype}")
        if not x.is_cuda:
            raise error(f"x must be on a CUDA device; got {x.device}")
        if x.shape[-1] != self.in_features:
            raise error(f"x's last dimension must be K = {self.in_features}; got shape {tuple(x.shape)}")
        if not x.is_contiguous():
            raise error(f"x must be contiguous (rows of K elements); got stride {x.stride()}")
        out_dtype = self.out_dtype or x.dtype
        y_code = c.y_codes.get(out_dtype)
        if y_code is None:
            raise error(f"the output must be float32, float16 or bfloat16; got {out_dtype}")
        gemm_rows = self.gemm_rows or 0
        if c.op is not None and c.compiling():
            y = c.op(x, self._weights, self.out_features, y_code, gemm_rows)
        else:
            y = binding.rows(x, self._weights, self.out_features, y_code, gemm_rows)
        if self.bias is not None:
            y.add_(self.bias.to(out_dtype))  # y is this call's own tensor: no second one
        return y
