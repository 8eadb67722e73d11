#!/bin/bash
# The batched kernels reading and writing fp16/bf16 themselves: checks, the example old/new, the Llama decode.
R=$PWD; D=$R/.device
echo "binaries: $(cat $D/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p $OUT/io
(cd tests/library && PYTHONPATH=$D/python timeout 300 python3 -m unittest -v test_python_binding_gpu test_python_binding > $OUT/io/binding-tests.txt 2>&1; tail -4 $OUT/io/binding-tests.txt)
timeout 300 $D/kopt_tests --gtest_filter='GpuTest.EverySeedVerifiesOnAssortedShapes:GpuTest.Klanes*:GpuTest.Xrows*' > $OUT/io/seed-tests.txt 2>&1; tail -3 $OUT/io/seed-tests.txt
for m in 16 8; do for v in old new; do
  b=$D/kopt_w4a16_example; [ $v = old ] && b=$D/old/kopt_w4a16_example
  timeout 200 $b --rows $m > $OUT/io/example-m$m-$v.txt 2>&1; echo "m$m $v rc $? $(tail -1 $OUT/io/example-m$m-$v.txt)"
done; done
for m in 1,2,3,4,5,16; do timeout 200 $D/kopt_w4a16_example --rows $m 2048x2880 4096x7168/g128 384x5120 > $OUT/io/example-rows-new.txt 2>&1; echo "rows $m rc $? $(tail -1 $OUT/io/example-rows-new.txt)"; done
cd kernels/w4a16_gemv/python/examples
for v in new old; do
  p=$D/python; [ $v = old ] && p=$D/old/python
  PYTHONPATH=$p timeout 280 python3 llama_decode.py --layers 4 --group 128 --steps 16 --prefill 0 > $OUT/io/llama-$v.txt 2>&1; echo "llama $v rc $?"; tail -12 $OUT/io/llama-$v.txt
done
date -u
