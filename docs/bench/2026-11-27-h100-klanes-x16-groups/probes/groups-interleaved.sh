#!/usr/bin/env bash
# klanes X16 with interleaved column groups: GROUPS 1, 2, 4 at 16 and 8 rows on the contest shapes
# (seed-level), and the library example's check on the short-K shapes its 2-group builds serve.
cd "$(dirname "$0")/.."
B=.device; T=/tmp/kopt-probe2; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
$B/kopt_w4a16_example --rows 3,4,5,8,9,16 384x5120 512x7168 1536x6144 2016x777/g32 4096x100/g128 5120x256 > $T/library-example.txt 2>&1
echo "w4a16 example rc $?: $(tail -1 $T/library-example.txt)"
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
for mr in 16 8; do for g in 1 2 4; do
  args=(); for s in $S; do args+=(--shape $mr"x"$s); done
  timeout 200 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$mr --param X16=1 --param GROUPS=$g "${args[@]}" > $T/ev.txt 2>&1
  (echo "== MR=$mr GROUPS=$g"; cat $T/ev.txt) >> $T/eval-raw.txt
  awk -v L="M$mr,G$g" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt >> $T/probe.txt
done; done
python3 - $T/probe.txt <<'PY'
import re, sys, collections
t = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    m = re.search(r"^M(\d+),G(\d) \S*?:(\d+)x(\d+x\d+): (\S+) ([\d.]+) us", l)
    if m: t[(int(m.group(1)), m.group(4))][int(m.group(2))] = float(m.group(6)) if m.group(5) == "ok" else float("nan")
for mr in (16, 8):
    sums = collections.Counter(); best = 0.0
    print(f"MR {mr}: shape, GROUPS 1, 2, 4 (us)")
    for (m, s), d in t.items():
        if m != mr: continue
        print(f"  {s:10} " + " ".join(f"{d.get(g, float('nan')):7.2f}" for g in (1, 2, 4)))
        for g in (1, 2, 4): sums[g] += d.get(g, 0)
        best += min(d.values())
    print("  sum        " + " ".join(f"{sums[g]:7.2f}" for g in (1, 2, 4)) + f"   best per shape {best:.2f}")
PY
tar -C $T -czf $OUT/probe2.tgz .
