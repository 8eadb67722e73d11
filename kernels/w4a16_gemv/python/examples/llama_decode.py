"""A transformers Llama decoding on kopt's kernels: the example an engine
integrator reads first.

Builds a Llama with Llama-3-8B's layer sizes and a few layers from its
config (random weights: nothing is downloaded), quantises every linear layer
of the decoder to int4 (asymmetric, group size G) and packs it as AutoAWQ's
GEMM layout (--bits 8: to int8 with a scale per output channel), then
compares three copies of the same model:
  kopt   the linear layers replaced by kopt_w4a16.KoptLinear (from the AWQ tensors;
         from 32 rows, a prefill's, one GEMM on the weights dequantised per call),
         or with --bits 8 kopt_w8a16.KoptLinear (from the int8 weights and scales;
         the GEMM from 17 rows)
  ref    the same model on the dequantised weights in bf16 (cuBLAS)
  int4   PyTorch's int4 weight-only path (torch._weight_int4pack_mm) on the same shapes,
         or with --bits 8 its int8 weight-only path (torch._weight_int8pack_mm)
The logits of kopt and ref are compared step by step on the same tokens
(greedy decoding by ref, fed to both); decode steps are timed at each batch M
of --batches (one token per sequence per step, a KV cache), and a prefill of
--prefill tokens of one sequence (every linear layer then sees that many rows).

    PYTHONPATH=BUILD/python python3 llama_decode.py [--bits 4|8] [--layers 4] [--group 128]
        [--steps 32] [--batches 1,2,4,8,16] [--prefill 512]

Timing: each step is one model forward of one token per sequence, after
warm-up, averaged over --steps with torch.cuda.synchronize around; it
includes PyTorch's own per-layer host cost, the same for the three models.
The GPU time of a step is its kernels' durations summed by PyTorch's
profiler over 8 steps (what a step costs once replayed from a CUDA graph, as
engines decode). The prefill is one forward of the prompt without a cache,
after one untimed, the median of five.
The PyTorch paths' codes are random (their values are not compared; their
speed does not depend on them).
"""
import argparse
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM

import kopt_w4a16 as kw

AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]  # AutoAWQ packs column AWQ_ORDER[i] of eight into nibble i
LINEARS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def quantise_awq(weight, group):
    """nn.Linear weight [N, K] -> AWQ tensors (qweight [K, N/8], qzeros [K/G, N/8], scales fp16
    [K/G, N]) and the dequantised weight [N, K] w = (q − z)·s the format defines."""
    w = weight.detach().float().t().contiguous()  # [K, N]
    K, N = w.shape
    g = w.view(K // group, group, N)
    lo, hi = g.amin(dim=1), g.amax(dim=1)
    scales = ((hi - lo).clamp(min=1e-8) / 15).half()
    s = scales.float()
    zeros = torch.round(-lo / s).clamp(0, 15)
    q = torch.clamp(torch.round(g / s[:, None, :]) + zeros[:, None, :], 0, 15).view(K, N)
    dequant = ((q.view(K // group, group, N) - zeros[:, None, :]) * s[:, None, :]).view(K, N)

    def pack(codes):  # [R, N] -> int32 [R, N/8] in AWQ's order
        codes = codes.to(torch.int64)
        out = torch.zeros(codes.shape[0], N // 8, dtype=torch.int64, device=codes.device)
        for i, col in enumerate(AWQ_ORDER):
            out |= codes[:, col::8] << (4 * i)
        return torch.where(out >= 2 ** 31, out - 2 ** 32, out).to(torch.int32)

    return pack(q), pack(zeros), scales, dequant.t().contiguous()


class KoptProjection(torch.nn.Module):
    """KoptLinear behind the nn.Linear interface (x made contiguous first)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x.contiguous())


class TorchInt4Linear(torch.nn.Module):
    """PyTorch's int4 weight-only kernel (tinygemm, bf16, tensor cores) for one shape."""

    def __init__(self, K, N, group):
        super().__init__()
        codes = torch.randint(0, 256, (N, K // 2), dtype=torch.uint8, device="cuda")
        self.packed = torch.ops.aten._convert_weight_to_int4pack(codes, 8)
        self.scales_zeros = torch.randn(K // group, N, 2, device="cuda", dtype=torch.bfloat16) * 0.01
        self.group, self.N = group, N

    def forward(self, x):
        y = torch.ops.aten._weight_int4pack_mm(x.reshape(-1, x.shape[-1]), self.packed, self.group,
                                               self.scales_zeros)
        return y.view(*x.shape[:-1], self.N)


class TorchInt8Linear(torch.nn.Module):
    """PyTorch's int8 weight-only kernel (int8 [N, K], a bf16 scale per channel) for one shape."""

    def __init__(self, K, N):
        super().__init__()
        self.q = torch.randint(-128, 128, (N, K), dtype=torch.int8, device="cuda")
        self.scales = torch.rand(N, device="cuda", dtype=torch.bfloat16) * 0.01
        self.N = N

    def forward(self, x):
        y = torch._weight_int8pack_mm(x.reshape(-1, x.shape[-1]), self.q, self.scales)
        return y.view(*x.shape[:-1], self.N)


def replace(model, make):
    for layer in model.model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for name in LINEARS:
                if hasattr(parent, name):
                    setattr(parent, name, make(getattr(parent, name)))


def _decode_start(model, batch, prompt):
    """A prompt of `batch` random sequences and three warm-up decode steps:
    the cache and the token the timed steps decode from."""
    ids = torch.randint(0, model.config.vocab_size, (batch, prompt), device="cuda")
    out = model(input_ids=ids, use_cache=True)
    cache, token = out.past_key_values, out.logits[:, -1:].argmax(-1)
    for _ in range(3):
        cache = model(input_ids=token, past_key_values=cache, use_cache=True).past_key_values
    torch.cuda.synchronize()
    return cache, token


def _decode_steps(model, cache, token, steps):
    for _ in range(steps):
        cache = model(input_ids=token, past_key_values=cache, use_cache=True).past_key_values
    torch.cuda.synchronize()


@torch.no_grad()
def time_decode(model, batch, steps, prompt=8):
    cache, token = _decode_start(model, batch, prompt)
    start = time.perf_counter()
    _decode_steps(model, cache, token, steps)
    return (time.perf_counter() - start) / steps * 1e3


@torch.no_grad()
def gpu_decode_ms(model, batch, steps, prompt=8):
    """The GPU's time of a decode step: the durations of its kernels summed by
    PyTorch's profiler (every kernel of the process, the library's too). A
    step replayed from a CUDA graph, as engines run decode, costs about this
    once the host no longer launches each kernel."""
    from torch.profiler import ProfilerActivity, profile
    cache, token = _decode_start(model, batch, prompt)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        _decode_steps(model, cache, token, steps)
    total_us = sum(getattr(e, "self_device_time_total", 0) for e in prof.key_averages())
    return total_us / steps / 1e3


@torch.no_grad()
def time_prefill(model, tokens, repeats=5):
    ids = torch.randint(0, model.config.vocab_size, (1, tokens), device="cuda")
    model(input_ids=ids, use_cache=False)
    times = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        model(input_ids=ids, use_cache=False)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[repeats // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bits", type=int, choices=(4, 8), default=4,
                    help="4: kopt_w4a16 on AWQ int4; 8: kopt_w8a16 on int8 with a scale per channel")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--group", type=int, default=128)
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--batches", default="1,2,4,8,16", help="decode batch sizes M, comma-separated")
    ap.add_argument("--prefill", type=int, default=512, help="prompt tokens of the timed prefill (0: none)")
    args = ap.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    torch.manual_seed(0)
    # cuDNN's attention builds a plan for every new KV length, milliseconds
    # each: whichever model first meets a length would pay for it. The flash
    # and memory-efficient kernels have no such cost.
    torch.backends.cuda.enable_cudnn_sdp(False)
    config = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_attention_heads=32,
                         num_key_value_heads=8, vocab_size=128256, num_hidden_layers=args.layers,
                         max_position_embeddings=8192, rope_theta=500000.0, rms_norm_eps=1e-5)
    with torch.device("cuda"):
        ref = LlamaForCausalLM(config).to(torch.bfloat16).eval()
    if args.bits == 8:
        import kopt_w8a16 as library
        weights = "int8 with a scale per channel"
    else:
        library = kw
        weights = f"int4 group {args.group}"
    print(f"device: {torch.cuda.get_device_name()}; torch {torch.__version__}; Llama-3-8B layer sizes, "
          f"{args.layers} layers, {weights}; library: {library.library_path()}")

    # Quantise, keep the quantised tensors for kopt, put the dequantised weights in ref.
    # (in the order replace() visits the layers)
    quantised = []
    for layer in ref.model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for name in LINEARS:
                if hasattr(parent, name):
                    lin = getattr(parent, name)
                    if args.bits == 8:
                        q, scales = library.quantize_per_channel(lin.weight)
                        dequant = q.float() * scales.float()[:, None]
                        quantised.append((q, scales))
                    else:
                        qweight, qzeros, scales, dequant = quantise_awq(lin.weight, args.group)
                        quantised.append((qweight, qzeros, scales))
                    lin.weight.data = dequant.to(torch.bfloat16)

    with torch.device("cuda"):
        kopt = LlamaForCausalLM(config).to(torch.bfloat16).eval()
    kopt.load_state_dict(ref.state_dict())
    kernels = set()
    next_weights = iter(quantised)

    def to_kopt(lin):
        if args.bits == 8:
            layer = library.KoptLinear.from_int8(*next(next_weights))
        else:
            layer = kw.KoptLinear.from_awq(*next(next_weights), args.group)
        kernels.add(f"{layer.in_features}x{layer.out_features}: {layer.kernel[:60]}")
        return KoptProjection(layer)

    replace(kopt, to_kopt)
    torch.cuda.empty_cache()
    print("kopt kernels:\n  " + "\n  ".join(sorted(kernels)))

    # Logits: greedy decoding by ref; the same tokens fed to kopt.
    with torch.no_grad():
        ids = torch.randint(0, config.vocab_size, (1, 8), device="cuda")
        out_r = ref(input_ids=ids, use_cache=True)
        out_k = kopt(input_ids=ids, use_cache=True)
        worst_rel, agree, steps = 0.0, 0, 16
        for step in range(steps):
            lr, lk = out_r.logits[:, -1].float(), out_k.logits[:, -1].float()
            worst_rel = max(worst_rel, ((lk - lr).abs().max() / lr.abs().max()).item())
            agree += int(lr.argmax() == lk.argmax())
            token = lr.argmax(-1, keepdim=True)
            out_r = ref(input_ids=token, past_key_values=out_r.past_key_values, use_cache=True)
            out_k = kopt(input_ids=token, past_key_values=out_k.past_key_values, use_cache=True)
    print(f"logits over {steps} greedy steps: max |kopt - ref| / max |ref| = {worst_rel:.4f}; "
          f"argmax equal on {agree} of {steps}")

    with torch.device("cuda"):
        peer = LlamaForCausalLM(config).to(torch.bfloat16).eval()
    if args.bits == 8:
        replace(peer, lambda lin: TorchInt8Linear(lin.in_features, lin.out_features))
        peer_name = "PyTorch int8 (_weight_int8pack_mm)"
    else:
        replace(peer, lambda lin: TorchInt4Linear(lin.in_features, lin.out_features, args.group))
        peer_name = "PyTorch int4 (_weight_int4pack_mm)"
    models = (("kopt (KoptLinear, bf16 in and out)", kopt),
              (peer_name, peer),
              ("bf16 weights (cuBLAS)", ref))
    # A first decode of each model at each M, untimed: the first forwards of a
    # process pay for library loading and attention's autotuning.
    for _, model in models:
        for batch in batches:
            time_decode(model, batch, 4)
    print("\n| decode step (ms) | " + " | ".join(f"M = {b}" for b in batches) + " |")
    print("|---|" + "---|" * len(batches))
    for name, model in models:
        print(f"| {name} | " + " | ".join(f"{time_decode(model, b, args.steps):.3f}" for b in batches) + " |")
    print("\n| GPU time of a decode step (ms; its kernels summed) | " + " | ".join(f"M = {b}" for b in batches)
          + " |")
    print("|---|" + "---|" * len(batches))
    for name, model in models:
        print(f"| {name} | " + " | ".join(f"{gpu_decode_ms(model, b, 8):.3f}" for b in batches) + " |")
    if args.prefill > 0:
        print(f"\n| prefill of {args.prefill} tokens (ms) | |\n|---|---|")
        for name, model in models:
            print(f"| {name} | {time_prefill(model, args.prefill):.3f} |")
    # Random weights give near-uniform logits whose argmax the bf16 rounding
    # of either model can flip, so the check is on the logits themselves.
    ok = worst_rel < 0.05
    print("logits within tolerance" if ok else "LOGITS OUTSIDE TOLERANCE")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
