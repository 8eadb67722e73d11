#!/usr/bin/env bash
# klanes: column groups a warp (GROUPS) at 8 and 16 rows on the contest shapes.
cd "$(dirname "$0")/.."
B=.device
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
run() { # rows label params...
  local m=$1 label=$2; shift 2
  local args=(); for p in "$@"; do args+=(--param "$p"); done
  timeout 170 $B/kopt bench --problem w4a16_batch --suite contest-m$m --seeds klanes --param MR=$m "${args[@]}" 2>&1 |
    grep -E "^\s+[0-9]+x[0-9]+x[0-9]+ " | sed "s/^ */$label /" >> $OUT/all.txt
}
start=$SECONDS
run 16 def
run 16 G2 GROUPS=2
run 16 G4 GROUPS=4
echo "m16 $((SECONDS-start)) s"
run 8 def
run 8 G2 GROUPS=2
echo "m8 $((SECONDS-start)) s"
python3 - $OUT/all.txt <<'PY'
import re, sys, collections
t = collections.defaultdict(dict); sums = collections.defaultdict(float)
for l in open(sys.argv[1]):
    m = re.match(r"(\S+) (\d+)x(\d+x\d+) klanes: (\S+) ([\d.]+) us", l)
    if not m: print("?", l.strip()); continue
    t[(m.group(2), m.group(3))][m.group(1)] = (m.group(4), float(m.group(5)))
    sums[(m.group(2), m.group(1))] += float(m.group(5))
for k, d in t.items(): print(k, " ".join(f"{l}={v[1]:.2f}{'' if v[0]=='ok' else v[0]}" for l, v in d.items()))
for k, v in sorted(sums.items()): print("sum", k, f"{v:.2f}")
PY
