#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-15 (ASan + UBSan) and runs each for
# SECONDS (default 30). A crash leaves its input in build-fuzz/ and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
CC=clang-15 CXX=clang++-15 cmake -S . -B build-fuzz -DKOPT_BUILD_FUZZERS=ON -DKOPT_BUILD_TESTS=OFF \
  -DKOPT_BUILD_LIBRARY=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_model_answer fuzz_worker_message fuzz_candidate_text
for target in fuzz_model_answer fuzz_worker_message fuzz_candidate_text; do
  mkdir -p "build-fuzz/corpus-$target"
  # Seeds: wrongly typed fields and extreme expressions (tests/fuzz/corpus).
  seeds="$PWD/tests/fuzz/corpus/$target"
  (cd build-fuzz && "./tests/fuzz/$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
     "corpus-$target" $( [ -d "$seeds" ] && echo "$seeds" ) 2>&1 | tail -n 3)
done
