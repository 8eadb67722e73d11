#!/bin/bash
# The bindings' GPU tests after the fixes, KoptLinear (W8A16) by rows with the vector dequantiser, and the lanes seed at 2 rows: the library's build (two channels a group of eight lanes) against one channel a group of sixteen, each at its slice rule's split (and one slice).
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p $OUT/r
(cd tests/library && PYTHONPATH=$OLDPWD/.device/python timeout 240 python3 -m unittest -v test_python_w8a16_gpu test_python_w8a16 test_python_binding_gpu test_python_binding) > $OUT/r/binding-tests.txt 2>&1; echo "rc $?" >> $OUT/r/binding-tests.txt
grep -E "FAIL|Error|^Ran|^OK|rc " $OUT/r/binding-tests.txt | head -20
PYTHONPATH=.device/python timeout 150 python3 bench/koptlinear_rows.py --bits 8 --shapes 4096x14336,14336x4096,7168x9216,4096x4096 --rows 8,12,16,20,24,32,48,64 > $OUT/r/rows-w8.txt 2>&1; echo "rc $?" >> $OUT/r/rows-w8.txt
cat $OUT/r/rows-w8.txt
K=.device/kopt
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"
}
while read s a b; do
  e 2x$s MR=2 COLS=2 LPC=8 XT=2048 DEPTH=2 X16=0 SPLIT=$a
  e 2x$s MR=2 COLS=1 LPC=16 XT=2048 DEPTH=2 X16=0 SPLIT=$b
  [ "$b" != 1 ] && e 2x$s MR=2 COLS=1 LPC=16 XT=2048 DEPTH=2 X16=0 SPLIT=1
done > $OUT/r/two-rows.txt 2>&1 <<'LIST'
7168x9216 4 2
7168x1536 8 4
7168x1024 8 4
5120x6144 4 1
5120x3584 4 1
5120x3072 8 2
5120x768 8 8
5120x256 16 8
4608x7168 2 2
4096x7168 2 2
3072x5120 3 2
1536x6144 1 1
512x7168 1 1
384x5120 1 1
LIST
cat $OUT/r/two-rows.txt
date -u
