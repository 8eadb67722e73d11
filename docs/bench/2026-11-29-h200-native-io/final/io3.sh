#!/bin/bash
# The committed form: checks, the example old (92c8b81) and new alternating at 16, 8, 4 and 2 rows, the Llama decode.
R=$PWD; D=$R/.device; T=/tmp/io3; mkdir -p $T
echo "binaries: $(cat $D/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
(cd tests/library && PYTHONPATH=$D/python timeout 300 python3 -m unittest -v test_python_binding_gpu test_python_binding > $T/binding-tests.txt 2>&1; tail -3 $T/binding-tests.txt)
timeout 300 $D/kopt_tests --gtest_filter='GpuTest.EverySeedVerifiesOnAssortedShapes:GpuTest.Klanes*:GpuTest.Xrows*' > $T/seed-tests.txt 2>&1; tail -1 $T/seed-tests.txt
for m in 16 8 4 2; do for v in old new; do
  b=$D/kopt_w4a16_example; [ $v = old ] && b=$D/old/kopt_w4a16_example
  timeout 200 $b --rows $m > $T/example-m$m-$v.txt 2>&1; echo "m$m $v rc $? $(tail -1 $T/example-m$m-$v.txt)"
done; done
cd kernels/w4a16_gemv/python/examples
PYTHONPATH=$D/python timeout 280 python3 llama_decode.py --layers 4 --group 128 --steps 16 --prefill 512 > $T/llama-new.txt 2>&1; echo "llama rc $?"; tail -14 $T/llama-new.txt
date -u
cd $T && tar czf $OUT/io3.tgz * && ls -la $OUT
