#!/usr/bin/env python3
"""Assembles each named kernel of two PTX files on its own (ptxas -O3, sm_90) and says whether the two cubins are the
same bytes. Usage: function_cubins.py A.ptx B.ptx FUNCTION... The PTX files came from
  nvcc -O2 -DNDEBUG -std=c++17 $(cat build/kernels/w4a16_gemv/CMakeFiles/kopt_w4a16.dir/includes_CUDA.rsp) \
       -x cu -ptx -arch=sm_90 kernels/w4a16_gemv/kopt_w4a16_batched.hip
with the klanes seed of each commit in seeds/w4a16_batch/klanes.hip."""
import hashlib, re, subprocess, sys, tempfile, os

def split(path):
    text = open(path).read()
    first = text.index(".entry")
    head = text[: text.rfind("\n", 0, first) + 1]  # module header: version, target, shared declarations
    return head, {m.group(2): m.group(0) for m in re.finditer(r"(\.visible\s+)?\.entry (\w+)\((.*?)\n}\n", text, re.S)}

def cubin(head, body):
    with tempfile.TemporaryDirectory() as d:
        ptx, out = os.path.join(d, "f.ptx"), os.path.join(d, "f.cubin")
        open(ptx, "w").write(head + body)
        subprocess.run(["ptxas", "-O3", "-arch=sm_90", ptx, "-o", out], check=True, capture_output=True)
        return hashlib.sha1(open(out, "rb").read()).hexdigest()

(head_a, a), (head_b, b) = split(sys.argv[1]), split(sys.argv[2])
for name in sys.argv[3:]:
    print(name, "same cubin" if cubin(head_a, a[name]) == cubin(head_b, b[name]) else "different cubin")
