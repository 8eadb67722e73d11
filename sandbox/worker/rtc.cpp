#include "sandbox/worker/rtc.h"

#include "sandbox/gpu/gpu_api.h"
#include "sandbox/worker/vendor.h"

namespace kopt {

Status rtc_compile(const std::string& full_source, const std::vector<std::string>& options,
                   RtcOutput* out) {
  *out = RtcOutput();
  hiprtcProgram prog;
  if (hiprtcCreateProgram(&prog, full_source.c_str(), "candidate.hip", 0, nullptr, nullptr) !=
      HIPRTC_SUCCESS)
    return Status::error("hiprtcCreateProgram failed");
  std::vector<const char*> opts;
  for (const auto& o : options) opts.push_back(o.c_str());
  hiprtcResult r = hiprtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  size_t log_size = 0;
  hiprtcGetProgramLogSize(prog, &log_size);
  out->log.assign(log_size, '\0');
  if (log_size > 0) hiprtcGetProgramLog(prog, &out->log[0]);
  while (!out->log.empty() && out->log.back() == '\0') out->log.pop_back();
  out->compiled = r == HIPRTC_SUCCESS;
  if (out->compiled) {
    size_t size = 0;
    hiprtcGetCodeSize(prog, &size);
    out->code.assign(size, '\0');
    hiprtcGetCode(prog, &out->code[0]);
  }
  hiprtcDestroyProgram(&prog);
  return Status();
}

std::vector<std::string> rtc_target_options(const std::string& arch, int warp_size) {
  return vendor_compile_options(arch, warp_size);
}

std::string rtc_compiler_version() { return vendor_compiler_version(); }

}  // namespace kopt
