#!/usr/bin/env bash
# Final checks: the seeds' GPU tests for gen, both bindings' tests, both examples at 1-16 rows in each dtype pair.
B=.device; R=$OUT/r; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
timeout 200 $B/kopt_tests --gtest_filter='GpuTest.EverySeedVerifiesOnAssortedShapes:GpuTest.GeneratorSeedKnobsVerify:GpuTest.DotSeedLaneGroupsVerifyWhereTheLastTileIsPartial' > $R/gpu-tests.txt 2>&1; echo "gpu tests rc $?"; tail -3 $R/gpu-tests.txt
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 200 python3 -m unittest -v test_python_binding_gpu test_python_binding test_python_w8a16_gpu test_python_w8a16 > $R/python-tests.txt 2>&1; echo "python rc $?"); tail -3 $R/python-tests.txt
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 4096x14336 640x5120/g32 1000x24 2048x64 17920x5120"
for lib in w4a16 w8a16; do for io in fp16-fp32 fp16-fp16 bf16-bf16 bf16-fp32; do for r in 1 2 5 16; do
  echo "== $lib $io rows $r"; $B/kopt_${lib}_example --rows $r --io $io $S 2>&1; done; done; done > $R/examples.txt
echo "examples ok $(grep -c ' ok ' $R/examples.txt) FAIL $(grep -c FAIL $R/examples.txt)"
(cd $OUT && tar czf r.tgz r && rm -rf r)
