// What differs between the two GPU vendors, in one place (ggml's vendors/):
// fault codes, architecture names, run-time compiler options, the offline
// tuning target, what is scanned for matrix instructions, graph upload. One
// implementation per vendor (vendor_nvidia.cpp, vendor_amd.cpp); the build
// compiles the platform's one. The shipped libraries' counterpart is
// kernels/common/kopt_gpu_runtime.h.
#pragma once

#include <string>
#include <vector>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/status.h"
#include "sandbox/contract/target_resources.h"
#include "sandbox/gpu/gpu_api.h"

namespace kopt {

// True when a GPU error code means the kernel faulted and the context is gone.
bool vendor_is_fault(int code);

// The device's architecture as kopt names targets ("sm_90", "gfx906:...")
// and the part the run-time compiler takes ("90", "gfx906:...").
std::string vendor_arch_name(const hipDeviceProp_t& prop);
std::string vendor_compile_arch(const hipDeviceProp_t& prop);

// Run-time compiler options for an architecture (as vendor_compile_arch
// gives it) and warp size, and the compiler's name with its version.
std::vector<std::string> vendor_compile_options(const std::string& arch, int warp_size);
std::string vendor_compiler_version();

// Where checks that need no GPU compile: the platform's tuning target.
struct VendorTarget {
  std::string arch;  // "sm_90", "gfx906"
  DeviceLimits limits;
  std::vector<std::string> options;
};
VendorTarget vendor_offline_target();

// Without a GPU, the tuning target's registers and spills: the options of a
// second compile whose log reports them (NVIDIA: for the real architecture,
// with ptxas's report; the first compile's PTX is assembled by the driver
// only at load), from the first compile's `options`; empty where the vendor
// has none (AMD: the offline gfx906 check reports them). Then that log read
// into `out`.
std::vector<std::string> vendor_resource_report_options(const std::vector<std::string>& options);
void vendor_read_resource_report(const std::string& log, TargetResources* out);

// Scans the run-time compiler's output for matrix-core instructions where it
// is text (PTX); on AMD the offline gfx906 check scans the code object.
Status vendor_check_compiled_code(const std::string& code);

// Uploads an instantiated graph ahead of its first launch where the runtime
// can (so the first timed replay does not pay for it).
hipError_t vendor_upload_graph(hipGraphExec_t exec, hipStream_t stream);

}  // namespace kopt
