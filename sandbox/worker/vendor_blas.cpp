#include "sandbox/worker/vendor_blas.h"

#include <dlfcn.h>

#include <string>

#if defined(KOPT_PLATFORM_NVIDIA)
#include <cublas_api.h>
#endif

namespace kopt {

#if defined(KOPT_PLATFORM_NVIDIA)

// The cuBLAS entry points kopt uses, by their exported names.
struct VendorBlas::Library {
  void* so = nullptr;
  cublasHandle_t handle = nullptr;
  void* workspace = nullptr;
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*set_workspace)(cublasHandle_t, void*, size_t) = nullptr;
  cublasStatus_t (*get_version)(cublasHandle_t, int*) = nullptr;
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                            int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                            cublasGemmAlgo_t) = nullptr;
  ~Library() {
    if (handle && destroy) destroy(handle);
    if (workspace) (void)hipFree(workspace);
    if (so) dlclose(so);
  }
};

namespace {
// Fixed at creation so that no call allocates (graph capture forbids it).
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

template <typename F>
bool resolve(void* so, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(so, name));
  return *out != nullptr;
}
}  // namespace

std::unique_ptr<VendorBlas> VendorBlas::create(hipStream_t stream, std::string* why) {
  auto lib = std::make_unique<Library>();
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
    if ((lib->so = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
  if (!lib->so) {
    *why =
        "cuBLAS not found (libcublas.so.13/.12): install the CUDA toolkit's cuBLAS for the "
        "baseline";
    return nullptr;
  }
  if (!resolve(lib->so, "cublasCreate_v2", &lib->create) ||
      !resolve(lib->so, "cublasDestroy_v2", &lib->destroy) ||
      !resolve(lib->so, "cublasSetStream_v2", &lib->set_stream) ||
      !resolve(lib->so, "cublasSetWorkspace_v2", &lib->set_workspace) ||
      !resolve(lib->so, "cublasGetVersion_v2", &lib->get_version) ||
      !resolve(lib->so, "cublasGemmEx", &lib->gemm_ex)) {
    *why = "cuBLAS lacks an entry point kopt needs (cublasGemmEx and friends)";
    return nullptr;
  }
  if (lib->create(&lib->handle) != CUBLAS_STATUS_SUCCESS) {
    lib->handle = nullptr;
    *why = "cublasCreate failed";
    return nullptr;
  }
  if (hipMalloc(&lib->workspace, kWorkspaceBytes) != hipSuccess) {
    lib->workspace = nullptr;
    *why = "cannot allocate the cuBLAS workspace";
    return nullptr;
  }
  if (lib->set_stream(lib->handle, reinterpret_cast<cudaStream_t>(stream)) !=
          CUBLAS_STATUS_SUCCESS ||
      lib->set_workspace(lib->handle, lib->workspace, kWorkspaceBytes) != CUBLAS_STATUS_SUCCESS) {
    *why = "cannot bind cuBLAS to the evaluation stream";
    return nullptr;
  }
  int version = 0;
  (void)lib->get_version(lib->handle, &version);
  std::unique_ptr<VendorBlas> blas(new VendorBlas());
  blas->version_ = "cuBLAS " + std::to_string(version / 10000) + "." +
                   std::to_string(version / 100 % 100) + "." + std::to_string(version % 100);
  blas->lib_ = std::move(lib);
  return blas;
}

Status VendorBlas::gemv(const void* w_fp16, const void* x_fp16, void* y_fp32, int K, int N) {
  // Column-major view: W is a K x N matrix with leading dimension K, so
  // y = W^T x is an (N x K)·(K x 1) product.
  const float alpha = 1.f, beta = 0.f;
  cublasStatus_t st = lib_->gemm_ex(lib_->handle, CUBLAS_OP_T, CUBLAS_OP_N, N, 1, K, &alpha, w_fp16,
                                    CUDA_R_16F, K, x_fp16, CUDA_R_16F, K, &beta, y_fp32, CUDA_R_32F,
                                    N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS)
    return Status::error("cublasGemmEx failed with status " + std::to_string(st));
  return Status();
}

#else  // AMD

struct VendorBlas::Library {};

std::unique_ptr<VendorBlas> VendorBlas::create(hipStream_t, std::string* why) {
  *why = "the vendor BLAS baseline is implemented for cuBLAS only; on AMD it is not available yet";
  return nullptr;
}

Status VendorBlas::gemv(const void*, const void*, void*, int, int) {
  return Status::error("the vendor BLAS baseline is not available on AMD");
}

#endif

VendorBlas::~VendorBlas() = default;

}  // namespace kopt
