#!/bin/bash
# One bf16 row: the library before (batch-1 kernels with x and y converted) and after (1-row batched builds), alternating, for W4A16 and W8A16; odd shapes; the bindings' tests; the Llama examples at one and two rows.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p $OUT/r
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 4096x4096 4096x1024 4096x14336 14336x4096"
for round in 1 2; do
  .device/old/kopt_w4a16_example --rows 1 --io bf16-bf16 $S > $OUT/r/w4-before-$round.txt 2>&1; echo "rc $?" >> $OUT/r/w4-before-$round.txt
  .device/kopt_w4a16_example --rows 1 --io bf16-bf16 $S > $OUT/r/w4-after-$round.txt 2>&1; echo "rc $?" >> $OUT/r/w4-after-$round.txt
  .device/old/kopt_w8a16_example --rows 1 --io bf16-bf16 $S > $OUT/r/w8-before-$round.txt 2>&1; echo "rc $?" >> $OUT/r/w8-before-$round.txt
  .device/kopt_w8a16_example --rows 1 --io bf16-bf16 $S > $OUT/r/w8-after-$round.txt 2>&1; echo "rc $?" >> $OUT/r/w8-after-$round.txt
done
.device/kopt_w4a16_example --rows 1,2,17 --io bf16-bf16 2048x2880 96x10/g32 4096x7168/g128 8192x1024 8224x64/g32 32x33/g32 > $OUT/r/w4-odd.txt 2>&1; echo "rc $?" >> $OUT/r/w4-odd.txt
.device/kopt_w4a16_example --rows 1,3 --io fp16-fp16 2048x2880 384x5120 > $OUT/r/w4-odd-fp16.txt 2>&1; echo "rc $?" >> $OUT/r/w4-odd-fp16.txt
.device/kopt_w8a16_example --rows 1,2,17 --io bf16-bf16 1000x1000 4095x33 16x33 4096x777 65536x1024 > $OUT/r/w8-odd.txt 2>&1; echo "rc $?" >> $OUT/r/w8-odd.txt
for f in w4-odd w4-odd-fp16 w8-odd; do echo "$f: $(grep -c ' ok ' $OUT/r/$f.txt) ok, $(grep -ci 'fail\|wrong' $OUT/r/$f.txt) fail; $(tail -1 $OUT/r/$f.txt)"; done
grep -h "M 1 " $OUT/r/w4-after-1.txt | head -20
(cd tests/library && PYTHONPATH=$OLDPWD/.device/python timeout 240 python3 -m unittest test_python_w8a16_gpu test_python_w8a16 test_python_binding_gpu test_python_binding) > $OUT/r/binding-tests.txt 2>&1; echo "rc $?" >> $OUT/r/binding-tests.txt
tail -4 $OUT/r/binding-tests.txt
cd kernels/w4a16_gemv/python/examples
for b in 4 8; do PYTHONPATH=$OLDPWD/.device/python timeout 200 python3 llama_decode.py --bits $b --layers 4 --steps 16 --batches 1,2 --prefill 0 2>&1 | grep -v -i warn > $OUT/r/llama-w$b.txt; echo "rc ${PIPESTATUS[0]}" >> $OUT/r/llama-w$b.txt; grep -A5 "GPU time" $OUT/r/llama-w$b.txt; done
date -u
