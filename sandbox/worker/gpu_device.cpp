#include "sandbox/worker/gpu_device.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "sandbox/contract/prelude.h"
#include "sandbox/gpu/gpu_api.h"
#include "sandbox/worker/rtc.h"
#include "sandbox/worker/vendor.h"
#include "sandbox/worker/verification.h"

namespace kopt {

// kopt's own kernels, compiled after the prelude at run time: the trusted
// ones (sandbox/worker/trusted_kernels.hip) and the read-bandwidth probe
// (sandbox/worker/bandwidth_kernel.hip).
namespace embedded {
extern const char* const kTrustedKernels;
extern const char* const kBandwidthKernel;
}  // namespace embedded

namespace {

// Guard bands around every buffer: a candidate that writes outside its
// output changes them. 4 KiB keeps the user region 256-byte aligned.
constexpr size_t kGuardBytes = 4096;
constexpr unsigned char kGuardByte = 0xA5;

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
  size_t size() const { return bytes_; }
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

// Plain device memory of kopt's own (tables, the trusted copies of x), grown
// on demand.
struct DeviceArray {
  void* ptr = nullptr;
  size_t bytes = 0;
  ~DeviceArray() {
    if (ptr) (void)hipFree(ptr);
  }
  Status reserve(size_t wanted) {
    if (wanted <= bytes) return Status();
    if (ptr) (void)hipFree(ptr);
    ptr = nullptr;
    bytes = 0;
    KOPT_GPU_CHECK(hipMalloc(&ptr, wanted));
    bytes = wanted;
    return Status();
  }
};

struct Module {
  hipModule_t module = nullptr;
  ~Module() {
    if (module) (void)hipModuleUnload(module);
  }
};

using embedded::kBandwidthKernel;
using embedded::kTrustedKernels;

// Compiles one of kopt's own kernels after kopt's prelude (and the
// problem's helpers, when it is the problem's kernel).
Status load_kernel(const std::string& source, const char* name,
                   const std::vector<std::string>& options, Module* module, hipFunction_t* function,
                   const Problem* problem = nullptr) {
  RtcOutput compiled;
  const std::string full = (problem ? problem_prelude(*problem) : std::string(device_prelude())) +
                           "\n#line 1 \"kopt_kernel.hip\"\n" + source;
  KOPT_RETURN_IF_ERROR(rtc_compile(full, options, &compiled));
  if (!compiled.compiled)
    return Status::error(std::string("kopt's kernel ") + name +
                         " does not compile: " + compiled.log);
  KOPT_GPU_CHECK(hipModuleLoadData(&module->module, compiled.code.data()));
  KOPT_GPU_CHECK(hipModuleGetFunction(function, module->module, name));
  return Status();
}

}  // namespace

struct GpuDevice::Impl {
  hipStream_t stream = nullptr;
  std::vector<std::string> base_options;
  double read_bw = 0;
  std::map<BufferId, std::unique_ptr<GuardedBuffer>> buffers;
  BufferId next_id = 0;
  CallFn call;
  RelayoutFn relayout;
  hipGraph_t graph = nullptr;
  hipGraphExec_t exec = nullptr;
  bool graph_ok = false;
  std::vector<CallBuffers> sequence;  // for the stream-batch fallback
  hipEvent_t start = nullptr, stop = nullptr;
  // kopt's own kernels, compiled once per worker.
  Module trusted;
  hipFunction_t fill_x = nullptr, compare = nullptr, digest = nullptr, poison = nullptr;
  // Each problem's trusted reference (Problem::device_reference), by id.
  std::map<std::string, std::pair<std::unique_ptr<Module>, hipFunction_t>> references;
  std::vector<std::unique_ptr<Module>> builtins;
  // Trusted copies of the x written by fill_random_x: which slot holds x
  // buffer id's contents.
  DeviceArray trusted_x, tables, stats, refs, digest_out;
  std::map<BufferId, int> trusted_slot_of;

  // Forgets the recorded sequence (and its graph).
  void drop_sequence() {
    if (exec) (void)hipGraphExecDestroy(exec);
    if (graph) (void)hipGraphDestroy(graph);
    exec = nullptr;
    graph = nullptr;
    graph_ok = false;
    sequence.clear();
  }
  ~Impl() {
    drop_sequence();
    if (start) (void)hipEventDestroy(start);
    if (stop) (void)hipEventDestroy(stop);
    buffers.clear();
    if (stream) (void)hipStreamDestroy(stream);
  }
  GuardedBuffer* find(BufferId id) {
    auto it = buffers.find(id);
    return it == buffers.end() ? nullptr : it->second.get();
  }
  Status load_trusted() {
    if (fill_x) return Status();
    KOPT_RETURN_IF_ERROR(
        load_kernel(kTrustedKernels, "kopt_fill_random_x", base_options, &trusted, &fill_x));
    KOPT_GPU_CHECK(hipModuleGetFunction(&compare, trusted.module, "kopt_compare_calls"));
    KOPT_GPU_CHECK(hipModuleGetFunction(&digest, trusted.module, "kopt_checksum"));
    KOPT_GPU_CHECK(hipModuleGetFunction(&poison, trusted.module, "kopt_poison_shared"));
    return Status();
  }
  Status load_reference(const Problem& problem, hipFunction_t* f) {
    auto it = references.find(problem.id());
    if (it == references.end()) {
      auto module = std::make_unique<Module>();
      hipFunction_t fn = nullptr;
      KOPT_RETURN_IF_ERROR(load_kernel(problem.device_reference(), "kopt_reference", base_options,
                                       module.get(), &fn, &problem));
      it = references.emplace(problem.id(), std::make_pair(std::move(module), fn)).first;
    }
    *f = it->second.second;
    return Status();
  }
};

GpuDevice::GpuDevice() : impl_(std::make_unique<Impl>()) {}
GpuDevice::~GpuDevice() = default;

std::unique_ptr<GpuDevice> GpuDevice::create(std::string* error) {
  hipError_t e = hipInit(0);
  int count = 0;
  if (e == hipSuccess) e = hipGetDeviceCount(&count);
  if (e != hipSuccess || count == 0) {
    *error = std::string("no GPU: ") + (e != hipSuccess ? hipGetErrorString(e) : "no device found");
    return nullptr;
  }
  std::unique_ptr<GpuDevice> d(new GpuDevice());
  hipDeviceProp_t prop;
  if ((e = hipSetDevice(0)) != hipSuccess || (e = hipGetDeviceProperties(&prop, 0)) != hipSuccess ||
      // A blocking stream: ordered with the synchronous copies and memsets
      // of the default stream too.
      (e = hipStreamCreateWithFlags(&d->impl_->stream, 0)) != hipSuccess ||
      (e = hipEventCreate(&d->impl_->start)) != hipSuccess ||
      (e = hipEventCreate(&d->impl_->stop)) != hipSuccess) {
    *error = std::string("GPU initialisation failed: ") + hipGetErrorString(e);
    return nullptr;
  }
  DeviceInfo& i = d->info_;
  i.name = prop.name;
  i.device_count = count;  // the GPUs this worker sees (kopt run --gpus all uses it)
  i.platform = gpu_platform_name();
  i.multiprocessors = prop.multiProcessorCount;
  i.l2_bytes = prop.l2CacheSize;
  i.warp_size = prop.warpSize;
  i.clock_khz = prop.clockRate;
  i.memory_clock_khz = prop.memoryClockRate;
  // Double data rate: two transfers per memory clock over the whole bus.
  i.peak_bandwidth_gbps = 2.0 * prop.memoryClockRate * 1e3 * (prop.memoryBusWidth / 8.0) / 1e9;
  i.total_memory = static_cast<int64_t>(prop.totalGlobalMem);
  i.max_shared_bytes = static_cast<int64_t>(prop.sharedMemPerBlock);
  i.max_threads_per_block = prop.maxThreadsPerBlock;
  // Informational: a failure leaves 0, recorded as such.
  (void)hipDriverGetVersion(&i.driver_version);
  (void)hipRuntimeGetVersion(&i.runtime_version);
  i.compiler = rtc_compiler_version();
  i.arch = vendor_arch_name(prop);
  d->impl_->base_options = vendor_compile_options(vendor_compile_arch(prop), prop.warpSize);
  return d;
}

void GpuDevice::set_call(CallFn call, RelayoutFn relayout) {
  // A recorded sequence launches the previous call's kernels: it goes before
  // their module is unloaded.
  impl_->drop_sequence();
  impl_->call = std::move(call);
  impl_->relayout = std::move(relayout);
}
void* GpuDevice::stream() const { return impl_->stream; }
const std::vector<std::string>& GpuDevice::base_options() const { return impl_->base_options; }

Status GpuDevice::load_builtin(const std::string& source, const char* name, void** function,
                               const Problem* problem) {
  auto module = std::make_unique<Module>();
  hipFunction_t f = nullptr;
  KOPT_RETURN_IF_ERROR(load_kernel(source, name, impl_->base_options, module.get(), &f, problem));
  impl_->builtins.push_back(std::move(module));
  *function = reinterpret_cast<void*>(f);
  return Status();
}

double GpuDevice::read_bandwidth_gbps() {
  Impl& im = *impl_;
  if (im.read_bw > 0) return im.read_bw;
  size_t free_bytes = 0, total = 0;
  if (hipMemGetInfo(&free_bytes, &total) != hipSuccess) return 0;
  size_t bytes = std::max<size_t>(size_t{1} << 30, static_cast<size_t>(info_.l2_bytes) * 16);
  bytes = std::min(bytes, free_bytes / 4) & ~size_t{255};
  DeviceArray buf, out;
  if (!buf.reserve(bytes).ok() || !out.reserve(256).ok()) return 0;
  (void)hipMemsetD8(buf.ptr, 0x3C, bytes);
  double best = 0;
  for (int unroll : {4, 8}) {
    std::vector<std::string> opts = im.base_options;
    opts.push_back("-DUNROLL=" + std::to_string(unroll));
    Module m;
    hipFunction_t f;
    if (!load_kernel(kBandwidthKernel, "kopt_read_bandwidth", opts, &m, &f).ok()) continue;
    unsigned long long n16 = bytes / 16;
    void* args[] = {&buf.ptr, &n16, &out.ptr};
    unsigned grid = static_cast<unsigned>(info_.multiprocessors) * 4, block = 512;
    std::vector<double> samples;
    const int launches = 3;
    for (int rep = 0; rep < 12; ++rep) {
      bool ok = hipEventRecord(im.start, im.stream) == hipSuccess;
      for (int l = 0; l < launches && ok; ++l)
        ok = hipModuleLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, im.stream, args, nullptr) ==
             hipSuccess;
      ok = ok && hipEventRecord(im.stop, im.stream) == hipSuccess;
      float ms = 0;
      if (!ok || hipEventSynchronize(im.stop) != hipSuccess ||
          hipEventElapsedTime(&ms, im.start, im.stop) != hipSuccess)
        break;
      if (rep >= 2 && ms > 0)
        samples.push_back(static_cast<double>(bytes) * launches / (ms * 1e-3) / 1e9);
    }
    best = std::max(best, median(samples));
  }
  im.read_bw = best;
  info_.read_bandwidth_gbps = best;
  return best;
}

Status GpuDevice::free_memory(size_t* bytes) {
  size_t total = 0;
  KOPT_GPU_CHECK(hipMemGetInfo(bytes, &total));
  return Status();
}

Status GpuDevice::allocate(size_t bytes, BufferId* id) {
  auto b = std::make_unique<GuardedBuffer>();
  KOPT_RETURN_IF_ERROR(b->allocate(bytes));
  *id = impl_->next_id++;
  impl_->buffers[*id] = std::move(b);
  return Status();
}

void GpuDevice::release(BufferId id) {
  impl_->buffers.erase(id);
  impl_->trusted_slot_of.erase(id);
}

Status GpuDevice::upload(BufferId id, const void* data, size_t bytes) {
  GuardedBuffer* b = impl_->find(id);
  if (!b || bytes > b->size()) return Status::error("upload: no such buffer or too many bytes");
  // HIP declares the source non-const; it is only read.
  KOPT_GPU_CHECK(hipMemcpyHtoD(b->user(), const_cast<void*>(data), bytes));
  return Status();
}

Status GpuDevice::download(BufferId id, void* data, size_t bytes) {
  GuardedBuffer* b = impl_->find(id);
  if (!b || bytes > b->size()) return Status::error("download: no such buffer or too many bytes");
  KOPT_GPU_CHECK(hipMemcpyDtoH(data, b->user(), bytes));
  return Status();
}

// On the evaluation stream: a memset on another stream could land after
// (and undo) the kernels that follow it.
Status GpuDevice::fill(BufferId id, uint8_t value) {
  GuardedBuffer* b = impl_->find(id);
  if (!b) return Status::error("fill: no such buffer");
  KOPT_GPU_CHECK(hipMemsetD8Async(b->user(), value, b->size(), impl_->stream));
  return Status();
}

Status GpuDevice::guards_intact(BufferId id, bool* intact) {
  GuardedBuffer* b = impl_->find(id);
  if (!b) return Status::error("guards: no such buffer");
  KOPT_GPU_CHECK(hipStreamSynchronize(impl_->stream));
  return b->guards_intact(intact);
}

Status GpuDevice::checksum(BufferId id, uint64_t* digest) {
  Impl& im = *impl_;
  GuardedBuffer* b = im.find(id);
  if (!b) return Status::error("checksum: no such buffer");
  KOPT_RETURN_IF_ERROR(im.load_trusted());
  KOPT_RETURN_IF_ERROR(im.digest_out.reserve(8));
  KOPT_GPU_CHECK(hipMemsetD8Async(im.digest_out.ptr, 0, 8, im.stream));
  const void* p = b->user();
  unsigned long long bytes = b->size();
  void* args[] = {&p, &bytes, &im.digest_out.ptr};
  const unsigned grid = static_cast<unsigned>(std::max(1, info_.multiprocessors) * 4);
  KOPT_GPU_CHECK(
      hipModuleLaunchKernel(im.digest, grid, 1, 1, 256, 1, 1, 0, im.stream, args, nullptr));
  KOPT_GPU_CHECK(hipStreamSynchronize(im.stream));
  KOPT_GPU_CHECK(hipMemcpyDtoH(digest, im.digest_out.ptr, 8));
  return Status();
}

Status GpuDevice::poison_shared_memory(uint32_t pattern) {
  Impl& im = *impl_;
  KOPT_RETURN_IF_ERROR(im.load_trusted());
  uint32_t bytes = static_cast<uint32_t>(info_.max_shared_bytes);
  uint32_t words = bytes / 4;
  void* args[] = {&pattern, &words};
  // Eight blocks per multiprocessor: more than fit at once with the most
  // shared memory each, so every slot of every multiprocessor is written.
  const unsigned grid = static_cast<unsigned>(info_.multiprocessors) * 8;
  KOPT_GPU_CHECK(
      hipModuleLaunchKernel(im.poison, grid, 1, 1, 256, 1, 1, bytes, im.stream, args, nullptr));
  KOPT_GPU_CHECK(hipStreamSynchronize(im.stream));
  return Status();
}

Status GpuDevice::call(const CallBuffers& c) {
  Impl& im = *impl_;
  GuardedBuffer *x = im.find(c.x), *w = im.find(c.w), *y = im.find(c.y), *ws = im.find(c.ws);
  if (!x || !w || !y || !ws || !im.call)
    return Status::error("call: no candidate loaded or no such buffer");
  return im.call(x->user(), w->user(), y->user(), ws->user());
}

Status GpuDevice::relayout(BufferId canonical, BufferId packed) {
  Impl& im = *impl_;
  GuardedBuffer *c = im.find(canonical), *p = im.find(packed);
  if (!c || !p || !im.relayout) return Status::error("relayout: none loaded or no such buffer");
  return im.relayout(c->user(), p->user());
}

Status GpuDevice::synchronize() {
  KOPT_GPU_CHECK(hipStreamSynchronize(impl_->stream));
  return Status();
}

Status GpuDevice::prepare_sequence(const std::vector<CallBuffers>& calls, std::string* method) {
  Impl& im = *impl_;
  im.drop_sequence();
  im.sequence = calls;
  im.graph_ok = hipStreamBeginCapture(im.stream, hipStreamCaptureModeThreadLocal) == hipSuccess;
  if (im.graph_ok) {
    Status cs;
    for (size_t i = 0; i < calls.size() && cs.ok(); ++i) cs = call(calls[i]);
    im.graph_ok = hipStreamEndCapture(im.stream, &im.graph) == hipSuccess && cs.ok() &&
                  hipGraphInstantiate(&im.exec, im.graph, nullptr, nullptr, 0) == hipSuccess;
    if (im.graph_ok) KOPT_GPU_CHECK(vendor_upload_graph(im.exec, im.stream));
  }
  *method = im.graph_ok ? "graph-replay/events" : "stream-batch/events";
  return Status();
}

Status GpuDevice::replay_sequence() {
  Impl& im = *impl_;
  if (im.graph_ok) {
    KOPT_GPU_CHECK(hipGraphLaunch(im.exec, im.stream));
    return Status();
  }
  for (const auto& c : im.sequence) KOPT_RETURN_IF_ERROR(call(c));
  return Status();
}

Status GpuDevice::time_sequence(double* elapsed_us) {
  Impl& im = *impl_;
  KOPT_GPU_CHECK(hipEventRecord(im.start, im.stream));
  KOPT_RETURN_IF_ERROR(replay_sequence());
  KOPT_GPU_CHECK(hipEventRecord(im.stop, im.stream));
  KOPT_GPU_CHECK(hipEventSynchronize(im.stop));
  float ms = 0;
  KOPT_GPU_CHECK(hipEventElapsedTime(&ms, im.start, im.stop));
  *elapsed_us = static_cast<double>(ms) * 1000.0;
  return Status();
}

Status GpuDevice::fill_random_x(const std::vector<BufferId>& xs,
                                const std::vector<uint64_t>& streams, uint64_t seed, int64_t K) {
  Impl& im = *impl_;
  KOPT_RETURN_IF_ERROR(im.load_trusted());
  const size_t count = xs.size();
  if (count == 0) return Status();
  std::vector<void*> pointers(count);
  for (size_t i = 0; i < count; ++i) {
    GuardedBuffer* b = im.find(xs[i]);
    if (!b || b->size() < static_cast<size_t>(K) * 2)
      return Status::error("fill_random_x: no such buffer");
    pointers[i] = b->user();
  }
  KOPT_RETURN_IF_ERROR(im.trusted_x.reserve(count * static_cast<size_t>(K) * 2));
  KOPT_RETURN_IF_ERROR(im.tables.reserve(count * 16));
  // The synchronous copies wait for the kernels before them on the stream.
  KOPT_GPU_CHECK(hipStreamSynchronize(im.stream));
  char* table = static_cast<char*>(im.tables.ptr);
  KOPT_GPU_CHECK(hipMemcpyHtoD(table, pointers.data(), count * 8));
  KOPT_GPU_CHECK(
      hipMemcpyHtoD(table + count * 8, const_cast<uint64_t*>(streams.data()), count * 8));
  void* ptr_table = table;
  void* stream_table = table + count * 8;
  int k = static_cast<int>(K);
  unsigned long long s = seed;
  void* args[] = {&ptr_table, &im.trusted_x.ptr, &stream_table, &s, &k};
  KOPT_GPU_CHECK(hipModuleLaunchKernel(im.fill_x, static_cast<unsigned>((K + 255) / 256),
                                       static_cast<unsigned>(count), 1, 256, 1, 1, 0, im.stream,
                                       args, nullptr));
  im.trusted_slot_of.clear();
  for (size_t i = 0; i < count; ++i) im.trusted_slot_of[xs[i]] = static_cast<int>(i);
  return Status();
}

Status GpuDevice::check_calls(const Shape& shape, uint64_t seed,
                              const std::vector<CallCheck>& checks,
                              std::vector<CallCheckResult>* results) {
  Impl& im = *impl_;
  const Problem* problem = find_problem(shape.problem);
  if (!problem) return Status::error("check_calls: no registered problem " + shape.problem);
  KOPT_RETURN_IF_ERROR(im.load_trusted());
  hipFunction_t reference = nullptr;
  KOPT_RETURN_IF_ERROR(im.load_reference(*problem, &reference));
  const size_t count = checks.size();
  results->assign(count, CallCheckResult());
  if (count == 0) return Status();
  const int64_t X = problem->x_elements(shape), Y = problem->y_elements(shape);
  // Tables (8 bytes per call each): x, y, weights, kopt's x, x streams.
  std::vector<void*> xs(count), ys(count), ws(count), trusted(count);
  std::vector<uint64_t> streams(count);
  for (size_t i = 0; i < count; ++i) {
    GuardedBuffer *x = im.find(checks[i].x), *y = im.find(checks[i].y),
                  *w = im.find(checks[i].canonical);
    auto slot = im.trusted_slot_of.find(checks[i].x);
    if (!x || !y || !w || slot == im.trusted_slot_of.end())
      return Status::error(
          "check_calls: a buffer is unknown or its x was not written by fill_random_x");
    xs[i] = x->user();
    ys[i] = y->user();
    ws[i] = w->user();
    trusted[i] = static_cast<char*>(im.trusted_x.ptr) + static_cast<size_t>(slot->second) * X * 2;
    streams[i] = checks[i].x_stream;
  }
  KOPT_RETURN_IF_ERROR(im.tables.reserve(count * 40));
  KOPT_RETURN_IF_ERROR(im.stats.reserve(count * 16));
  KOPT_RETURN_IF_ERROR(im.refs.reserve(count * static_cast<size_t>(Y) * 8));
  KOPT_GPU_CHECK(hipStreamSynchronize(im.stream));
  char* t = static_cast<char*>(im.tables.ptr);
  KOPT_GPU_CHECK(hipMemcpyHtoD(t, xs.data(), count * 8));
  KOPT_GPU_CHECK(hipMemcpyHtoD(t + count * 8, ys.data(), count * 8));
  KOPT_GPU_CHECK(hipMemcpyHtoD(t + count * 16, ws.data(), count * 8));
  KOPT_GPU_CHECK(hipMemcpyHtoD(t + count * 24, trusted.data(), count * 8));
  KOPT_GPU_CHECK(hipMemcpyHtoD(t + count * 32, streams.data(), count * 8));
  std::vector<uint32_t> init(count * 4, 0);
  for (size_t i = 0; i < count; ++i) init[i * 4 + 2] = 0xFFFFFFFFu;
  KOPT_GPU_CHECK(hipMemcpyHtoD(im.stats.ptr, init.data(), count * 16));
  void *xt = t, *yt = t + count * 8, *wt = t + count * 16, *tt = t + count * 24,
       *strt = t + count * 32;

  // The problem's reference: (xs, weights, refs, one int per variable).
  std::vector<int> vars;
  for (const std::string& v : problem->variables()) vars.push_back(static_cast<int>(shape.var(v)));
  std::vector<void*> ref_args = {&tt, &wt, &im.refs.ptr};
  for (int& v : vars) ref_args.push_back(&v);
  KOPT_GPU_CHECK(hipModuleLaunchKernel(reference, static_cast<unsigned>(Y),
                                       static_cast<unsigned>(count), 1, 128, 1, 1, 0, im.stream,
                                       ref_args.data(), nullptr));
  int x_count = static_cast<int>(X), y_count = static_cast<int>(Y);
  const Tolerance tol = problem->tolerance();
  double atol = tol.atol, rtol = tol.rtol;
  unsigned long long x_seed = seed;
  void* args[] = {&xt,      &yt,   &tt,   &strt,         &x_seed,     &x_count,
                  &y_count, &atol, &rtol, &im.stats.ptr, &im.refs.ptr};
  KOPT_GPU_CHECK(hipModuleLaunchKernel(im.compare, static_cast<unsigned>((Y + 255) / 256),
                                       static_cast<unsigned>(count), 1, 256, 1, 1, 0, im.stream,
                                       args, nullptr));
  KOPT_GPU_CHECK(hipStreamSynchronize(im.stream));
  std::vector<uint32_t> stats(count * 4);
  KOPT_GPU_CHECK(hipMemcpyDtoH(stats.data(), im.stats.ptr, count * 16));
  for (size_t i = 0; i < count; ++i) {
    CallCheckResult& r = (*results)[i];
    r.bad = stats[i * 4];
    r.not_written = stats[i * 4 + 1];
    r.x_changed = stats[i * 4 + 3];
    if (r.bad == 0) continue;
    r.first_bad = stats[i * 4 + 2];
    float got = 0;
    KOPT_GPU_CHECK(hipMemcpyDtoH(
        &r.expected,
        static_cast<char*>(im.refs.ptr) + (i * static_cast<size_t>(Y) + r.first_bad) * 8, 8));
    KOPT_GPU_CHECK(hipMemcpyDtoH(&got, static_cast<char*>(ys[i]) + r.first_bad * 4, 4));
    r.got = got;
  }
  return Status();
}

bool GpuDevice::is_fault(const Status& s) const { return vendor_is_fault(s.gpu_code()); }

}  // namespace kopt
