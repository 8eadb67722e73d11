// Run-time compilation through hipRTC (NVRTC underneath on NVIDIA). Needs no
// GPU: the NVIDIA path compiles to PTX for a named architecture.
#pragma once

#include <string>
#include <vector>

#include "sandbox/contract/status.h"

namespace kopt {

struct RtcOutput {
  bool compiled = false;  // false: the source has errors (see log)
  std::string code;       // PTX on NVIDIA, a code object on AMD
  std::string log;
};

// Compiles a full source (prelude included). A compile error is a result
// (compiled = false); a Status error is kopt's own failure.
Status rtc_compile(const std::string& full_source, const std::vector<std::string>& options,
                   RtcOutput* out);

// Options for a target: on NVIDIA `arch` is a compute capability such as "90";
// on AMD a gcnArchName such as "gfx906".
std::vector<std::string> rtc_target_options(const std::string& arch, int warp_size);

std::string rtc_compiler_version();

}  // namespace kopt
