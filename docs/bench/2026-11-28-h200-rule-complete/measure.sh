#!/usr/bin/env bash
# The generic variants' times on every probe shape (kopt export --measure-generic), resumable: a partial
# GENERIC.json of this card in .probe/ is carried on from a run that was cut off.
cd "$(dirname "$0")/.."
echo "commit $(cat .device/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cp -r kernels/w4a16_gemv/generated $OUT/gen
[ -f .probe/GENERIC.partial.json ] && cp .probe/GENERIC.partial.json $OUT/gen/GENERIC.json
timeout ${1:-550} .device/kopt export --fallbacks-only --measure-generic --out $OUT/gen > $OUT/measure.txt 2>&1
echo "export rc $?"; tail -5 $OUT/measure.txt; date -u
cd $OUT/gen && ls | grep -v GENERIC.json | xargs rm -f
