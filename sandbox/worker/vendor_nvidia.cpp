// NVIDIA: the HIP names mapped onto the CUDA driver API and NVRTC
// (sandbox/gpu/hip_on_cuda.h).
#include "sandbox/contract/ptxas_report.h"
#include "sandbox/contract/static_checks.h"
#include "sandbox/worker/vendor.h"

namespace kopt {

bool vendor_is_fault(int code) {
  return code == CUDA_ERROR_ILLEGAL_ADDRESS || code == CUDA_ERROR_LAUNCH_FAILED ||
         code == CUDA_ERROR_ILLEGAL_INSTRUCTION || code == CUDA_ERROR_MISALIGNED_ADDRESS ||
         code == CUDA_ERROR_INVALID_ADDRESS_SPACE || code == CUDA_ERROR_INVALID_PC ||
         code == CUDA_ERROR_HARDWARE_STACK_ERROR || code == CUDA_ERROR_ASSERT ||
         code == CUDA_ERROR_LAUNCH_TIMEOUT || code == CUDA_ERROR_UNKNOWN;
}

std::string vendor_compile_arch(const hipDeviceProp_t& prop) {
  return std::to_string(prop.major) + std::to_string(prop.minor);
}

std::string vendor_arch_name(const hipDeviceProp_t& prop) {
  return "sm_" + vendor_compile_arch(prop);
}

std::vector<std::string> vendor_compile_options(const std::string& arch, int warp_size) {
  // compute_XY (virtual): the PTX is what the static check reads; the driver
  // assembles it at load. NVRTC rejects -O3 and needs the toolkit headers.
  return {"--gpu-architecture=compute_" + arch, std::string("-I") + kopt_cuda_include_dir(),
          "--std=c++17", "-DKOPT_WARP_SIZE=" + std::to_string(warp_size)};
}

std::string vendor_compiler_version() {
  int major = 0, minor = 0;
  hiprtcVersion(&major, &minor);
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
}

VendorTarget vendor_offline_target() {
  return {"sm_90", DeviceLimits{32, 132, 1024, 48 * 1024}, vendor_compile_options("90", 32)};
}

std::vector<std::string> vendor_resource_report_options(const std::vector<std::string>& options) {
  const std::string virtual_arch = "--gpu-architecture=compute_";
  std::vector<std::string> report;
  for (const std::string& o : options)
    report.push_back(o.compare(0, virtual_arch.size(), virtual_arch) == 0
                         ? "--gpu-architecture=sm_" + o.substr(virtual_arch.size())
                         : o);
  report.push_back("--ptxas-options=-v");
  return report;
}

void vendor_read_resource_report(const std::string& log, TargetResources* out) {
  parse_ptxas_resources(log, out);
}

Status vendor_check_compiled_code(const std::string& code) { return check_compiled_code(code); }

hipError_t vendor_upload_graph(hipGraphExec_t exec, hipStream_t stream) {
  return hipGraphUpload(exec, stream);
}

}  // namespace kopt
