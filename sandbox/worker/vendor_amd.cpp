// AMD: ROCm's HIP and hipRTC.
#include "sandbox/worker/vendor.h"

namespace kopt {

bool vendor_is_fault(int code) {
  return code == hipErrorLaunchFailure || code == hipErrorIllegalAddress ||
         code == hipErrorAssert || code == hipErrorLaunchTimeOut || code == hipErrorUnknown;
}

std::string vendor_compile_arch(const hipDeviceProp_t& prop) { return prop.gcnArchName; }

std::string vendor_arch_name(const hipDeviceProp_t& prop) { return prop.gcnArchName; }

std::vector<std::string> vendor_compile_options(const std::string& arch, int warp_size) {
  return {"--gpu-architecture=" + arch, "-O3", "-std=c++17",
          "-DKOPT_WARP_SIZE=" + std::to_string(warp_size)};
}

std::string vendor_compiler_version() {
  int major = 0, minor = 0;
  hiprtcVersion(&major, &minor);
  return "hiprtc " + std::to_string(major) + "." + std::to_string(minor);
}

VendorTarget vendor_offline_target() {
  return {"gfx906", DeviceLimits{64, 60, 1024, 64 * 1024}, vendor_compile_options("gfx906", 64)};
}

// The offline gfx906 check (sandbox/contract/amd_offline.h) reports them.
std::vector<std::string> vendor_resource_report_options(const std::vector<std::string>&) {
  return {};
}
void vendor_read_resource_report(const std::string&, TargetResources*) {}

// The code object is scanned by the offline gfx906 check (sandbox/contract/amd_offline.h).
Status vendor_check_compiled_code(const std::string&) { return Status(); }

// ROCm 5.2 has no hipGraphUpload: the warm-up and first replay absorb it.
hipError_t vendor_upload_graph(hipGraphExec_t, hipStream_t) { return hipSuccess; }

}  // namespace kopt
