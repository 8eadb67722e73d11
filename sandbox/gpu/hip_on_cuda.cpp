// Implementation of hip_on_cuda.h: a table of CUDA driver entry points
// resolved with dlsym from libcuda.so.1, filled once by hipInit.
#include "sandbox/gpu/hip_on_cuda.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

// One member per driver call; the names are the exported (versioned) symbols.
struct DriverTable {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceTotalMem) device_total_mem = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemFree) mem_free = nullptr;
  decltype(&::cuMemGetInfo) mem_get_info = nullptr;
  decltype(&::cuMemcpyHtoD) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh = nullptr;
  decltype(&::cuMemcpyDtoD) memcpy_dtod = nullptr;
  decltype(&::cuMemsetD8) memset_d8 = nullptr;
  decltype(&::cuMemsetD8Async) memset_d8_async = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuStreamQuery) stream_query = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy) event_destroy = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  CUresult (*event_elapsed_time)(float*, CUevent, CUevent) = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuStreamBeginCapture) stream_begin_capture = nullptr;
  decltype(&::cuStreamEndCapture) stream_end_capture = nullptr;
  decltype(&::cuGraphInstantiateWithFlags) graph_instantiate = nullptr;
  decltype(&::cuGraphLaunch) graph_launch = nullptr;
  decltype(&::cuGraphExecDestroy) graph_exec_destroy = nullptr;
  decltype(&::cuGraphDestroy) graph_destroy = nullptr;
  decltype(&::cuGraphUpload) graph_upload = nullptr;  // optional: drivers before CUDA 11.1 lack it
};

DriverTable g_driver;
bool g_loaded = false;
std::string g_load_error = "hipInit has not been called";
std::once_flag g_load_once;

template <typename Fn>
bool resolve(void* lib, const char* symbol, Fn* slot) {
  *slot = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (*slot == nullptr) {
    g_load_error = std::string("libcuda.so.1 lacks ") + symbol;
    return false;
  }
  return true;
}

void load_driver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    g_load_error =
        std::string("no NVIDIA driver: cannot load libcuda.so.1 (") + (why ? why : "unknown") + ")";
    return;
  }
  DriverTable& d = g_driver;
  bool ok =
      resolve(lib, "cuInit", &d.init) && resolve(lib, "cuDeviceGetCount", &d.device_get_count) &&
      resolve(lib, "cuDeviceGet", &d.device_get) &&
      resolve(lib, "cuDeviceGetName", &d.device_get_name) &&
      resolve(lib, "cuDeviceGetAttribute", &d.device_get_attribute) &&
      resolve(lib, "cuDeviceTotalMem_v2", &d.device_total_mem) &&
      resolve(lib, "cuDevicePrimaryCtxRetain", &d.primary_ctx_retain) &&
      resolve(lib, "cuCtxSetCurrent", &d.ctx_set_current) &&
      resolve(lib, "cuCtxSynchronize", &d.ctx_synchronize) &&
      resolve(lib, "cuDriverGetVersion", &d.driver_get_version) &&
      resolve(lib, "cuGetErrorString", &d.get_error_string) &&
      resolve(lib, "cuGetErrorName", &d.get_error_name) &&
      resolve(lib, "cuMemAlloc_v2", &d.mem_alloc) && resolve(lib, "cuMemFree_v2", &d.mem_free) &&
      resolve(lib, "cuMemGetInfo_v2", &d.mem_get_info) &&
      resolve(lib, "cuMemcpyHtoD_v2", &d.memcpy_htod) &&
      resolve(lib, "cuMemcpyDtoH_v2", &d.memcpy_dtoh) &&
      resolve(lib, "cuMemcpyDtoD_v2", &d.memcpy_dtod) &&
      resolve(lib, "cuMemsetD8_v2", &d.memset_d8) &&
      resolve(lib, "cuMemsetD8Async", &d.memset_d8_async) &&
      resolve(lib, "cuStreamCreate", &d.stream_create) &&
      resolve(lib, "cuStreamDestroy_v2", &d.stream_destroy) &&
      resolve(lib, "cuStreamSynchronize", &d.stream_synchronize) &&
      resolve(lib, "cuStreamQuery", &d.stream_query) &&
      resolve(lib, "cuEventCreate", &d.event_create) &&
      resolve(lib, "cuEventDestroy_v2", &d.event_destroy) &&
      resolve(lib, "cuEventRecord", &d.event_record) &&
      resolve(lib, "cuEventSynchronize", &d.event_synchronize) &&
      resolve(lib, "cuEventElapsedTime", &d.event_elapsed_time) &&
      resolve(lib, "cuModuleLoadData", &d.module_load_data) &&
      resolve(lib, "cuModuleUnload", &d.module_unload) &&
      resolve(lib, "cuModuleGetFunction", &d.module_get_function) &&
      resolve(lib, "cuFuncGetAttribute", &d.func_get_attribute) &&
      resolve(lib, "cuLaunchKernel", &d.launch_kernel) &&
      resolve(lib, "cuStreamBeginCapture_v2", &d.stream_begin_capture) &&
      resolve(lib, "cuStreamEndCapture", &d.stream_end_capture) &&
      resolve(lib, "cuGraphInstantiateWithFlags", &d.graph_instantiate) &&
      resolve(lib, "cuGraphLaunch", &d.graph_launch) &&
      resolve(lib, "cuGraphExecDestroy", &d.graph_exec_destroy) &&
      resolve(lib, "cuGraphDestroy", &d.graph_destroy);
  d.graph_upload = reinterpret_cast<decltype(d.graph_upload)>(dlsym(lib, "cuGraphUpload"));
  if (ok) {
    g_loaded = true;
    g_load_error.clear();
  }
}

hipError_t to_hip(CUresult r) { return static_cast<hipError_t>(r); }

CUdeviceptr dptr(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

}  // namespace

// Every mapped call goes through this: no driver means hipErrorNoDevice.
#define KOPT_DRIVER_CALL(member, ...) \
  (g_loaded ? to_hip(g_driver.member(__VA_ARGS__)) : hipErrorNoDevice)

hipError_t hipInit(unsigned flags) {
  std::call_once(g_load_once, load_driver);
  if (!g_loaded) return hipErrorNoDevice;
  return to_hip(g_driver.init(flags));
}

hipError_t hipGetDeviceCount(int* count) {
  *count = 0;
  return KOPT_DRIVER_CALL(device_get_count, count);
}

hipError_t hipSetDevice(int device) {
  if (!g_loaded) return hipErrorNoDevice;
  CUdevice dev;
  CUresult r = g_driver.device_get(&dev, device);
  if (r != CUDA_SUCCESS) return to_hip(r);
  // The primary context is the one the CUDA runtime would use, so kernels
  // from kopt and from a host program that links it can share buffers.
  CUcontext ctx;
  r = g_driver.primary_ctx_retain(&ctx, dev);
  if (r != CUDA_SUCCESS) return to_hip(r);
  return to_hip(g_driver.ctx_set_current(ctx));
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device) {
  if (!g_loaded) return hipErrorNoDevice;
  std::memset(prop, 0, sizeof(*prop));
  CUdevice dev;
  CUresult r = g_driver.device_get(&dev, device);
  if (r != CUDA_SUCCESS) return to_hip(r);
  g_driver.device_get_name(prop->name, sizeof(prop->name) - 1, dev);
  g_driver.device_total_mem(&prop->totalGlobalMem, dev);
  struct {
    int* field;
    CUdevice_attribute attribute;
  } const attributes[] = {
      {&prop->multiProcessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
      {&prop->l2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
      {&prop->warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE},
      {&prop->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {&prop->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
      {&prop->clockRate, CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
      {&prop->memoryClockRate, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
      {&prop->memoryBusWidth, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
      {&prop->maxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
  };
  for (const auto& a : attributes) {
    r = g_driver.device_get_attribute(a.field, a.attribute, dev);
    if (r != CUDA_SUCCESS) return to_hip(r);
  }
  int shared = 0;
  g_driver.device_get_attribute(&shared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev);
  prop->sharedMemPerBlock = static_cast<size_t>(shared);
  return hipSuccess;
}

hipError_t hipDriverGetVersion(int* version) {
  *version = 0;
  return KOPT_DRIVER_CALL(driver_get_version, version);
}

hipError_t hipRuntimeGetVersion(int* version) {
  // No CUDA runtime is used; report the toolkit kopt was built against.
  *version = CUDA_VERSION;
  return hipSuccess;
}

const char* hipGetErrorString(hipError_t error) {
  if (error == hipErrorNoDevice && !g_loaded) return g_load_error.c_str();
  const char* s = nullptr;
  if (g_loaded) g_driver.get_error_string(static_cast<CUresult>(error), &s);
  return s ? s : "unknown error";
}

const char* hipGetErrorName(hipError_t error) {
  const char* s = nullptr;
  if (g_loaded) g_driver.get_error_name(static_cast<CUresult>(error), &s);
  return s ? s : "hipErrorUnknown";
}

hipError_t hipMalloc(void** ptr, size_t bytes) {
  CUdeviceptr p = 0;
  hipError_t e = KOPT_DRIVER_CALL(mem_alloc, &p, bytes);
  *ptr = reinterpret_cast<void*>(p);
  return e;
}
hipError_t hipFree(void* ptr) { return ptr ? KOPT_DRIVER_CALL(mem_free, dptr(ptr)) : hipSuccess; }
hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  return KOPT_DRIVER_CALL(mem_get_info, free_bytes, total_bytes);
}
hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t bytes) {
  return KOPT_DRIVER_CALL(memcpy_htod, dptr(dst), src, bytes);
}
hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t bytes) {
  return KOPT_DRIVER_CALL(memcpy_dtoh, dst, dptr(src), bytes);
}
hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes) {
  return KOPT_DRIVER_CALL(memcpy_dtod, dptr(dst), dptr(src), bytes);
}
hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count) {
  return KOPT_DRIVER_CALL(memset_d8, dptr(dst), value, count);
}
hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count,
                            hipStream_t stream) {
  return KOPT_DRIVER_CALL(memset_d8_async, dptr(dst), value, count, stream);
}
hipError_t hipDeviceSynchronize() { return KOPT_DRIVER_CALL(ctx_synchronize); }

hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned flags) {
  return KOPT_DRIVER_CALL(stream_create, stream, flags);
}
hipError_t hipStreamDestroy(hipStream_t stream) { return KOPT_DRIVER_CALL(stream_destroy, stream); }
hipError_t hipStreamSynchronize(hipStream_t stream) {
  return KOPT_DRIVER_CALL(stream_synchronize, stream);
}
hipError_t hipStreamQuery(hipStream_t stream) { return KOPT_DRIVER_CALL(stream_query, stream); }
hipError_t hipEventCreate(hipEvent_t* event) {
  return KOPT_DRIVER_CALL(event_create, event, CU_EVENT_DEFAULT);
}
hipError_t hipEventDestroy(hipEvent_t event) { return KOPT_DRIVER_CALL(event_destroy, event); }
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  return KOPT_DRIVER_CALL(event_record, event, stream);
}
hipError_t hipEventSynchronize(hipEvent_t event) {
  return KOPT_DRIVER_CALL(event_synchronize, event);
}
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  return KOPT_DRIVER_CALL(event_elapsed_time, ms, start, stop);
}

hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  return KOPT_DRIVER_CALL(module_load_data, module, image);
}
hipError_t hipModuleUnload(hipModule_t module) { return KOPT_DRIVER_CALL(module_unload, module); }
hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name) {
  return KOPT_DRIVER_CALL(module_get_function, function, module, name);
}
hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attribute,
                               hipFunction_t function) {
  return KOPT_DRIVER_CALL(func_get_attribute, value, static_cast<CUfunction_attribute>(attribute),
                          function);
}
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
                                 hipStream_t stream, void** params, void** extra) {
  return KOPT_DRIVER_CALL(launch_kernel, f, gx, gy, gz, bx, by, bz, shared_bytes, stream, params,
                          extra);
}

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode) {
  return KOPT_DRIVER_CALL(stream_begin_capture, stream, static_cast<CUstreamCaptureMode>(mode));
}
hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* graph) {
  return KOPT_DRIVER_CALL(stream_end_capture, stream, graph);
}
hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, void*, char*, size_t) {
  return KOPT_DRIVER_CALL(graph_instantiate, exec, graph, 0);
}
hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t stream) {
  return KOPT_DRIVER_CALL(graph_launch, exec, stream);
}
hipError_t hipGraphExecDestroy(hipGraphExec_t exec) {
  return KOPT_DRIVER_CALL(graph_exec_destroy, exec);
}
hipError_t hipGraphDestroy(hipGraph_t graph) { return KOPT_DRIVER_CALL(graph_destroy, graph); }
hipError_t hipGraphUpload(hipGraphExec_t exec, hipStream_t stream) {
  if (g_loaded && g_driver.graph_upload == nullptr)
    return hipSuccess;  // uploaded on first launch instead
  return KOPT_DRIVER_CALL(graph_upload, exec, stream);
}

const char* kopt_cuda_include_dir() {
  // CUDA_HOME first (a user's own toolkit), then the configure-time path,
  // then the conventional location.
  static std::string dir = [] {
    struct stat st;
    for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
      const char* v = std::getenv(env);
      if (v != nullptr) {
        std::string d = std::string(v) + "/include";
        if (stat((d + "/cuda_fp16.h").c_str(), &st) == 0) return d;
      }
    }
#ifdef KOPT_CUDA_INCLUDE_DIR
    if (stat(KOPT_CUDA_INCLUDE_DIR "/cuda_fp16.h", &st) == 0)
      return std::string(KOPT_CUDA_INCLUDE_DIR);
#endif
    return std::string("/usr/local/cuda/include");
  }();
  return dir.c_str();
}

const char* kopt_driver_load_error() { return g_load_error.c_str(); }
