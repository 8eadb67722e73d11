#include "sandbox/device_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include "sandbox/candidate.h"
#include "sandbox/gpu_api.h"
#include "sandbox/prelude.h"
#include "sandbox/rtc.h"
#include "sandbox/static_checks.h"
#include "sandbox/vendor_blas.h"

namespace kopt {

namespace {

// Guard bands around every buffer: a candidate that writes outside its
// output changes them. 4 KiB keeps the user region 256-byte aligned.
constexpr size_t kGuardBytes = 4096;
constexpr unsigned char kGuardByte = 0xA5;
// 0xFF bytes are a NaN in fp32: an output element nobody wrote stays NaN.
constexpr unsigned char kPoisonByte = 0xFF;
// The workspace is poisoned too (with bytes that are not zero) before the
// one zeroing the contract promises, so reliance on fresh memory shows.
constexpr size_t kMinWorkspaceBytes = 256;
// GPU time spent replaying the timing graph before each timed batch.
constexpr double kWarmupSeconds = 0.05;

class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() {
    if (base_) (void)hipFree(base_);
  }
  Status allocate(size_t bytes) {
    bytes_ = bytes;
    KOPT_GPU_CHECK(hipMalloc(&base_, bytes + 2 * kGuardBytes));
    KOPT_GPU_CHECK(hipMemsetD8(base_, kGuardByte, kGuardBytes));
    KOPT_GPU_CHECK(hipMemsetD8(user() + bytes, kGuardByte, kGuardBytes));
    return Status();
  }
  char* user() const { return static_cast<char*>(base_) + kGuardBytes; }
  void* ptr() const { return user(); }
  size_t size() const { return bytes_; }
  Status upload(const void* data, size_t bytes) {
    // HIP declares the source non-const; it is only read.
    KOPT_GPU_CHECK(hipMemcpyHtoD(user(), const_cast<void*>(data), bytes));
    return Status();
  }
  Status download(void* data, size_t bytes) const {
    KOPT_GPU_CHECK(hipMemcpyDtoH(data, user(), bytes));
    return Status();
  }
  // On the evaluation stream and waited for: a memset on another stream
  // could land after (and undo) the kernels that follow it.
  Status fill(unsigned char value, hipStream_t stream) {
    KOPT_GPU_CHECK(hipMemsetD8Async(user(), value, bytes_, stream));
    KOPT_GPU_CHECK(hipStreamSynchronize(stream));
    return Status();
  }
  Status guards_intact(bool* intact) const {
    std::vector<unsigned char> front(kGuardBytes), back(kGuardBytes);
    KOPT_GPU_CHECK(hipMemcpyDtoH(front.data(), base_, kGuardBytes));
    KOPT_GPU_CHECK(hipMemcpyDtoH(back.data(), user() + bytes_, kGuardBytes));
    auto clean = [](const std::vector<unsigned char>& v) {
      return std::all_of(v.begin(), v.end(), [](unsigned char b) { return b == kGuardByte; });
    };
    *intact = clean(front) && clean(back);
    return Status();
  }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

struct Module {
  hipModule_t module = nullptr;
  ~Module() {
    if (module) (void)hipModuleUnload(module);
  }
};

struct Stream {
  hipStream_t stream = nullptr;
  ~Stream() {
    if (stream) (void)hipStreamDestroy(stream);
  }
};

struct Event {
  hipEvent_t event = nullptr;
  ~Event() {
    if (event) (void)hipEventDestroy(event);
  }
};

// One of kopt's own kernels (not a candidate): compiled with `options`,
// loaded into `module`, its entry point `name` found.
Status load_builtin_kernel(const char* source, const char* name, const std::vector<std::string>& options,
                           Module* module, hipFunction_t* function) {
  RtcOutput compiled;
  KOPT_RETURN_IF_ERROR(rtc_compile(assemble_source(source), options, &compiled));
  if (!compiled.compiled) return Status::error(std::string("kopt's kernel ") + name + " does not compile: " + compiled.log);
  KOPT_GPU_CHECK(hipModuleLoadData(&module->module, compiled.code.data()));
  KOPT_GPU_CHECK(hipModuleGetFunction(function, module->module, name));
  return Status();
}

struct BoundLaunch {
  hipFunction_t function;
  ResolvedLaunch launch;
};

// The GPU errors that mean the kernel faulted and the context is gone.
bool is_fault(int code) {
#if defined(KOPT_PLATFORM_NVIDIA)
  return code == CUDA_ERROR_ILLEGAL_ADDRESS || code == CUDA_ERROR_LAUNCH_FAILED ||
         code == CUDA_ERROR_ILLEGAL_INSTRUCTION || code == CUDA_ERROR_MISALIGNED_ADDRESS ||
         code == CUDA_ERROR_INVALID_ADDRESS_SPACE || code == CUDA_ERROR_INVALID_PC ||
         code == CUDA_ERROR_HARDWARE_STACK_ERROR || code == CUDA_ERROR_ASSERT ||
         code == CUDA_ERROR_LAUNCH_TIMEOUT || code == CUDA_ERROR_UNKNOWN;
#else
  return code == hipErrorLaunchFailure || code == hipErrorIllegalAddress ||
         code == hipErrorAssert || code == hipErrorLaunchTimeOut || code == hipErrorUnknown;
#endif
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

const char* const kBandwidthKernel = R"(
// Streaming read: 16-byte loads, UNROLL loads in flight per thread, one store
// per thread that depends on every load so nothing is optimised away.
KOPT_KERNEL void kopt_read_bandwidth(const uint4* __restrict__ p, kopt_u64 n16, kopt_u32* out) {
  kopt_u32 acc = 0;
  const kopt_u64 stride = (kopt_u64)gridDim.x * blockDim.x;
  kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = kopt_load_stream16(p + i + u * stride);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n16; i += stride) {
    uint4 v = kopt_load_stream16(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) out[0] = acc;
}
)";

// Fills a block's shared memory with a pattern. Launched with the most
// dynamic shared memory a block may have and several blocks per
// multiprocessor, so every shared-memory slot a candidate's block can be
// given holds the pattern when the candidate starts: a kernel that reads
// shared memory it never wrote gets garbage, not the zeros (or the values of
// its own previous launch) that the hardware often happens to hold.
const char* const kSharedPoisonKernel = R"(
KOPT_KERNEL void kopt_poison_shared(kopt_u32 pattern, kopt_u32 words) {
  extern __shared__ kopt_u32 kopt_poison_words[];
  for (kopt_u32 i = threadIdx.x; i < words; i += blockDim.x) kopt_poison_words[i] = pattern;
  __syncthreads();
}
)";

// The vendor BLAS baseline's load-time step: the canonical weights
// dequantised to fp16, row n holding the K weights of output n.
const char* const kDequantizeKernel = R"(
KOPT_KERNEL void kopt_dequantize_fp16(const kopt_u8* w, __half* out, int K, int N, int G) {
  const kopt_u64 i = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;  // one byte: two weights
  if (i >= (kopt_u64)N * (K / 2)) return;
  const kopt_u64 n = i / (K / 2);
  const int k = (int)(i % (K / 2)) * 2;
  const kopt_u64 g = n * (K / G) + k / G;
  const float s = __half2float(kopt_canonical_scales(w, K, N, G)[g]);
  const float o = __half2float(kopt_canonical_offsets(w, K, N, G)[g]);
  out[n * K + k] = __float2half(s * (float)(w[i] & 15) + o);
  out[n * K + k + 1] = __float2half(s * (float)(w[i] >> 4) + o);
}
)";

// Shared-memory patterns of the two verification runs: an fp32/fp16 NaN,
// then a huge finite fp32 (0x7F7F7F7F = 3.4e38). Zero, the third, is used
// only to explain a failure.
constexpr uint32_t kSharedPoison[2] = {0xFFFFFFFFu, 0x7F7F7F7Fu};

}  // namespace

struct DeviceRunner::Impl {
  Stream stream;
  std::vector<std::string> base_options;
  double read_bw = 0;
  // The vendor BLAS baseline and its dequantisation, created on first use.
  std::unique_ptr<VendorBlas> blas;
  Module dequantize_module;
  hipFunction_t dequantize = nullptr;
  // The shared-memory poisoner, compiled on first use.
  Module poison_module;
  hipFunction_t poison = nullptr;
};

std::unique_ptr<DeviceRunner> DeviceRunner::create(std::string* error) {
  hipError_t e = hipInit(0);
  int count = 0;
  if (e == hipSuccess) e = hipGetDeviceCount(&count);
  if (e != hipSuccess || count == 0) {
    *error = std::string("no GPU: ") + (e != hipSuccess ? hipGetErrorString(e) : "no device found");
    return nullptr;
  }
  std::unique_ptr<DeviceRunner> r(new DeviceRunner());
  r->impl_ = std::make_unique<Impl>();
  hipDeviceProp_t prop;
  if ((e = hipSetDevice(0)) != hipSuccess || (e = hipGetDeviceProperties(&prop, 0)) != hipSuccess ||
      // A blocking stream: ordered with the synchronous copies and memsets
      // of the default stream too.
      (e = hipStreamCreateWithFlags(&r->impl_->stream.stream, 0)) != hipSuccess) {
    *error = std::string("GPU initialisation failed: ") + hipGetErrorString(e);
    return nullptr;
  }
  DeviceInfo& d = r->device_;
  d.name = prop.name;
  d.platform = gpu_platform_name();
  d.multiprocessors = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  d.warp_size = prop.warpSize;
  d.clock_khz = prop.clockRate;
  d.memory_clock_khz = prop.memoryClockRate;
  d.total_memory = static_cast<int64_t>(prop.totalGlobalMem);
  d.max_shared_bytes = static_cast<int64_t>(prop.sharedMemPerBlock);
  d.max_threads_per_block = prop.maxThreadsPerBlock;
  // Informational: a failure leaves 0, recorded as such.
  (void)hipDriverGetVersion(&d.driver_version);
  (void)hipRuntimeGetVersion(&d.runtime_version);
  d.compiler = rtc_compiler_version();
#if defined(KOPT_PLATFORM_NVIDIA)
  const std::string arch = std::to_string(prop.major) + std::to_string(prop.minor);
  d.arch = "sm_" + arch;
#else
  const std::string arch = prop.gcnArchName;
  d.arch = arch;
#endif
  r->impl_->base_options = rtc_target_options(arch, prop.warpSize);
  return r;
}

DeviceRunner::~DeviceRunner() = default;

double DeviceRunner::read_bandwidth_gbps() {
  if (impl_->read_bw > 0) return impl_->read_bw;
  size_t free_bytes = 0, total = 0;
  if (hipMemGetInfo(&free_bytes, &total) != hipSuccess) return 0;
  size_t bytes = std::max<size_t>(size_t{1} << 30, static_cast<size_t>(device_.l2_bytes) * 16);
  bytes = std::min(bytes, free_bytes / 4) & ~size_t{255};
  void* buf = nullptr;
  void* out = nullptr;
  if (hipMalloc(&buf, bytes) != hipSuccess || hipMalloc(&out, 256) != hipSuccess) return 0;
  (void)hipMemsetD8(buf, 0x3C, bytes);
  double best = 0;
  for (int unroll : {4, 8}) {
    std::vector<std::string> opts = impl_->base_options;
    opts.push_back("-DUNROLL=" + std::to_string(unroll));
    Module m;
    hipFunction_t f;
    if (!load_builtin_kernel(kBandwidthKernel, "kopt_read_bandwidth", opts, &m, &f).ok()) continue;
    unsigned long long n16 = bytes / 16;
    void* args[] = {&buf, &n16, &out};
    unsigned grid = static_cast<unsigned>(device_.multiprocessors) * 4, block = 512;
    Event start, stop;
    if (hipEventCreate(&start.event) != hipSuccess || hipEventCreate(&stop.event) != hipSuccess) continue;
    std::vector<double> samples;
    const int launches = 3;
    for (int rep = 0; rep < 12; ++rep) {
      bool ok = hipEventRecord(start.event, impl_->stream.stream) == hipSuccess;
      for (int l = 0; l < launches && ok; ++l)
        ok = hipModuleLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, impl_->stream.stream, args, nullptr) == hipSuccess;
      ok = ok && hipEventRecord(stop.event, impl_->stream.stream) == hipSuccess;
      float ms = 0;
      if (!ok || hipEventSynchronize(stop.event) != hipSuccess ||
          hipEventElapsedTime(&ms, start.event, stop.event) != hipSuccess)
        break;
      if (rep >= 2 && ms > 0) samples.push_back(static_cast<double>(bytes) * launches / (ms * 1e-3) / 1e9);
    }
    best = std::max(best, median(samples));
  }
  (void)hipFree(buf);
  (void)hipFree(out);
  impl_->read_bw = best;
  device_.read_bandwidth_gbps = best;
  return best;
}

Status DeviceRunner::poison_shared_memory(uint32_t pattern) {
  Impl& im = *impl_;
  if (im.poison == nullptr)
    KOPT_RETURN_IF_ERROR(
        load_builtin_kernel(kSharedPoisonKernel, "kopt_poison_shared", im.base_options, &im.poison_module, &im.poison));
  uint32_t bytes = static_cast<uint32_t>(device_.max_shared_bytes);
  uint32_t words = bytes / 4;
  void* args[] = {&pattern, &words};
  // Eight blocks per multiprocessor: more than fit at once with the most
  // shared memory each, so every slot of every multiprocessor is written.
  const unsigned grid = static_cast<unsigned>(device_.multiprocessors) * 8;
  KOPT_GPU_CHECK(hipModuleLaunchKernel(im.poison, grid, 1, 1, 256, 1, 1, bytes, im.stream.stream, args, nullptr));
  KOPT_GPU_CHECK(hipStreamSynchronize(im.stream.stream));
  return Status();
}

namespace {

// Everything one evaluation allocates, freed on every path out.
struct Evaluation {
  const EvalRequest& request;
  const DeviceInfo& device;
  hipStream_t stream;
  EvalResult& result;
  Candidate candidate;
  LaunchPlan plan;
  Module module;
  std::vector<BoundLaunch> call;
  std::function<Status(const void* x, const void* w, void* y)> baseline_call;
  hipFunction_t relayout = nullptr;
  bool fault = false;
  // Records the stage reached and reports it to the orchestrator.
  std::function<void(const std::string&)> enter;

  Evaluation(const EvalRequest& r, const DeviceInfo& d, hipStream_t s, EvalResult& out)
      : request(r), device(d), stream(s), result(out) {}

  // Ends the evaluation with a verdict; returns false so callers can `return fail(...)`.
  bool fail(Verdict v, const std::string& message) {
    result.verdict = v;
    result.message = message;
    return false;
  }
  // A GPU failure: a fault in the candidate's kernel, or our own error.
  bool gpu_fail(const Status& s, const std::string& during) {
    if (is_fault(s.gpu_code())) {
      fault = true;
      return fail(Verdict::kLaunchError, "kernel fault during " + during + ": " + s.message());
    }
    return fail(Verdict::kInternalError, s.message());
  }

  Status launch_one(const BoundLaunch& b, const void* x, const void* w, void* y, void* ws) {
    int K = static_cast<int>(request.shape.K), N = static_cast<int>(request.shape.N),
        G = static_cast<int>(request.shape.G);
    void* args[] = {&x, &w, &y, &ws, &K, &N, &G};
    const auto& l = b.launch;
    KOPT_GPU_CHECK(hipModuleLaunchKernel(b.function, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                         l.block[2], l.shared_bytes, stream, args, nullptr));
    return Status();
  }
  // One GEMV call: every launch the candidate declares, in order (or the
  // baseline's library call).
  Status launch_call(const void* x, const void* w, void* y, void* ws) {
    if (baseline_call) return baseline_call(x, w, y);
    for (const auto& b : call) KOPT_RETURN_IF_ERROR(launch_one(b, x, w, y, ws));
    return Status();
  }
  Status run_relayout(const void* canonical, void* packed) {
    int K = static_cast<int>(request.shape.K), N = static_cast<int>(request.shape.N),
        G = static_cast<int>(request.shape.G);
    void* args[] = {&canonical, &packed, &K, &N, &G};
    const auto& l = *plan.relayout;
    KOPT_GPU_CHECK(hipModuleLaunchKernel(relayout, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                         l.block[2], l.shared_bytes, stream, args, nullptr));
    KOPT_GPU_CHECK(hipStreamSynchronize(stream));
    return Status();
  }
  Status sync() {
    KOPT_GPU_CHECK(hipStreamSynchronize(stream));
    return Status();
  }
};

// The vendor BLAS baseline: a built-in dequantisation to fp16 is its
// load-time re-layout, the library's GEMV its call.
bool prepare_baseline(Evaluation& ev, DeviceRunner::Impl& impl) {
  ev.enter("load");
  if (ev.request.baseline != kVendorBlasBaseline)
    return ev.fail(Verdict::kContractError, "unknown baseline '" + ev.request.baseline + "'");
  Status bs = validate_shape(ev.request.shape);
  if (!bs.ok()) return ev.fail(Verdict::kContractError, bs.message());
  if (!impl.blas) {
    std::string why;
    impl.blas = VendorBlas::create(impl.stream.stream, &why);
    if (!impl.blas) return ev.fail(Verdict::kInternalError, why);
  }
  if (impl.dequantize == nullptr) {
    bs = load_builtin_kernel(kDequantizeKernel, "kopt_dequantize_fp16", impl.base_options, &impl.dequantize_module,
                             &impl.dequantize);
    if (!bs.ok()) return ev.fail(Verdict::kInternalError, bs.message());
  }
  ev.relayout = impl.dequantize;
  const int64_t K = ev.request.shape.K, N = ev.request.shape.N;
  ResolvedLaunch dequantize;
  dequantize.kernel = "kopt_dequantize_fp16";
  dequantize.grid = {static_cast<uint32_t>((N * (K / 2) + 255) / 256), 1, 1};
  dequantize.block = {256, 1, 1};
  ev.plan.relayout = dequantize;
  ev.plan.packed_bytes = N * K * 2;
  ev.result.candidate_key = ev.request.baseline;
  ev.result.compile_flags = impl.blas->version();
  VendorBlas* blas = impl.blas.get();
  ev.baseline_call = [blas, K, N](const void* x, const void* w, void* y) {
    return blas->gemv(w, x, y, static_cast<int>(K), static_cast<int>(N));
  };
  return true;
}

// A candidate: contract and plan, static checks, compile, scan, load, bind.
// Returns false with the verdict in ev.result.
bool prepare_candidate(Evaluation& ev, DeviceRunner::Impl& impl, const DeviceInfo& device) {
  // Contract and plan.
  ev.enter("contract");
  Status s = validate_shape(ev.request.shape);
  if (!s.ok()) return ev.fail(Verdict::kContractError, s.message());
  s = parse_candidate(ev.request.source, ev.request.params, &ev.candidate);
  if (!s.ok()) return ev.fail(Verdict::kContractError, s.message());
  ev.result.candidate_key = candidate_key(ev.candidate);
  DeviceLimits limits{device.warp_size, device.multiprocessors, device.max_threads_per_block,
                      device.max_shared_bytes};
  s = plan_launches(ev.candidate, ev.request.shape, limits, &ev.plan);
  if (!s.ok()) return ev.fail(Verdict::kContractError, s.message());
  if (!ev.plan.supported) return ev.fail(Verdict::kUnsupportedShape, ev.plan.unsupported_reason);

  // Static checks on the source.
  ev.enter("static");
  std::vector<std::string> kernels;
  for (const auto& l : ev.candidate.spec.launches) kernels.push_back(l.kernel);
  if (ev.candidate.spec.relayout) kernels.push_back(ev.candidate.spec.relayout->kernel);
  std::string cleaned;
  s = check_source(ev.request.source, kernels, &cleaned);
  if (!s.ok()) return ev.fail(Verdict::kStaticRejected, s.message());

  // Compile, scan the code, load.
  ev.enter("compile");
  std::vector<std::string> options = impl.base_options;
  for (const auto& d : parameter_defines(ev.candidate)) options.push_back(d);
  for (const auto& o : options) ev.result.compile_flags += (ev.result.compile_flags.empty() ? "" : " ") + o;
  RtcOutput compiled;
  s = rtc_compile(assemble_source(cleaned), options, &compiled);
  ev.result.log = compiled.log.substr(0, 16384);
  const std::string& code = compiled.code;
  if (!s.ok()) return ev.fail(Verdict::kInternalError, s.message());
  if (!compiled.compiled) return ev.fail(Verdict::kCompileError, "does not compile for " + device.arch);
#if defined(KOPT_PLATFORM_NVIDIA)
  s = check_no_matrix_instructions(code);
  if (!s.ok()) return ev.fail(Verdict::kStaticRejected, s.message());
#endif
  ev.enter("load");
  hipError_t e = hipModuleLoadData(&ev.module.module, code.data());
  if (e != hipSuccess) return ev.fail(Verdict::kCompileError, std::string("module load failed: ") + hipGetErrorString(e));
  auto bind = [&](const std::string& name, hipFunction_t* f) {
    if (hipModuleGetFunction(f, ev.module.module, name.c_str()) != hipSuccess)
      return ev.fail(Verdict::kContractError, "kernel '" + name + "' not found in the compiled code");
    int regs = 0, local = 0, shared = 0;
    // Resources are recorded, not required: a failed query leaves 0.
    (void)hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_NUM_REGS, *f);
    (void)hipFuncGetAttribute(&local, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, *f);
    (void)hipFuncGetAttribute(&shared, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, *f);
    ev.result.nvidia.checked = true;
    ev.result.nvidia.registers = std::max(ev.result.nvidia.registers, regs);
    ev.result.nvidia.local_bytes = std::max(ev.result.nvidia.local_bytes, local);
    ev.result.nvidia.static_shared_bytes = std::max(ev.result.nvidia.static_shared_bytes, shared);
    return true;
  };
  for (const auto& l : ev.plan.launches) {
    BoundLaunch b{nullptr, l};
    if (!bind(l.kernel, &b.function)) return false;
    ev.call.push_back(b);
  }
  return !ev.plan.relayout || bind(ev.plan.relayout->kernel, &ev.relayout);
}

}  // namespace

EvalResult DeviceRunner::evaluate(const EvalRequest& req, const StageCallback& stage) {
  EvalResult result;
  result.shape = req.shape.name();
  result.device = device_;
  Evaluation ev(req, device_, impl_->stream.stream, result);
  // However the evaluation ends, a kernel fault means this context is gone.
  struct FaultRecorder {
    const Evaluation& ev;
    bool& lost;
    ~FaultRecorder() { lost = lost || ev.fault; }
  } fault_recorder{ev, context_lost_};
  ev.enter = [&](const std::string& s) {
    result.stage = s;
    if (stage) stage(s);
  };

  const bool prepared = req.baseline.empty() ? prepare_candidate(ev, *impl_, device_) : prepare_baseline(ev, *impl_);
  if (!prepared) return result;
  Status s;

  const Shape& shape = req.shape;
  const CanonicalLayout layout = CanonicalLayout::of(shape);
  const bool has_relayout = ev.plan.relayout.has_value();
  const size_t w_bytes = has_relayout ? static_cast<size_t>(ev.plan.packed_bytes) : layout.total_bytes;
  const size_t ws_bytes = std::max<size_t>(kMinWorkspaceBytes, static_cast<size_t>(ev.plan.workspace_bytes));
  const size_t x_bytes = static_cast<size_t>(shape.K) * 2, y_bytes = static_cast<size_t>(shape.N) * 4;

  // Verification buffers.
  GuardedBuffer x, canonical, packed, y, ws;
  s = x.allocate(x_bytes);
  if (s.ok()) s = canonical.allocate(layout.total_bytes);
  if (s.ok() && has_relayout) s = packed.allocate(w_bytes);
  if (s.ok()) s = y.allocate(y_bytes);
  if (s.ok()) s = ws.allocate(ws_bytes);
  if (!s.ok()) {
    ev.fail(Verdict::kInternalError, "allocating verification buffers: " + s.message());
    return result;
  }
  GuardedBuffer& weights = has_relayout ? packed : canonical;
  auto check_guards = [&](const std::string& during) {
    for (const GuardedBuffer* b : {&x, &canonical, &y, &ws, &packed}) {
      if (b->ptr() == nullptr || b->size() == 0) continue;
      bool intact = true;
      Status gs = b->guards_intact(&intact);
      if (!gs.ok()) return ev.gpu_fail(gs, during);
      if (!intact) return ev.fail(Verdict::kGuardViolation, "bytes outside a buffer changed during " + during);
    }
    return true;
  };
  // Downloads a buffer and compares it with what it held before the run.
  auto unchanged = [&](const GuardedBuffer& b, const std::vector<uint8_t>& before, const std::string& what,
                       const std::string& during) {
    std::vector<uint8_t> now(before.size());
    Status ds = b.download(now.data(), now.size());
    if (!ds.ok()) return ev.gpu_fail(ds, during);
    if (now != before) return ev.fail(Verdict::kInputModified, what + " changed during " + during);
    return true;
  };

  std::vector<float> out(static_cast<size_t>(shape.N)), again(static_cast<size_t>(shape.N));
  // After a wrong result: one more run with shared memory zeroed. If that one
  // is right, the kernel reads shared memory it never wrote, and says so.
  auto shared_memory_hint = [&](const std::vector<double>& ref) -> std::string {
    std::vector<float> probe(out.size());
    Status ps = y.fill(kPoisonByte, ev.stream);
    if (ps.ok()) ps = poison_shared_memory(0);
    if (ps.ok()) ps = ev.launch_call(x.ptr(), weights.ptr(), y.ptr(), ws.ptr());
    if (ps.ok()) ps = ev.sync();
    if (ps.ok()) ps = y.download(probe.data(), y_bytes);
    if (!ps.ok()) {
      ev.fault = ev.fault || is_fault(ps.gpu_code());
      return "";
    }
    return compare_output(ref, probe.data(), Tolerance{}).ok
               ? "; right when shared memory starts zeroed: the kernel reads shared memory it never wrote"
               : "";
  };
  const std::vector<Dataset> datasets = all_datasets();
  std::string baseline_misses;  // a baseline's accuracy note (see below)
  for (int trial = 0; trial < req.trials; ++trial) {
    for (Dataset dataset : datasets) {
      const std::string what = std::string(dataset_name(dataset)) + " #" + std::to_string(trial + 1);
      ev.enter("verify " + what);
      result.dataset = dataset_name(dataset);
      ProblemData data = generate_problem(shape, dataset, verification_seed(req.seed, trial, dataset));
      std::vector<double> ref = reference_gemv(data);
      s = x.upload(data.x.data(), x_bytes);
      if (s.ok()) s = canonical.upload(data.blob.data(), data.blob.size());
      if (s.ok() && has_relayout) s = packed.fill(kPoisonByte, ev.stream);
      if (!s.ok()) return ev.gpu_fail(s, "upload"), result;
      // Load time: the re-layout, untimed, then the workspace zeroing the
      // contract promises (after poisoning it, so stale contents never help).
      if (has_relayout) {
        s = ev.run_relayout(canonical.ptr(), packed.ptr());
        if (!s.ok()) return ev.gpu_fail(s, "relayout " + what), result;
        if (!unchanged(canonical, data.blob, "the canonical weights", "relayout " + what)) return result;
      }
      if (!(s = ws.fill(kPoisonByte, ev.stream)).ok() || !(s = ws.fill(0, ev.stream)).ok()) return ev.gpu_fail(s, "workspace"), result;
      std::vector<uint8_t> w_before(w_bytes);
      if (!(s = weights.download(w_before.data(), w_bytes)).ok()) return ev.gpu_fail(s, "download"), result;

      // Run, twice on the same inputs, each time into a poisoned output and
      // with shared memory poisoned with a different pattern.
      for (int run = 0; run < 2; ++run) {
        std::vector<float>& dst = run == 0 ? out : again;
        if (!(s = y.fill(kPoisonByte, ev.stream)).ok()) return ev.gpu_fail(s, "poison"), result;
        if (!(s = poison_shared_memory(kSharedPoison[run])).ok()) return ev.gpu_fail(s, "shared-memory poison"), result;
        s = ev.launch_call(x.ptr(), weights.ptr(), y.ptr(), ws.ptr());
        if (s.ok()) s = ev.sync();
        if (!s.ok()) {
          if (is_fault(s.gpu_code())) {
            ev.fault = true;
            ev.fail(Verdict::kLaunchError, "kernel fault on " + what + ": " + s.message());
          } else {
            ev.fail(Verdict::kLaunchError, "launch failed on " + what + ": " + s.message());
          }
          return result;
        }
        if (!(s = y.download(dst.data(), y_bytes)).ok()) return ev.gpu_fail(s, "download"), result;
        if (!check_guards(what)) return result;
        if (!unchanged(x, std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(data.x.data()),
                                               reinterpret_cast<const uint8_t*>(data.x.data()) + x_bytes),
                       "x", what))
          return result;
        if (!unchanged(weights, w_before, "the weights", what)) return result;
      }
      // Both runs must write every element and be right (the second run
      // would expose output left over from the first).
      for (int run = 0; run < 2; ++run) {
        Comparison c = compare_output(ref, run == 0 ? out.data() : again.data(), Tolerance{});
        result.max_abs_error = std::max(result.max_abs_error, c.max_abs_error);
        // A baseline is a peer, not a candidate: its fp16-rounded weights
        // (2^-11 relative) times an outlier of x (up to 128) can miss the
        // bound by a little. That is its accuracy, recorded, not a reason
        // to leave it out of the comparison; every other check still ends it.
        if (!c.ok && !req.baseline.empty() && dataset == Dataset::kOutliers && c.not_written == 0) {
          if (baseline_misses.empty()) baseline_misses = "; misses the 1e-2 bound on " + what + ": " + c.describe();
          continue;
        }
        if (!c.ok) {
          result.first_bad_index = c.first_bad;
          result.expected = c.expected;
          result.got = c.got;
          ev.fail(c.not_written > 0 ? Verdict::kNotWritten : Verdict::kWrongResult,
                  what + (run == 1 ? " (second run)" : "") + ": " + c.describe() + shared_memory_hint(ref));
          return result;
        }
      }
      if (zero_variance(out.data(), out.size()) && shape.N > 1) {
        ev.fail(Verdict::kZeroVariance, what + ": every output element has the same value");
        return result;
      }
      if (!ev.candidate.spec.nondeterministic &&
          std::memcmp(out.data(), again.data(), y_bytes) != 0) {
        size_t i = 0;
        while (i < out.size() && std::memcmp(&out[i], &again[i], 4) == 0) ++i;
        result.first_bad_index = static_cast<int64_t>(i);
        result.expected = out[i];
        result.got = again[i];
        ev.fail(Verdict::kNondeterministic, what + ": two runs on the same inputs differ at index " +
                                                std::to_string(i) + " (declare \"nondeterministic\": true if intended)");
        return result;
      }
    }
  }
  result.dataset.clear();

  if (!req.time) {
    result.verdict = Verdict::kOk;
    result.message = "verified (not timed)";
    return result;
  }

  // Timing: rotate among enough weight copies that the working set is several
  // times the L2, launch many calls per measurement from a captured graph.
  ev.enter("time setup");
  const double bw = read_bandwidth_gbps();
  const size_t per_copy = w_bytes + x_bytes + y_bytes + ws_bytes;
  const size_t target = static_cast<size_t>(req.working_set_l2_multiple * static_cast<double>(device_.l2_bytes));
  size_t copies = std::clamp<size_t>((target + per_copy - 1) / per_copy, 2, 4096);
  size_t free_bytes = 0, total_bytes = 0;
  if (hipError_t me = hipMemGetInfo(&free_bytes, &total_bytes); me != hipSuccess)
    return ev.gpu_fail(GpuError{me, std::string("hipMemGetInfo: ") + hipGetErrorString(me)}, "timing setup"), result;
  if (copies * per_copy > free_bytes / 2) {
    ev.fail(Verdict::kInternalError, "not enough device memory to rotate " + std::to_string(copies) + " weight copies");
    return result;
  }
  // Every copy has its own weights, x, y and workspace, as every layer of a
  // model has its own: nothing a call touches is left warm by the call before.
  std::vector<std::unique_ptr<GuardedBuffer>> wc(copies), xc(copies), yc(copies), wsc(copies);
  // Copies whose outputs are checked after every batch: first, middle, last.
  std::map<size_t, size_t> checked;  // copy index -> position in checked_data
  for (size_t i : {size_t{0}, copies / 2, copies - 1}) checked.emplace(i, checked.size());
  std::vector<ProblemData> checked_data(checked.size());
  for (size_t i = 0; i < copies; ++i) {
    wc[i] = std::make_unique<GuardedBuffer>();
    wsc[i] = std::make_unique<GuardedBuffer>();
    xc[i] = std::make_unique<GuardedBuffer>();
    yc[i] = std::make_unique<GuardedBuffer>();
    s = wc[i]->allocate(w_bytes);
    if (s.ok()) s = xc[i]->allocate(x_bytes);
    if (s.ok()) s = yc[i]->allocate(y_bytes);
    if (s.ok()) s = wsc[i]->allocate(ws_bytes);
    if (s.ok()) s = wsc[i]->fill(0, ev.stream);
    if (!s.ok()) return ev.gpu_fail(s, "timing allocation"), result;
    ProblemData data = generate_problem(shape, Dataset::kRandom, req.seed * 7919ull + 1000 + i);
    s = has_relayout ? canonical.upload(data.blob.data(), data.blob.size())
                     : wc[i]->upload(data.blob.data(), data.blob.size());
    if (s.ok() && has_relayout) s = ev.run_relayout(canonical.ptr(), wc[i]->ptr());
    if (!s.ok()) return ev.gpu_fail(s, "timing relayout"), result;
    auto c = checked.find(i);
    if (c != checked.end()) checked_data[c->second] = std::move(data);
  }

  const size_t calls = copies * std::max<size_t>(1, (64 + copies - 1) / copies);
  Timing timing;
  timing.weight_copies = static_cast<int>(copies);
  timing.working_set_bytes = static_cast<int64_t>(copies * per_copy);
  timing.calls_per_repetition = static_cast<int>(calls);
  timing.bytes = shape_bytes(shape);

  hipGraph_t graph = nullptr;
  hipGraphExec_t exec = nullptr;
  bool graph_ok = hipStreamBeginCapture(ev.stream, hipStreamCaptureModeThreadLocal) == hipSuccess;
  if (graph_ok) {
    Status cs;
    for (size_t c = 0; c < calls && cs.ok(); ++c) {
      size_t i = c % copies;
      cs = ev.launch_call(xc[i]->ptr(), wc[i]->ptr(), yc[i]->ptr(), wsc[i]->ptr());
    }
    graph_ok = hipStreamEndCapture(ev.stream, &graph) == hipSuccess && cs.ok() &&
               hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0) == hipSuccess;
  }
  timing.method = graph_ok ? "graph-replay/events" : "stream-batch/events";
  auto replay = [&]() -> Status {
    if (graph_ok) {
      KOPT_GPU_CHECK(hipGraphLaunch(exec, ev.stream));
      return Status();
    }
    for (size_t c = 0; c < calls; ++c) {
      size_t i = c % copies;
      KOPT_RETURN_IF_ERROR(ev.launch_call(xc[i]->ptr(), wc[i]->ptr(), yc[i]->ptr(), wsc[i]->ptr()));
    }
    return Status();
  };
  struct GraphGuard {
    hipGraph_t& g;
    hipGraphExec_t& e;
    ~GraphGuard() {
      if (e) (void)hipGraphExecDestroy(e);
      if (g) (void)hipGraphDestroy(g);
    }
  } graph_guard{graph, exec};

  Event start, stop;
  if (hipEventCreate(&start.event) != hipSuccess || hipEventCreate(&stop.event) != hipSuccess) {
    ev.fail(Verdict::kInternalError, "cannot create timing events");
    return result;
  }
  std::vector<double> samples;
  for (int batch = 0; batch < req.time_batches; ++batch) {
    ev.enter("time batch " + std::to_string(batch + 1));
    // Fresh x for every copy, poisoned outputs: a result cached from an
    // earlier batch (by pointer or content) is now wrong.
    for (size_t i = 0; i < copies; ++i) {
      ProblemData fresh;
      fresh.shape = shape;
      auto c = checked.find(i);
      ProblemData& target_data = c != checked.end() ? checked_data[c->second] : fresh;
      regenerate_x(&target_data, Dataset::kRandom, req.seed * 104729ull + static_cast<uint64_t>(batch) * 65537 + i);
      s = xc[i]->upload(target_data.x.data(), x_bytes);
      if (s.ok()) s = yc[i]->fill(kPoisonByte, ev.stream);
      if (!s.ok()) return ev.gpu_fail(s, "timing upload"), result;
    }
    // Warm-up: replays for at least kWarmupSeconds, so the graph is uploaded
    // and the clocks have left idle before anything is timed (short kernels
    // timed straight after an idle spell run measurably slower).
    const auto warm_start = std::chrono::steady_clock::now();
    do {
      s = replay();
      if (s.ok()) s = ev.sync();
    } while (s.ok() && std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_start).count() <
                           kWarmupSeconds);
    if (!s.ok()) return ev.gpu_fail(s, "timing warm-up"), result;
    for (int rep = 0; rep < req.repetitions; ++rep) {
      hipError_t te = hipEventRecord(start.event, ev.stream);
      if (te == hipSuccess) s = replay();
      if (te == hipSuccess && s.ok()) te = hipEventRecord(stop.event, ev.stream);
      if (te == hipSuccess && s.ok()) te = hipEventSynchronize(stop.event);
      float ms = 0;
      if (te == hipSuccess && s.ok()) te = hipEventElapsedTime(&ms, start.event, stop.event);
      if (s.ok() && te != hipSuccess) s = GpuError{te, std::string("timed replay: ") + hipGetErrorString(te)};
      if (!s.ok()) return ev.gpu_fail(s, "timing"), result;
      samples.push_back(static_cast<double>(ms) * 1000.0 / static_cast<double>(calls));
    }
    // The timed runs' own outputs must be right too.
    for (const auto& [i, j] : checked) {
      if (!(s = yc[i]->download(out.data(), y_bytes)).ok()) return ev.gpu_fail(s, "timing check"), result;
      Comparison c = compare_output(reference_gemv(checked_data[j]), out.data(), Tolerance{});
      if (!c.ok) {
        result.dataset = "timed run";
        result.first_bad_index = c.first_bad;
        result.expected = c.expected;
        result.got = c.got;
        ev.fail(c.not_written > 0 ? Verdict::kNotWritten : Verdict::kWrongResult,
                "timed run, batch " + std::to_string(batch + 1) + ", copy " + std::to_string(i) + ": " + c.describe());
        return result;
      }
    }
    if (!check_guards("timing")) return result;
  }
  timing.repetitions = static_cast<int>(samples.size());
  timing.median_us = median(samples);
  timing.min_us = *std::min_element(samples.begin(), samples.end());
  timing.max_us = *std::max_element(samples.begin(), samples.end());
  timing.spread_pct = timing.median_us > 0 ? 100.0 * (timing.max_us - timing.min_us) / timing.median_us : 0;
  timing.gbps = timing.median_us > 0 ? static_cast<double>(timing.bytes) / (timing.median_us * 1e-6) / 1e9 : 0;
  timing.fraction_of_read_bw = bw > 0 ? timing.gbps / bw : 0;
  result.timing = timing;
  result.device = device_;
  result.verdict = Verdict::kOk;
  result.message = "verified on " + std::to_string(req.trials * static_cast<int>(datasets.size())) +
                   " input sets and " + std::to_string(req.time_batches) + " timed batches" + baseline_misses;
  return result;
}

}  // namespace kopt
