#!/bin/bash
# After the refactors: both bindings' tests, and both examples at 1 to 16 rows in fp16 (the batch-1 routing of fp16 rows unchanged) and in bf16. Outputs in one tar.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p /tmp/f
(cd tests/library && PYTHONPATH=$OLDPWD/.device/python timeout 240 python3 -m unittest -v test_python_w8a16_gpu test_python_w8a16 test_python_binding_gpu test_python_binding) > /tmp/f/binding-tests.txt 2>&1; echo "rc $?" >> /tmp/f/binding-tests.txt
tail -n 4 /tmp/f/binding-tests.txt
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
.device/kopt_w4a16_example --rows 1,2,4,8,16 $S > /tmp/f/w4-fp16.txt 2>&1; echo "rc $?" >> /tmp/f/w4-fp16.txt
.device/kopt_w8a16_example --rows 1,2,4,8,16 $S > /tmp/f/w8-fp16.txt 2>&1; echo "rc $?" >> /tmp/f/w8-fp16.txt
.device/kopt_w4a16_example --rows 1,3,16 --io bf16-bf16 $S > /tmp/f/w4-bf16.txt 2>&1; echo "rc $?" >> /tmp/f/w4-bf16.txt
.device/kopt_w8a16_example --rows 1,3,16 --io bf16-bf16 $S > /tmp/f/w8-bf16.txt 2>&1; echo "rc $?" >> /tmp/f/w8-bf16.txt
for f in w4-fp16 w8-fp16 w4-bf16 w8-bf16; do echo "$f: $(tail -n 2 /tmp/f/$f.txt | tr '\n' ' ')"; done
python3 - <<'PY'
import re
for f in ("w4-fp16","w8-fp16"):
    sums={}
    for l in open(f"/tmp/f/{f}.txt"):
        m=re.search(r"M (\d+)\s+(?:io \S+ )?ok\s+([\d.]+) us",l)
        if m: sums[int(m[1])]=sums.get(int(m[1]),0)+float(m[2])
    print(f, {k: round(v,2) for k,v in sorted(sums.items())})
PY
tar -C /tmp -czf $OUT/final1.tgz f
date -u
