#!/usr/bin/env bash
# 1) the ten edge probes of the generic rule (resumes the committed GENERIC.json, same GPU model);
# 2) the library's example with the rule as committed: long-K shapes at 1, 2, 4 and 16 rows, the contest shapes at 1.
cd "$(dirname "$0")/.."
echo "commit $(cat .device/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash .probe/measure.sh 300
date -u
timeout 150 .device/kopt_w4a16_example --rows 1,2,4,16 9472x3584 14336x4096 18944x3584 28672x8192 17920x5120 13824x5120 27648x5120 65536x4096 3584x8192 > $OUT/example-longk.txt 2>&1; echo "example longk rc $?"
timeout 60 .device/kopt_w4a16_example > $OUT/example-contest.txt 2>&1; echo "example contest rc $?"
date -u
