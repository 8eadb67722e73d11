#!/bin/sh
# Installs this build into a fresh prefix and builds the C and the C++
# examples against it as other projects would: find_package(kopt_w4a16 1.0),
# link, run.
# Also checks what the install must hold: the CLI with its worker, the
# version file. Without a GPU the example must end with "no GPU" (exit 3);
# with one its GEMV must match (exit 0).
# Usage: package_consumers_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -eu
build=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for f in bin/kopt bin/kopt-worker include/kopt_w4a16.h include/kopt_w4a16_extras.h \
  lib/cmake/kopt_w4a16/kopt_w4a16ConfigVersion.cmake include/kopt_w8a16.h lib/cmake/kopt_w8a16/kopt_w8a16Config.cmake; do
  [ -e "$work/prefix/$f" ] || { echo "install lacks $f"; exit 1; }
done
"$work/prefix/bin/kopt" --version
# A version this package does not satisfy must be refused.
if cmake -S "$source/kernels/w4a16_gemv/example/c" -B "$work/too-new" -DCMAKE_PREFIX_PATH="$work/prefix" \
     -Dkopt_w4a16_DIR= -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON --log-level=ERROR \
     -DKOPT_REQUIRED_VERSION=2.0 >"$work/too-new.log" 2>&1; then
  echo "find_package(kopt_w4a16 2.0) was accepted by a 1.x package"; exit 1
fi
grep -q 'compatible with requested version "2.0"' "$work/too-new.log" || { cat "$work/too-new.log"; exit 1; }
cmake -S "$source/kernels/w4a16_gemv/example/c" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log"
cmake --build "$work/build" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
code=0
"$work/build/kopt_w4a16_c_example" || code=$?
if nvidia-smi >/dev/null 2>&1 || [ -e /dev/kfd ]; then
  [ $code -eq 0 ]
else
  [ $code -eq 3 ]
fi
# C++ host code: the argument checks, GPU or not.
cmake -S "$source/kernels/w4a16_gemv/example/cxx" -B "$work/build-cxx" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure-cxx.log"
cmake --build "$work/build-cxx" >"$work/build-cxx.log" || { cat "$work/build-cxx.log"; exit 1; }
"$work/build-cxx/kopt_w4a16_cxx_example"
# Two libraries in one program.
cmake -S "$source/tests/library/both_libraries" -B "$work/build-both" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure-both.log"
cmake --build "$work/build-both" >"$work/build-both.log" || { cat "$work/build-both.log"; exit 1; }
"$work/build-both/kopt_both_libraries"
