// The GPU seam: the HIP host API and hipRTC, whichever platform kopt is built
// for. On AMD it is ROCm's own; on NVIDIA, hip_on_cuda.h maps the calls kopt
// uses onto the CUDA driver API and NVRTC. Nothing outside sandbox/ and
// kernels/ includes this header.
#pragma once

#if defined(KOPT_PLATFORM_AMD)
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#elif defined(KOPT_PLATFORM_NVIDIA)
#include "sandbox/gpu/hip_on_cuda.h"
#else
#error "Define KOPT_PLATFORM_AMD or KOPT_PLATFORM_NVIDIA (CMake option KOPT_GPU_PLATFORM)."
#endif

#include <string>

namespace kopt {

// The platform's name as recorded with every timing.
inline const char* gpu_platform_name() {
#if defined(KOPT_PLATFORM_AMD)
  return "amd-hip";
#else
  return "nvidia-cuda";
#endif
}

// Formats a failed GPU call: the statement, where it is, and the driver's words.
std::string gpu_error_message(hipError_t error, const char* statement, const char* file, int line);

}  // namespace kopt

// Checks a GPU call; on failure returns a kopt::GpuError naming the statement,
// file and line from the enclosing function (which must return a type
// constructible from kopt::GpuError, e.g. kopt::Status).
#define KOPT_GPU_CHECK(statement)                                                      \
  do {                                                                                 \
    hipError_t kopt_gpu_error_ = (statement);                                          \
    if (kopt_gpu_error_ != hipSuccess)                                                 \
      return ::kopt::GpuError{                                                         \
          kopt_gpu_error_,                                                             \
          ::kopt::gpu_error_message(kopt_gpu_error_, #statement, __FILE__, __LINE__)}; \
  } while (0)
