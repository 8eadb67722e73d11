// The vendor BLAS baseline: y = W·x by the GPU vendor's fp16 GEMV (cuBLAS on
// NVIDIA) on weights dequantised to fp16 at load time. It is the peer every
// kernel is compared with in `kopt bench --baselines`; it runs through the
// same verification and timing as a candidate.
//
// The library is dlopen'ed, like the driver: kopt builds and runs without
// it, and says so when a baseline is asked for on a machine that lacks it.
#pragma once

#include <memory>
#include <string>

#include "sandbox/contract/status.h"
#include "sandbox/gpu/gpu_api.h"

namespace kopt {

class VendorBlas {
 public:
  // Loads the library and creates a handle bound to `stream`; nullptr with
  // the reason where the library or its entry points are missing.
  static std::unique_ptr<VendorBlas> create(hipStream_t stream, std::string* why);
  ~VendorBlas();
  VendorBlas(const VendorBlas&) = delete;
  VendorBlas& operator=(const VendorBlas&) = delete;

  // y[N] (fp32) = W[N][K] (fp16, row n holds the K weights of output n) · x[K]
  // (fp16), fp32 accumulation, on the stream given at creation. Safe to
  // capture in a graph (the workspace is fixed at creation).
  Status gemv(const void* w_fp16, const void* x_fp16, void* y_fp32, int K, int N);
  // "cuBLAS 13.0.x" or similar.
  const std::string& version() const { return version_; }

  struct Library;

 private:
  VendorBlas() = default;
  std::unique_ptr<Library> lib_;
  std::string version_;
};

}  // namespace kopt
