#!/usr/bin/env bash
# Whether two generated folders build the same sm_90 cubins, entry by entry:
#   cubins.sh OLD_GENERATED NEW_GENERATED BUILD_DIR [ENTRY.hip ...]
# (OLD from `git archive`, e.g. of the commit before the re-export; BUILD_DIR
# a configured NVIDIA build, for the library's include paths; LIBRARY=w8a16
# for kopt_w8a16's folder, w4a16 by default). Each entry file
# is built with nvcc -cubin from its own folder, so it includes that folder's
# candidate source; the cubins are compared byte for byte.
set -euo pipefail
old=$1 new=$2 build=$3; shift 3
lib=${LIBRARY:-w4a16}
inc=$(tr '\n' ' ' < "$build/kernels/${lib}_gemv/CMakeFiles/kopt_${lib}.dir/includes_CUDA.rsp")
entries=("$@"); [ ${#entries[@]} -gt 0 ] || entries=($(cd "$old" && ls k*.hip generic_*.hip))
out=$(mktemp -d)
for f in "${entries[@]}"; do
  for v in old new; do
    dir=$([ $v = old ] && echo "$old" || echo "$new")
    eval nvcc $inc -I"$dir" -O3 -DNDEBUG -arch=sm_90 -std=c++17 -x cu -cubin "$dir/$f" -o "$out/$v-$f.cubin"
  done
  cmp -s "$out/old-$f.cubin" "$out/new-$f.cubin" && echo "$f same cubin" || echo "$f DIFFERENT"
done
rm -rf "$out"
