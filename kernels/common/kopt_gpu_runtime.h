// The GPU runtime under one set of names for everything built ahead of time
// (the shipped libraries, their generated kernels and examples): HIP on AMD;
// on NVIDIA the CUDA runtime under HIP names (as ggml's vendor header does
// in the other direction). The sandbox's run-time mapping onto the CUDA
// driver API and NVRTC is sandbox/gpu/hip_on_cuda.h.
#pragma once

#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#define hipDeviceAttributeL2CacheSize cudaDevAttrL2CacheSize
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipError_t cudaError_t
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEvent_t cudaEvent_t
#define hipFree cudaFree
#define hipGetDevice cudaGetDevice
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipGraphDestroy cudaGraphDestroy
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphExec_t cudaGraphExec_t
#define hipGraphInstantiate(e, g, node, log, size) cudaGraphInstantiate(e, g, 0)
#define hipGraphLaunch cudaGraphLaunch
#define hipGraph_t cudaGraph_t
#define hipMalloc cudaMalloc
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemsetAsync cudaMemsetAsync
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipStreamCreate cudaStreamCreate
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamEndCapture cudaStreamEndCapture
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStream_t cudaStream_t
#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#endif
