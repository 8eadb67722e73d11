#!/usr/bin/env bash
# Installs everything kopt needs to build and test from Debian's archive
# (bookworm). Run as root on a fresh machine. CUDA 13 (nvcc headers + NVRTC)
# is expected at /usr/local/cuda; it is not in Debian's archive.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  build-essential cmake pkg-config git perl python3 python3-numpy \
  nlohmann-json3-dev libfmt-dev libcli11-dev libtomlplusplus-dev \
  libsqlite3-dev libcurl4-openssl-dev libcpp-httplib-dev libdtl-dev \
  libgtest-dev libgmock-dev \
  chromium fonts-dejavu-core \
  slurmctld slurmd slurm-client munge \
  clang-15 lld-15 llvm-15 rocm-device-libs libamdhip64-dev hipcc libamd-comgr-dev
if [ ! -f /usr/local/cuda/include/nvrtc.h ]; then
  echo "install-deps: CUDA 13 (nvrtc.h, libnvrtc) not found at /usr/local/cuda; the NVIDIA build needs it" >&2
  exit 1
fi
