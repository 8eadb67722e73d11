#include "sandbox/rtc.h"

#include "sandbox/gpu_api.h"

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
#if defined(KOPT_PLATFORM_NVIDIA)
  // compute_XY (virtual): the PTX is what the static check reads; the driver
  // assembles it at load. NVRTC rejects -O3 and needs the toolkit headers.
  return {"--gpu-architecture=compute_" + arch, std::string("-I") + kopt_cuda_include_dir(),
          "--std=c++17", "-DKOPT_WARP_SIZE=" + std::to_string(warp_size)};
#else
  return {"--gpu-architecture=" + arch, "-O3", "-std=c++17",
          "-DKOPT_WARP_SIZE=" + std::to_string(warp_size)};
#endif
}

std::string rtc_compiler_version() {
  int major = 0, minor = 0;
  hiprtcVersion(&major, &minor);
#if defined(KOPT_PLATFORM_NVIDIA)
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
#else
  return "hiprtc " + std::to_string(major) + "." + std::to_string(minor);
#endif
}

}  // namespace kopt
