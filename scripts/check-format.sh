#!/usr/bin/env bash
# Fails when a C++ file of the project differs from what the committed
# .clang-format makes of it; `scripts/check-format.sh --fix` rewrites them.
# Generated kernels (every library's kernels/<problem>/generated) and HIP candidate sources (seeds,
# adversarial test kernels: text a model reads and edits) are left as written.
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=$(command -v clang-format || command -v clang-format-15 || command -v clang-format-14)
mapfile -t files < <(git ls-files '*.cpp' '*.h' | grep -v '/generated/')
if [ "${1:-}" = "--fix" ]; then
  "$clang_format" -i "${files[@]}"
  exit 0
fi
if ! "$clang_format" --dry-run -Werror "${files[@]}" 2>/tmp/kopt-format.log; then
  sed -n 's/^\([^: ]*\.\(cpp\|h\)\):[0-9]*:[0-9]*: .*/not formatted: \1/p' /tmp/kopt-format.log | sort -u
  echo "run scripts/check-format.sh --fix"
  exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
