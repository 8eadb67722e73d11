#!/usr/bin/env bash
# The batched library against the best of the klanes and xrows seeds (defaults) on suites never
# used in development, at the given (suite, rows) pairs: unseen.sh SUITE:M ...
set -u
B=.device
export PYTHONUNBUFFERED=1
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for pair in "$@"; do
  s=${pair%:*}; m=${pair#*:}
  timeout 250 $B/kopt bench --problem w4a16_batch --suite $s-m$m --seeds klanes xrows --param MR=M ${SEED_PARAMS:-} --read-only --json /tmp/bench-$s-m$m.json > /tmp/bench-$s-m$m.txt 2>&1
  timeout 150 python3 bench/library_vs_seeds.py --example $B/kopt_w4a16_example --kopt $B/kopt --generic kernels/w4a16_gemv/generated/GENERIC.json --bench /tmp/bench-$s-m$m.json --suite $s-m$m --rows $m --out $OUT/library-vs-seeds-$s-m$m.md > /tmp/lvs-$s-m$m.txt 2>&1
  echo "$s m$m rc=$?"; tail -1 $OUT/library-vs-seeds-$s-m$m.md
  cut -d'|' -f2,4,6,7,8 $OUT/library-vs-seeds-$s-m$m.md | tail -n +3 | head -20
done
