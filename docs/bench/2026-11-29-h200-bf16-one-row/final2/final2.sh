#!/bin/bash
# Final checks on HEAD: the tuned 2-row W8A16 build (the contest shapes at 2 rows, 1536x6144 in every dtype pair and odd rows), both bindings' tests, both examples at one bf16 row (their descriptions) and the Llama examples at one row. Outputs in one tar.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p /tmp/z
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
.device/kopt_w8a16_example --rows 2 $S > /tmp/z/w8-two.txt 2>&1; echo "rc $?" >> /tmp/z/w8-two.txt
for io in fp16-fp32 fp16-fp16 bf16-bf16 bf16-fp32; do .device/kopt_w8a16_example --rows 1,2,3,17 --io $io 1536x6144; done > /tmp/z/w8-tuned-io.txt 2>&1; echo "rc $?" >> /tmp/z/w8-tuned-io.txt
grep -E "1536 x 6144  M 2 |failed" /tmp/z/w8-two.txt /tmp/z/w8-tuned-io.txt | cut -c1-150
python3 - <<'PY'
import re
t=0
for l in open("/tmp/z/w8-two.txt"):
    m=re.search(r"M 2\s+io \S+ ok\s+([\d.]+) us",l)
    if m: t+=float(m[1])
print("w8 two rows, contest sum", round(t,2))
PY
.device/kopt_w4a16_example --rows 1 --io bf16-bf16 $S 4096x14336 > /tmp/z/w4-bf16.txt 2>&1; echo "rc $?" >> /tmp/z/w4-bf16.txt
grep -c "one bf16 row" /tmp/z/w4-bf16.txt; tail -n 2 /tmp/z/w4-bf16.txt
(cd tests/library && PYTHONPATH=$OLDPWD/.device/python timeout 240 python3 -m unittest test_python_w8a16_gpu test_python_w8a16 test_python_binding_gpu test_python_binding) > /tmp/z/binding-tests.txt 2>&1; echo "rc $?" >> /tmp/z/binding-tests.txt
tail -n 3 /tmp/z/binding-tests.txt
cd kernels/w4a16_gemv/python/examples
for b in 4 8; do PYTHONPATH=$OLDPWD/.device/python timeout 200 python3 llama_decode.py --bits $b --layers 4 --steps 16 --batches 1,2 --prefill 0 2>&1 | grep -v -i warn > /tmp/z/llama-w$b.txt; echo "rc ${PIPESTATUS[0]}" >> /tmp/z/llama-w$b.txt; grep -A5 "GPU time" /tmp/z/llama-w$b.txt; done
tar -C /tmp -czf $OUT/final2.tgz z
date -u
