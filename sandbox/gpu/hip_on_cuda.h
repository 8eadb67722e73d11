// The HIP host API and hipRTC, mapped onto the CUDA driver API and NVRTC.
//
// Why our own mapping: HIP 5.2.3's nvidia_detail headers do not compile
// against CUDA 13 (cudaDeviceProp and several driver calls changed), and the
// project needs only ~40 calls. Only what kopt uses is mapped; add a call here
// when the sandbox or the shipped library needs a new one.
//
// Why dlopen: a binary linked against CUDA's stub libcuda.so does not start on
// a machine without a driver (CI has none). libcuda.so.1 is loaded on the
// first hipInit; every mapped call fails cleanly with hipErrorNoDevice before
// that, or when loading failed. NVRTC is linked normally (it needs no driver).
#pragma once

#include <cuda.h>
#include <nvrtc.h>

#include <cstddef>

typedef int hipError_t;
enum : int {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorNotReady = 600,
  hipErrorLaunchFailure = 719,
};

typedef CUstream hipStream_t;
typedef CUevent hipEvent_t;
typedef CUmodule hipModule_t;
typedef CUfunction hipFunction_t;
typedef CUgraph hipGraph_t;
typedef CUgraphExec hipGraphExec_t;
typedef void* hipDeviceptr_t;

// The subset of hipDeviceProp_t that kopt reads; field names match HIP's.
struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem;
  int multiProcessorCount;
  int l2CacheSize;
  int warpSize;
  int major;
  int minor;
  int clockRate;        // kHz
  int memoryClockRate;  // kHz
  int memoryBusWidth;   // bits
  size_t sharedMemPerBlock;
  int maxThreadsPerBlock;
};

enum hipFunction_attribute {
  HIP_FUNC_ATTRIBUTE_NUM_REGS = CU_FUNC_ATTRIBUTE_NUM_REGS,
  HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
};

enum hipStreamCaptureMode {
  hipStreamCaptureModeGlobal = CU_STREAM_CAPTURE_MODE_GLOBAL,
  hipStreamCaptureModeThreadLocal = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
  hipStreamCaptureModeRelaxed = CU_STREAM_CAPTURE_MODE_RELAXED,
};

#define hipStreamNonBlocking CU_STREAM_NON_BLOCKING

hipError_t hipInit(unsigned flags);
hipError_t hipGetDeviceCount(int* count);
hipError_t hipSetDevice(int device);
hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device);
hipError_t hipDriverGetVersion(int* version);
hipError_t hipRuntimeGetVersion(int* version);
const char* hipGetErrorString(hipError_t error);
const char* hipGetErrorName(hipError_t error);

hipError_t hipMalloc(void** ptr, size_t bytes);
hipError_t hipFree(void* ptr);
hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total_bytes);
hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t bytes);
hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t bytes);
hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes);
hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count);
hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count,
                            hipStream_t stream);
hipError_t hipDeviceSynchronize();

hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned flags);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipStreamQuery(hipStream_t stream);
hipError_t hipEventCreate(hipEvent_t* event);
hipError_t hipEventDestroy(hipEvent_t event);
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
hipError_t hipEventSynchronize(hipEvent_t event);
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop);

hipError_t hipModuleLoadData(hipModule_t* module, const void* image);
hipError_t hipModuleUnload(hipModule_t module);
hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name);
hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attribute, hipFunction_t function);
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
                                 hipStream_t stream, void** params, void** extra);

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode);
hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* graph);
hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, void* error_node, char* log,
                               size_t log_size);
hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t stream);
hipError_t hipGraphExecDestroy(hipGraphExec_t exec);
hipError_t hipGraphDestroy(hipGraph_t graph);
// Makes an instantiated graph ready on the device, so its first launch is
// not slower than the next ones.
hipError_t hipGraphUpload(hipGraphExec_t exec, hipStream_t stream);

// hipRTC onto NVRTC: the types and calls are the same shape.
typedef nvrtcProgram hiprtcProgram;
typedef nvrtcResult hiprtcResult;
#define HIPRTC_SUCCESS NVRTC_SUCCESS
inline hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name,
                                        int num_headers, const char* const* headers,
                                        const char* const* include_names) {
  return nvrtcCreateProgram(prog, src, name, num_headers, headers, include_names);
}
inline hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int num_options,
                                         const char* const* options) {
  return nvrtcCompileProgram(prog, num_options, options);
}
inline hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) { return nvrtcDestroyProgram(prog); }
inline hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* size) {
  return nvrtcGetProgramLogSize(prog, size);
}
inline hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
  return nvrtcGetProgramLog(prog, log);
}
// Code is PTX (kopt compiles for the virtual compute_XY architecture so the
// static checks can read the instructions; the driver assembles it on load).
inline hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* size) {
  return nvrtcGetPTXSize(prog, size);
}
inline hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
  return nvrtcGetPTX(prog, code);
}
inline const char* hiprtcGetErrorString(hiprtcResult result) { return nvrtcGetErrorString(result); }
inline hiprtcResult hiprtcVersion(int* major, int* minor) { return nvrtcVersion(major, minor); }

// Where NVRTC finds cuda_fp16.h (it does not search there by itself).
const char* kopt_cuda_include_dir();
// Why the driver could not be loaded, after a failed hipInit.
const char* kopt_driver_load_error();
