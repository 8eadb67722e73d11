#!/bin/bash
# Second form (no spills at 16 rows): checks, the example old/new alternating at 16, 8, 4 and 2 rows, the Llama decode.
R=$PWD; D=$R/.device
echo "binaries: $(cat $D/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p $OUT/io2
(cd tests/library && PYTHONPATH=$D/python timeout 300 python3 -m unittest -v test_python_binding_gpu test_python_binding > $OUT/io2/binding-tests.txt 2>&1; tail -3 $OUT/io2/binding-tests.txt)
timeout 300 $D/kopt_tests --gtest_filter='GpuTest.EverySeedVerifiesOnAssortedShapes:GpuTest.Klanes*:GpuTest.Xrows*' > $OUT/io2/seed-tests.txt 2>&1; tail -1 $OUT/io2/seed-tests.txt
for m in 16 8 4 2; do for v in old new old new; do
  b=$D/kopt_w4a16_example; [ $v = old ] && b=$D/old/kopt_w4a16_example
  f=$OUT/io2/example-m$m-$v.txt; [ -f $f ] && f=$OUT/io2/example-m$m-$v-2.txt
  timeout 200 $b --rows $m > $f 2>&1; echo "m$m $v rc $? $(tail -1 $f)"
done; done
cd kernels/w4a16_gemv/python/examples
PYTHONPATH=$D/python timeout 280 python3 llama_decode.py --layers 4 --group 128 --steps 16 --prefill 0 > $OUT/io2/llama-new.txt 2>&1; echo "llama rc $?"; tail -8 $OUT/io2/llama-new.txt
date -u
