#!/usr/bin/env python3
"""Writes kopt's replay set: answers in the styles real models give to kopt's
prompt (full kernels, contracts in their own block or missing, SEARCH/REPLACE
edits exact or with indentation drift, a reasoning preamble, other fences,
prose around code, broken kernels of every kind). The kernels are derived
from the seeds in this tree, so the set follows the seeds as they change.

Usage: make_answers.py SOURCE_DIR OUT_DIR [--parent FILE]
With --parent, the answers are written as kopt's answer parser would receive
them with FILE as the parent (what the replay server fills in, tool calls as
the client hands them on): the offline check of the set.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answer_fill  # noqa: E402

src, out = sys.argv[1], sys.argv[2]
parent = open(sys.argv[4]).read() if len(sys.argv) > 4 and sys.argv[3] == "--parent" else None
os.makedirs(out, exist_ok=True)
gen = open(os.path.join(src, "seeds/w4a16_gemv/gen.hip")).read()
dot = open(os.path.join(src, "seeds/w4a16_gemv/dot.hip")).read()


def with_defaults(source, name, description, **defaults):
    """The seed with new default parameter values, a new name and description."""
    s = re.sub(r'"name": "[a-z]+"', f'"name": "{name}"', source, count=1)
    s = re.sub(r'"description": ".*?",\n', f'"description": "{description}",\n', s, count=1,
               flags=re.S)
    for key, value in defaults.items():
        s, n = re.subn(rf'("{key}":\s*{{"values": \[[^\]]*\], "default": )\d+', rf"\g<1>{value}", s)
        assert n == 1, key
    return s


def split_contract(source):
    """(contract JSON text, code after the contract comment)."""
    m = re.match(r"/\* kopt:\n(.*?)\n\*/\n(.*)", source, re.S)
    return m.group(1), m.group(2)


answers = {}
# The kernel that should win on 5120x3072: the generator seed with the
# parameters a tuning run found for that shape as its defaults.
tuned = with_defaults(gen, "gen-deep-ring",
                      "gen with a three-stage ring, two columns per lane group, 8 warps, 3 blocks per SM",
                      DEPTH=3, ROWS=2, WARPS=8, OCC=3, HINT=1)
answers["01-gpt4o-full-kernel"] = (
    "Here is an optimized kernel. I deepen the load pipeline and use more warps per block so "
    "more bytes are in flight.\n\n```hip\n" + tuned + "```\n\nThis should hide DRAM latency better.")
# Claude style: reasoning in prose, the kernel, then a summary sentence.
wide = with_defaults(gen, "gen-wide", "gen with four columns per lane group", ROWS=4, DEPTH=2,
                     WARPS=8, OCC=2)
answers["02-claude-prose-and-kernel"] = (
    "Looking at the parent, each lane re-reads the x planes for every column pair. Processing four "
    "columns per lane group amortises those shared-memory reads further.\n\n```hip\n" + wide +
    "```\n\nSummary: ROWS=4 halves shared-memory traffic per weight.")
# DeepSeek-R1: a long <think> preamble with code-like fragments before the answer.
r1 = with_defaults(gen, "gen-r1", "gen with x prefetch and 8 warps", XPF=1, WARPS=8, OCC=2)
answers["03-deepseek-r1-think"] = (
    "<think>\nThe kernel is memory bound. Maybe ```hip fragments``` like `q[d][r]` matter. Let me "
    "consider DEPTH... 16-byte loads, Little's law says 20 KB per SM.\n</think>\n\nI prefetch the "
    "next step's x while computing the current one.\n\n```hip\n" + r1 + "```")
# The contract in its own ```json block, the code in another.
contract, code = split_contract(with_defaults(gen, "gen-json", "gen, contract apart", WARPS=8,
                                              OCC=3, DEPTH=3))
answers["04-contract-in-json-block"] = (
    "Contract:\n```json\n" + contract + "\n```\nKernel:\n```hip\n" + code + "```\n"
    "Three stages and three blocks per SM.")
# Llama 3: a ```cpp fence.
llama = with_defaults(gen, "gen-llama", "gen with 8 warps", WARPS=8, OCC=4)
answers["05-llama3-cpp-fence"] = "Sure! Here's the improved kernel:\n\n```cpp\n" + llama + "```\n"
# Qwen2.5-Coder: the parent's code changed in one line, without its
# /* kopt: */ block (it inherits the parent's). The server fills in the
# parent from the prompt it receives, as the model copies it.
answers["06-qwen-no-contract"] = (
    "```hip\n{{PARENT_BODY}}```\nI load more of x per thread in the prologue.")
# SEARCH/REPLACE, exact: the parent's own XLOADS line (the server fills it
# in from the prompt: the parent is whichever the run picked).
answers["07-search-replace-exact"] = (
    "{{PARENT_EXACT_EDIT}}Fewer x loads per thread: less register pressure in the prologue.")
# SEARCH/REPLACE with the indentation drifted (two spaces instead of four).
answers["08-search-replace-indent-drift"] = (
    "<<<<<<< SEARCH\n  lo = kopt_dot4_u8(pj[0], even, lo);\n  lo = kopt_dot4_u8(pj[1], odd, lo);\n"
    "=======\n  lo = kopt_dot4_u8(pj[1], odd, kopt_dot4_u8(pj[0], even, lo));\n>>>>>>> REPLACE\n"
    "Fuses two dp4a into one expression.")
# An edit written against a different kernel than the parent.
answers["09-search-against-other-kernel"] = (
    "<<<<<<< SEARCH\nfor (int k = threadIdx.x; k < K; k += blockDim.x) {\n=======\n"
    "for (int k = threadIdx.x * 2; k < K; k += 2 * blockDim.x) {\n>>>>>>> REPLACE\n")
# A compile error (undeclared identifier).
broken = with_defaults(gen, "gen-typo", "gen with a typo", WARPS=8)
assert "part[r] += sof.x" in broken, "gen's sums moved: update the compile-error answer"
broken = broken.replace("part[r] += sof.x", "part[r] += sofx.x", 1)
answers["10-compile-error"] = "```hip\n" + broken + "```\nUses the scale directly."
# Wrong results: the offset term dropped.
wrong = with_defaults(gen, "gen-no-offset", "gen without the offset term", WARPS=8)
assert " + sof.y * x.meta.x;" in wrong, "gen's offset term moved: update the wrong-result answer"
wrong = wrong.replace(" + sof.y * x.meta.x;", ";")
answers["11-wrong-result"] = "```hip\n" + wrong + "```\nThe offset term is negligible, dropped."
# Tensor cores in inline assembly: refused by the rules.
mma = with_defaults(gen, "gen-mma", "gen with an mma", WARPS=8)
mma = mma.replace("KOPT_INLINE uint4 load_weights(",
                  'KOPT_INLINE void use_tensor_cores() { asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {};"); }\n'
                  "KOPT_INLINE uint4 load_weights(", 1)
answers["12-tensor-cores"] = "```hip\n" + mma + "```\nTensor cores are faster."
# A contract missing a required field (a small model's slip).
c, code = split_contract(with_defaults(gen, "gen-nolaunch", "no launches", WARPS=8))
cj = json.loads(c)
del cj["launches"]
answers["13-contract-missing-launches"] = (
    "```hip\n/* kopt:\n" + json.dumps(cj, indent=2) + "\n*/\n" + code + "```")
# A refusal with no code.
answers["14-no-code"] = "I'm sorry, but I can't optimise this kernel further without profiling data."
# Truncated mid-code (max_tokens hit).
answers["15-truncated"] = "```hip\n" + gen[: len(gen) // 2]
# A second good kernel in a terse style.
terse = with_defaults(gen, "gen-terse", "gen, 4 stages, 16 lanes per column", LPR=16, WARPS=8,
                      OCC=3, DEPTH=4)
answers["16-terse-full-kernel"] = "```hip\n" + terse + "```"

# ---- Round 2: styles that lost correct work before (issue: model answers, round 2).
# A unified diff of the parent (the server writes it from the parent the prompt
# shows, as a model copies it: one line changed).
answers["17-unified-diff"] = (
    "Here is the change as a patch:\n\n```diff\n{{PARENT_DIFF}}```\n"
    "Eight x loads per thread keep more of x in flight.")
# A SEARCH block that elides unchanged lines with a comment (the server picks
# lines of the parent around the edit).
answers["18-search-elided"] = (
    "Six x loads per thread; I only touch the x prologue:\n\n{{PARENT_ELIDED_EDIT}}\n"
    "The lines marked unchanged stay as they are.")
# A tool call written as the whole answer (the source in a string field).
tool = with_defaults(gen, "gen-tool", "gen via a tool call", WARPS=8, OCC=3, DEPTH=2)
answers["19-tool-call-as-text"] = json.dumps(
    {"name": "submit_kernel", "arguments": json.dumps({"source": tool, "idea": "8 warps, 2 stages"})})
# Two blocks: the first withdrawn as buggy, the second the announced fix.
first = with_defaults(gen, "gen-draft", "a draft with a typo", WARPS=8, OCC=2)
first = first.replace("part[r] += sof.x", "part[r] += sofx.x", 1)
fixed = with_defaults(gen, "gen-fixed", "the corrected draft", WARPS=8, OCC=2)
answers["20-two-blocks-second-is-the-fix"] = (
    "First attempt:\n```hip\n" + first + "```\n"
    "Wait, that version uses an undeclared name (`sofx`). Here is the corrected kernel:\n"
    "```hip\n" + fixed + "```\n")
# A complete program around the kernel: includes, main(), allocations, the launch.
prog = with_defaults(gen, "gen-program", "gen inside a whole program", WARPS=8, OCC=4, DEPTH=3)
answers["21-whole-program"] = (
    "Complete, compilable program:\n\n```cpp\n#include <hip/hip_runtime.h>\n#include <cstdio>\n\n"
    + prog +
    "\nint main() {\n  __half* x; kopt_u8* w; float* y; float* ws;\n"
    "  hipMalloc(&x, 5120 * 2); hipMalloc(&w, 1 << 24); hipMalloc(&y, 3072 * 4); hipMalloc(&ws, 1 << 20);\n"
    "  hipLaunchKernelGGL(gemv, dim3(64), dim3(256), 0, 0, x, w, y, ws, 5120, 3072, 64);\n"
    "  hipDeviceSynchronize();\n  printf(\"done\\n\");\n  return 0;\n}\n```\n"
    "Build with hipcc and run.")
# A real tool call: the server answers with tool_calls (the file holds the arguments).
answers["22-tool-calls-response"] = json.dumps(
    {"source": with_defaults(gen, "gen-toolcall", "gen via tool_calls", WARPS=8, OCC=4, DEPTH=2),
     "idea": "4 blocks per SM, 2 stages"})

for name, text in answers.items():
    if parent is not None:
        text = answer_fill.fill_from_parent(text, parent)
        if answer_fill.is_tool_call(name):
            text = answer_fill.as_client_text(text)
    with open(os.path.join(out, name + ".md"), "w") as f:
        f.write(text)
print(f"{len(answers)} answers in {out}")
