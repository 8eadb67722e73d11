#!/bin/bash
# The library with the lane-group variants: its tests, its example at one row
# on the probes whose pick changed and on shapes never probed, and every
# generic variant measured on those unseen shapes (the rule's check).
D=$PWD/.device
cat $D/COMMIT
$D/kopt_library_tests > $OUT/library-tests.txt 2>&1; echo "library tests rc=$?"; tail -3 $OUT/library-tests.txt
CHANGED="5120x6144 4608x7168 4096x7168 1536x6144 512x7168 384x5120 4096x6144 4096x28672 4096x14336 512x4096 8192x10240 8192x8192 8192x57344 4096x8192 8192x28672 14336x8192 2048x8192 8192x14336 7168x8192 1024x8192 8192x7168 3584x8192 3584x37888 3584x18944 3584x9472 5120x7168 5120x55296 5120x27648 1280x5120 5120x13824 640x5120 5120x6912 1536x24576 512x32768 16384x7168 2048x7168 256x4096 256x65536"
UNSEEN="768x2048 2048x1536 1408x2048 2048x5632 5632x2048 3072x8192 8192x3072 2560x10240 1152x6912 6912x1152"
$D/kopt_w4a16_example --rows 1 $CHANGED > $OUT/example-probes.txt 2>&1; echo "example probes rc=$?"
$D/kopt_w4a16_example --rows 1 $UNSEEN > $OUT/example-unseen.txt 2>&1; echo "example unseen rc=$?"
$D/kopt_w4a16_example --rows 1,2,4,16 2048x1536 256x65536 512x32768 > $OUT/example-rows.txt 2>&1; echo "example rows rc=$?"
cp -r kernels/w4a16_gemv/generated $OUT/unseen
S=""; for s in $UNSEEN; do S="$S --shape $s"; done
(cd $OUT && timeout 300 $D/kopt export --fallbacks-only --measure-generic $S --out unseen > measure-unseen.txt 2>&1; echo "measure unseen rc=$?")
tail -15 $OUT/measure-unseen.txt
