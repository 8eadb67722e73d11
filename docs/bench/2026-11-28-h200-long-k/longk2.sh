#!/usr/bin/env bash
# Around the fastest of longk1 (gen, x in shared memory at 16 bits, two slices): one knob at a time.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/longk2; mkdir -p $R
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="14336x4096 18944x3584 28672x8192 13824x5120 11008x4096"
sel=(); for x in $S; do sel+=(--shape $x); done
declare -A base=([XREG]=0 [WARPS]=8 [ROWS]=2 [DEPTH]=3 [OCC]=4 [MINB]=3 [XBITS]=16 [XMAX]=1 [HINT]=1 [SPLIT]=2)
run() {  # name, then NAME=VALUE overrides of the base
  local name=$1; shift; declare -A p; for k in "${!base[@]}"; do p[$k]=${base[$k]}; done
  for kv in "$@"; do p[${kv%%=*}]=${kv#*=}; done
  local args=(); for k in "${!p[@]}"; do args+=(--param $k=${p[$k]}); done
  timeout 60 $B/kopt bench "${sel[@]}" --seeds gen "${args[@]}" > $R/$name.txt 2>&1
  echo "$name rc $? $(grep -oE '^  [0-9x]+ gen: [a-z_]+( [0-9.]+)?' $R/$name.txt | awk '{print $4}' | tr '\n' ' ')"
}
run base
run occ2 OCC=2; run occ3 OCC=3; run occ6 OCC=6
run warps4 WARPS=4; run warps16 WARPS=16 OCC=2 MINB=0
run rows1 ROWS=1; run rows3 ROWS=3; run rows4 ROWS=4
run depth2 DEPTH=2; run depth4 DEPTH=4
run minb0 MINB=0; run minb2 MINB=2; run minb4 MINB=4
run dot1 DOT=1; run split1 SPLIT=1; run split3 SPLIT=3
run hint0 HINT=0; run hint2 HINT=2; run xpf1 XPF=1; run ksplit2 KSPLIT=2
run base2
date -u
tar czf $OUT/longk2.tgz -C $OUT longk2 && rm -rf $R
