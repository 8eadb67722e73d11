// The offline AMD check: every candidate is compiled for gfx906 (the contest
// card) with clang++-15 and ROCm's device libraries, on a machine that needs
// no AMD GPU. Records VGPR, SGPR, scratch and occupancy, and rejects
// matrix-core instructions. Where the toolchain is missing (the NVIDIA GPU
// machine) the result says "not checked"; `kopt check-amd` fills it in later.
#pragma once

#include <string>
#include <vector>

#include "sandbox/contract/status.h"
#include "sandbox/contract/target_resources.h"

namespace kopt {

struct AmdToolchain {
  std::string clang;        // clang++-15 path; empty when not found
  std::string device_libs;  // amdgcn bitcode directory
  std::string rocm_path;
  bool available() const { return !clang.empty(); }
  static AmdToolchain find();
};

// Compiles `full_source` (prelude + candidate) for gfx906, wave64.
Status check_gfx906(const AmdToolchain& toolchain, const std::string& full_source,
                    const std::vector<std::string>& defines, double timeout_s,
                    TargetResources* out);

// Parses the resource comments of an AMDGPU .s file.
void parse_amdgpu_resources(const std::string& assembly, TargetResources* out);

}  // namespace kopt
