#!/usr/bin/env bash
# kopt and its peers in one session on one GPU: `kopt bench` (seeds, the
# exported kernels of kernels/w4a16_gemv/generated, the vendor BLAS baseline), then
# PyTorch's cuBLAS fp16 and int4 kernels (bench/torch_peers.py), merged into
# one table with the read-only yardstick. With ROWS > 1, the decode batch:
# the batched problem's contest suite at M = ROWS (the batched seeds at that
# row capacity: klanes, the library's batched kernel, ncols and xrows; a seed
# whose rules exclude the M, such as xrows above 4 rows, is listed as such)
# against PyTorch at the same M.
# Usage: scripts/peers.sh OUT_DIR [KOPT_BIN_DIR [ROWS]]   (default: build, 1)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/peers.sh OUT_DIR [KOPT_BIN_DIR [ROWS]]}
bin=${2:-build}
rows=${3:-1}
mkdir -p "$out"
if [ "$rows" -gt 1 ]; then
  "$bin/kopt" bench --problem w4a16_batch --suite "contest-m$rows" --seeds klanes ncols xrows --param MR=M \
    --read-only --json "$out/kopt-bench.json" --markdown "$out/kopt-bench.md" |
    tee "$out/kopt-bench.txt" ||
    echo "kopt bench: some kernel failed verification (see above); the table keeps its verdict"
else
  # KOPT_BENCH_SEEDS (e.g. gen,dot,splitk) limits the seed columns.
  "$bin/kopt" bench --suite contest --tuned kernels/w4a16_gemv/generated/MANIFEST.json --baselines --read-only \
    ${KOPT_BENCH_SEEDS:+--seeds "$KOPT_BENCH_SEEDS"} \
    --json "$out/kopt-bench.json" --markdown "$out/kopt-bench.md" | tee "$out/kopt-bench.txt" ||
    echo "kopt bench: some kernel failed verification (see above); the table keeps its verdict"
fi
python3 bench/torch_peers.py "$out/torch-peers.json" "$rows" | tee "$out/torch-peers.txt"
python3 bench/compare_peers.py "$out/kopt-bench.json" "$out/torch-peers.json" "$out/peers.md"
# The shipped library (when built) against the tuned column just measured.
example=${KOPT_EXAMPLE:-$bin/kopt_w4a16_example}
if [ -x "$example" ] && [ "$rows" -eq 1 ]; then
  python3 bench/library_vs_bench.py "$out/kopt-bench.json" "$example" "$out/library-vs-bench.md"
fi
