#!/bin/bash
# The library against the best seed at its defaults on every suite shape,
# the 12 held-out shapes and 10 shapes never probed (their seeds from the
# measurement of all generic variants there), each checked by the 1e-2 rule.
D=$PWD/.device
cat $D/COMMIT
HELD="20480x2048 32768x1024 57344x256 12288x64/g128 4096x96 8192x33 3008x4097 2048x12345 6144x1000/g128 24576x3000 98304x512 1000x1000/g40"
UNSEEN="768x2048 2048x1536 1408x2048 2048x5632 5632x2048 3072x8192 8192x3072 2560x10240 1152x6912 6912x1152"
S=""; for s in $HELD; do S="$S --shape $s"; done
timeout 200 $D/kopt bench $S --seeds naive splitk vec dot gen --json $OUT/bench-held.json > $OUT/bench-held.txt 2>&1; echo "bench rc=$?"
A=""; for s in $HELD $UNSEEN; do A="$A --shape $s"; done
timeout 360 python3 bench/library_vs_seeds.py --example $D/kopt_w4a16_example --kopt $D/kopt \
  --generic .probe/GENERIC-102.json --bench $OUT/bench-held.json \
  --suite contest --suite llama3-8b --suite llama3-70b --suite qwen2.5-7b --suite qwen2.5-32b \
  --suite mistral-7b --suite deepseek-v3 $A --out $OUT/library-vs-seeds.md > $OUT/library-vs-seeds.txt 2>&1
echo "library_vs_seeds rc=$?"; tail -3 $OUT/library-vs-seeds.md
