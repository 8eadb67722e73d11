#include "sandbox/worker/device_runner.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/prelude.h"
#include "sandbox/contract/static_checks.h"
#include "sandbox/gpu/gpu_api.h"
#include "sandbox/worker/host_device.h"
#include "sandbox/worker/rtc.h"
#include "sandbox/worker/vendor.h"
#include "sandbox/worker/vendor_blas.h"

namespace kopt {

namespace {

struct Module {
  hipModule_t module = nullptr;
  ~Module() {
    if (module) (void)hipModuleUnload(module);
  }
};

Status launch(hipFunction_t f, const ResolvedLaunch& l, hipStream_t stream, void** args) {
  KOPT_GPU_CHECK(hipModuleLaunchKernel(f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                       l.block[2], l.shared_bytes, stream, args, nullptr));
  return Status();
}

// One evaluation's loaded code, freed on every path out.
struct Loaded {
  Module module;
  CallTraits traits;
};

// The compiler's first error line ("candidate.hip(230): error: identifier
// \"sofx\" is undefined"), so the verdict says what to fix without the log.
std::string first_compiler_error(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line))
    if (line.find("error") != std::string::npos) return line.substr(0, 300);
  return "";
}

bool fail(EvalResult& r, Verdict v, const std::string& message) {
  r.verdict = v;
  r.message = message;
  return false;
}

}  // namespace

struct DeviceRunner::Impl {
  // The vendor BLAS baseline and each problem's dequantisation, created on
  // first use.
  std::unique_ptr<VendorBlas> blas;
  std::map<std::string, hipFunction_t> dequantize;
  // The read-only yardstick's kernels, by name.
  std::map<std::string, hipFunction_t> read_only;
};

std::unique_ptr<DeviceRunner> DeviceRunner::create(std::string* error) {
  std::unique_ptr<GpuDevice> gpu = GpuDevice::create(error);
  if (!gpu) return nullptr;
  std::unique_ptr<DeviceRunner> r(new DeviceRunner());
  r->gpu_ = std::move(gpu);
  r->impl_ = std::make_unique<Impl>();
  return r;
}

DeviceRunner::~DeviceRunner() = default;

namespace {

// A kernel's arguments: the role pointers, then the shape's variables as
// int in the problem's order. Built on the stack for each launch (the
// launch copies the values).
constexpr size_t kMaxVariables = 12;
struct KernelArgs {
  std::array<const void*, 4> pointers{};
  std::array<int, kMaxVariables> ints{};
  size_t pointer_count = 0, int_count = 0;
  std::array<void*, 4 + kMaxVariables> slots{};
  void** get() {
    size_t n = 0;
    for (size_t i = 0; i < pointer_count; ++i) slots[n++] = &pointers[i];
    for (size_t i = 0; i < int_count; ++i) slots[n++] = &ints[i];
    return slots.data();
  }
};

// The variables part of every kernel's arguments; false when the problem
// declares more variables than a launch carries.
bool kernel_variables(const Problem& problem, const Shape& shape, KernelArgs* out) {
  const std::vector<std::string> names = problem.variables();
  if (names.size() > kMaxVariables) return false;
  out->int_count = names.size();
  for (size_t i = 0; i < names.size(); ++i) out->ints[i] = static_cast<int>(shape.var(names[i]));
  return true;
}

// The vendor BLAS baseline: the problem's dequantisation to fp16 is its
// load-time re-layout, the library's GEMV its call.
bool prepare_baseline(const EvalRequest& req, GpuDevice& gpu, DeviceRunner::Impl& impl,
                      Loaded& loaded, EvalResult& result, const StageCallback& enter) {
  enter("load");
  if (req.baseline != kVendorBlasBaseline)
    return fail(result, Verdict::kContractError, "unknown baseline '" + req.baseline + "'");
  hipStream_t stream = static_cast<hipStream_t>(gpu.stream());
  if (!impl.blas) {
    std::string why;
    impl.blas = VendorBlas::create(stream, &why);
    if (!impl.blas) return fail(result, Verdict::kInternalError, why);
  }
  const Problem* problem = find_problem(req.shape.problem);
  if (!problem || problem->device_dequantize().empty())
    return fail(result, Verdict::kContractError,
                "the problem " + req.shape.problem + " has no vendor BLAS baseline");
  hipFunction_t& dq = impl.dequantize[problem->id()];
  if (dq == nullptr) {
    void* f = nullptr;
    Status bs = gpu.load_builtin(problem->device_dequantize(), "kopt_dequantize_fp16", &f, problem);
    if (!bs.ok()) return fail(result, Verdict::kInternalError, bs.message());
    dq = reinterpret_cast<hipFunction_t>(f);
  }
  int64_t rows = 0, cols = 0;
  problem->dense_dims(req.shape, &rows, &cols);
  const int K = static_cast<int>(cols), N = static_cast<int>(rows);
  KernelArgs vars;
  if (!kernel_variables(*problem, req.shape, &vars))
    return fail(result, Verdict::kInternalError, "the problem has too many variables");
  ResolvedLaunch dequantize;
  dequantize.grid = {static_cast<uint32_t>((rows * cols + 255) / 256), 1, 1};
  dequantize.block = {256, 1, 1};
  hipFunction_t dq_fn = dq;
  VendorBlas* blas = impl.blas.get();
  gpu.set_call([blas, K, N](const void* x, const void* w, void* y,
                            void*) { return blas->gemv(w, x, y, K, N); },
               [dq_fn, dequantize, stream, vars](const void* canonical, void* packed) {
                 KernelArgs args = vars;
                 args.pointers = {canonical, packed};
                 args.pointer_count = 2;
                 return launch(dq_fn, dequantize, stream, args.get());
               });
  loaded.traits.has_relayout = true;
  loaded.traits.packed_bytes = static_cast<size_t>(rows * cols) * 2;
  loaded.traits.workspace_bytes = kMinWorkspaceBytes;
  loaded.traits.baseline = true;
  result.candidate_key = req.baseline;
  result.compile_flags = impl.blas->version();
  return true;
}

// The read-only yardstick's kernels: stream a call's weights with UNROLL
// independent 16-byte loads in flight per thread (through the read-only path,
// or without allocating in L1), read x once, and store only when the bytes
// say so (never), so no load is optimised away.
const char* const kReadOnlyKernel = R"(
#define KOPT_READ_ONLY(UNROLL, LOAD)                                                         \
  KOPT_KERNEL void kopt_read_only_##UNROLL##_##LOAD(const uint4* __restrict__ w, kopt_u64 w16, \
                                           const uint4* __restrict__ x, kopt_u64 x16,          \
                                           float* y) {                                         \
    kopt_u32 acc = 0;                                                                          \
    const kopt_u64 stride = (kopt_u64)gridDim.x * blockDim.x;                                  \
    const kopt_u64 first = (kopt_u64)blockIdx.x * blockDim.x + threadIdx.x;                    \
    kopt_u64 i = first;                                                                        \
    for (; i + (UNROLL - 1) * stride < w16; i += UNROLL * stride) {                            \
      uint4 v[UNROLL];                                                                         \
      _Pragma("unroll") for (int u = 0; u < UNROLL; ++u) v[u] = LOAD(w + i + u * stride);              \
      _Pragma("unroll") for (int u = 0; u < UNROLL; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;     \
    }                                                                                          \
    for (; i < w16; i += stride) {                                                             \
      const uint4 v = LOAD(w + i);                                                             \
      acc ^= v.x ^ v.y ^ v.z ^ v.w;                                                            \
    }                                                                                          \
    for (kopt_u64 j = first; j < x16; j += stride) acc ^= x[j].x ^ x[j].w;                     \
    if (acc == 0x9E3779B9u) y[0] = (float)acc;                                                 \
  }
KOPT_READ_ONLY(2, kopt_load_stream16)
KOPT_READ_ONLY(4, kopt_load_stream16)
KOPT_READ_ONLY(8, kopt_load_stream16)
KOPT_READ_ONLY(2, kopt_load16_no_l1)
KOPT_READ_ONLY(4, kopt_load16_no_l1)
KOPT_READ_ONLY(8, kopt_load16_no_l1)
)";
const char* const kReadOnlyLoads[] = {"kopt_load_stream16", "kopt_load16_no_l1"};

// Times the read-only yardstick for the request's shape: each launch shape
// (load, loads in flight, block, grid) under the timing protocol, the
// fastest kept.
void measure_read_only(const EvalRequest& req, GpuDevice& gpu, DeviceRunner::Impl& impl,
                       EvalResult& result, const StageCallback& stage) {
  const Problem* problem = find_problem(req.shape.problem);
  if (!problem) {
    fail(result, Verdict::kInternalError, "no registered problem " + req.shape.problem);
    return;
  }
  const uint64_t w16 = static_cast<uint64_t>(problem->weight_bytes(req.shape)) / 16,
                 x16 = static_cast<uint64_t>(problem->x_elements(req.shape)) * 2 / 16;
  hipStream_t stream = static_cast<hipStream_t>(gpu.stream());
  const uint32_t sms = static_cast<uint32_t>(std::max(1, gpu.info().multiprocessors));
  std::optional<EvalResult> best;
  std::string best_launch;
  for (const char* load : kReadOnlyLoads)
    for (int unroll : {2, 4, 8}) {
      // Compiled once per worker, on first use.
      const std::string name = "kopt_read_only_" + std::to_string(unroll) + "_" + load;
      hipFunction_t& f = impl.read_only[name];
      if (f == nullptr) {
        void* loaded = nullptr;
        Status s = gpu.load_builtin(kReadOnlyKernel, name.c_str(), &loaded);
        if (!s.ok()) {
          fail(result, Verdict::kInternalError, s.message());
          return;
        }
        f = reinterpret_cast<hipFunction_t>(loaded);
      }
      for (uint32_t block : {256u, 512u})
        for (uint32_t per_sm : {1u, 2u, 4u, 8u}) {
          const uint64_t needed = (w16 + uint64_t{block} * unroll - 1) / (uint64_t{block} * unroll);
          ResolvedLaunch l;
          l.grid = {static_cast<uint32_t>(std::clamp<uint64_t>(needed, 1, uint64_t{sms} * per_sm)),
                    1, 1};
          l.block = {block, 1, 1};
          gpu.set_call(
              [f, l, stream, w16, x16](const void* x, const void* w, void* y, void*) {
                uint64_t w_count = w16, x_count = x16;
                const void* wp = w;
                const void* xp = x;
                void* yp = y;
                void* args[] = {&wp, &w_count, &xp, &x_count, &yp};
                return launch(f, l, stream, args);
              },
              nullptr);
          EvalResult r;
          r.shape = result.shape;
          r.device = result.device;
          CallTraits traits;
          traits.baseline = true;
          ScreenContext ctx{gpu, req, traits, r, stage};
          if (!read_only_screen(ctx)) {
            result = r;
            return;
          }
          if (!best || r.timing->median_us < best->timing->median_us) {
            best = r;
            best_launch = std::to_string(unroll) + " loads in flight (" + load + "), " +
                          std::to_string(block) + " threads, " + std::to_string(l.grid[0]) +
                          " blocks";
          }
          if (l.grid[0] < uint64_t{sms} * per_sm) break;  // a larger grid is the same launch
        }
    }
  result = *best;
  result.candidate_key = kReadOnlyBaseline;
  result.compile_flags = best_launch;
  result.message += " (" + best_launch + ")";
}

// What the checks before any GPU work produce.
struct CompiledCandidate {
  Candidate candidate;
  LaunchPlan plan;
  std::string source;                // as compiled: prelude, problem and candidate
  std::vector<std::string> options;  // as compiled
  RtcOutput compiled;
};

// Contract and plan, static checks, compile, scan of the compiled code: all
// of it needs no GPU. False with the verdict in `result`.
bool compile_candidate(const EvalRequest& req, const DeviceLimits& limits,
                       const std::vector<std::string>& base_options, const std::string& arch,
                       CompiledCandidate* out, EvalResult& result, const StageCallback& enter) {
  enter("contract");
  if (!req.candidate) return fail(result, Verdict::kContractError, "the request has no candidate");
  if (!req.candidate->ok())
    return fail(result, Verdict::kContractError, req.candidate->status.message());
  Candidate& candidate = out->candidate;
  candidate = req.candidate->candidate;
  result.candidate_key = req.candidate->key;
  Status s = plan_launches(candidate, req.shape, limits, &out->plan);
  if (!s.ok()) return fail(result, Verdict::kContractError, s.message());
  if (!out->plan.supported)
    return fail(result, Verdict::kUnsupportedShape, out->plan.unsupported_reason);

  enter("static");
  std::vector<std::string> kernels;
  for (const auto& l : candidate.spec.launches) kernels.push_back(l.kernel);
  if (candidate.spec.relayout) kernels.push_back(candidate.spec.relayout->kernel);
  std::string cleaned;
  s = check_source(candidate.source, kernels, &cleaned);
  if (!s.ok()) return fail(result, Verdict::kStaticRejected, s.message());

  enter("compile");
  std::vector<std::string> options = base_options;
  for (const auto& d : build_defines(candidate, req.shape)) options.push_back(d);
  for (const auto& o : options)
    result.compile_flags += (result.compile_flags.empty() ? "" : " ") + o;
  const Problem* problem = find_problem(req.shape.problem);
  if (!problem) return fail(result, Verdict::kInternalError, "no problem " + req.shape.problem);
  out->source = assemble_source(*problem, cleaned);
  out->options = std::move(options);
  s = rtc_compile(out->source, out->options, &out->compiled);
  result.log = out->compiled.log.substr(0, 16384);
  if (!s.ok()) return fail(result, Verdict::kInternalError, s.message());
  if (!out->compiled.compiled) {
    const std::string first = first_compiler_error(out->compiled.log);
    return fail(result, Verdict::kCompileError,
                "does not compile for " + arch + (first.empty() ? "" : ": " + first));
  }
  s = vendor_check_compiled_code(out->compiled.code);
  if (!s.ok()) return fail(result, Verdict::kStaticRejected, s.message());
  return true;
}

// A candidate: the checks above, then load and bind on the GPU.
bool prepare_candidate(const EvalRequest& req, GpuDevice& gpu, Loaded& loaded, EvalResult& result,
                       const StageCallback& enter) {
  const DeviceInfo& device = gpu.info();
  const DeviceLimits limits = limits_of(device);
  CompiledCandidate cc;
  if (!compile_candidate(req, limits, gpu.base_options(), device.arch, &cc, result, enter))
    return false;
  const Candidate& candidate = cc.candidate;
  const LaunchPlan& plan = cc.plan;
  const RtcOutput& compiled = cc.compiled;

  enter("load");
  hipError_t e = hipModuleLoadData(&loaded.module.module, compiled.code.data());
  if (e != hipSuccess)
    return fail(result, Verdict::kCompileError,
                std::string("module load failed: ") + hipGetErrorString(e));
  auto bind = [&](const std::string& name, hipFunction_t* f) {
    if (hipModuleGetFunction(f, loaded.module.module, name.c_str()) != hipSuccess)
      return fail(result, Verdict::kContractError,
                  "kernel '" + name + "' not found in the compiled code");
    int regs = 0, local = 0, shared = 0;
    // Resources are recorded, not required: a failed query leaves 0.
    (void)hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_NUM_REGS, *f);
    (void)hipFuncGetAttribute(&local, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, *f);
    (void)hipFuncGetAttribute(&shared, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, *f);
    TargetResources& t = result.targets[device.arch];
    t.checked = t.compiled = true;
    t.toolchain = device.compiler;
    t.registers = std::max(t.registers, regs);
    t.spill_bytes = std::max(t.spill_bytes, local);
    t.shared_bytes = std::max(t.shared_bytes, shared);
    return true;
  };
  std::vector<std::pair<hipFunction_t, ResolvedLaunch>> call;
  for (const auto& l : plan.launches) {
    hipFunction_t f = nullptr;
    if (!bind(l.kernel, &f)) return false;
    call.emplace_back(f, l);
  }
  hipFunction_t relayout = nullptr;
  if (plan.relayout && !bind(plan.relayout->kernel, &relayout)) return false;

  hipStream_t stream = static_cast<hipStream_t>(gpu.stream());
  const Problem* problem = find_problem(req.shape.problem);
  if (!problem) return fail(result, Verdict::kInternalError, "no problem " + req.shape.problem);
  KernelArgs vars;
  if (!kernel_variables(*problem, req.shape, &vars))
    return fail(result, Verdict::kInternalError, "the problem has too many variables");
  GpuDevice::RelayoutFn relayout_fn;
  if (relayout) {
    const ResolvedLaunch rl = *plan.relayout;
    relayout_fn = [relayout, rl, stream, vars](const void* canonical, void* packed) {
      KernelArgs args = vars;
      args.pointers = {canonical, packed};
      args.pointer_count = 2;
      return launch(relayout, rl, stream, args.get());
    };
  }
  gpu.set_call(
      [call, stream, vars](const void* x, const void* w, void* y, void* ws) {
        KernelArgs args = vars;
        args.pointers = {x, w, y, ws};
        args.pointer_count = 4;
        for (const auto& [f, l] : call) KOPT_RETURN_IF_ERROR(launch(f, l, stream, args.get()));
        return Status();
      },
      relayout_fn);
  loaded.traits.has_relayout = plan.relayout.has_value();
  loaded.traits.packed_bytes = static_cast<size_t>(plan.packed_bytes);
  loaded.traits.workspace_bytes =
      std::max<size_t>(kMinWorkspaceBytes, static_cast<size_t>(plan.workspace_bytes));
  loaded.traits.nondeterministic = candidate.spec.nondeterministic;
  return true;
}

}  // namespace

EvalResult DeviceRunner::evaluate(const EvalRequest& req, const StageCallback& stage) {
  EvalResult result;
  result.shape = req.shape.key();
  result.device = gpu_->info();
  auto enter = [&](const std::string& s) {
    result.stage = s;
    if (stage) stage(s);
  };
  Status s = validate_shape(req.shape);
  if (!s.ok()) {
    fail(result, Verdict::kContractError, s.message());
    return result;
  }
  if (req.baseline == kReadOnlyBaseline) {
    measure_read_only(req, *gpu_, *impl_, result, stage);
    gpu_->set_call(nullptr, nullptr);
    return result;
  }
  Loaded loaded;
  const bool prepared = req.baseline.empty()
                            ? prepare_candidate(req, *gpu_, loaded, result, enter)
                            : prepare_baseline(req, *gpu_, *impl_, loaded, result, enter);
  if (prepared) {
    ScreenContext ctx{*gpu_, req, loaded.traits, result, stage};
    run_screens(ctx);
    context_lost_ = context_lost_ || ctx.fault;
  }
  // The loaded module goes with `loaded`: nothing may call into it after.
  gpu_->set_call(nullptr, nullptr);
  result.device = gpu_->info();
  return result;
}

namespace {

// Every check that needs no GPU, for the platform's tuning target (the one
// every contest kernel is tuned for). False with the verdict in `result`.
bool compile_without_device(const EvalRequest& req, CompiledCandidate* cc, EvalResult& result,
                            const StageCallback& stage, std::string* arch_out) {
  Status s = validate_shape(req.shape);
  if (!s.ok()) return fail(result, Verdict::kContractError, s.message());
  const VendorTarget target = vendor_offline_target();
  *arch_out = target.arch;
  return compile_candidate(req, target.limits, target.options, target.arch, cc, result,
                           [&](const std::string& st) {
                             result.stage = st;
                             if (stage) stage(st);
                           });
}

}  // namespace

EvalResult check_without_device(const EvalRequest& req, const std::string& why) {
  EvalResult result;
  result.shape = req.shape.key();
  if (!req.baseline.empty()) {
    Status s = validate_shape(req.shape);
    fail(result, s.ok() ? Verdict::kNoDevice : Verdict::kContractError, s.ok() ? why : s.message());
    return result;
  }
  CompiledCandidate cc;
  std::string arch;
  if (!compile_without_device(req, &cc, result, nullptr, &arch)) return result;
  // The target's registers and spills, where the vendor's compiler reports
  // them (recorded, not required: a failed report leaves the target out).
  const std::vector<std::string> report = vendor_resource_report_options(cc.options);
  RtcOutput reported;
  if (!report.empty() && rtc_compile(cc.source, report, &reported).ok() && reported.compiled) {
    TargetResources& t = result.targets[arch];
    t.checked = t.compiled = true;
    t.toolchain = rtc_compiler_version() + " (its assembler's report; nothing was run)";
    vendor_read_resource_report(reported.log, &t);
  }
  fail(result, Verdict::kNoDevice,
       why + " (the contract, static checks and compilation for " + arch +
           " passed; nothing was run)");
  return result;
}

namespace {

HostDeviceOptions host_demo_options() {
  HostDeviceOptions o;
  o.name = "host demo (no GPU: kernels simulated, timings modelled)";
  return o;
}

}  // namespace

DeviceInfo host_demo_device() { return HostDevice(host_demo_options()).info(); }

EvalResult evaluate_on_host_demo(const EvalRequest& req, const StageCallback& stage) {
  EvalResult result;
  result.shape = req.shape.key();
  CompiledCandidate cc;
  std::string arch;
  if (!compile_without_device(req, &cc, result, stage, &arch)) return result;
  // A modelled fraction of the read bandwidth between 30% and 70%, fixed
  // per source and parameters, so the search has something to climb.
  // (FNV keys of close variants share their high bits: mixed first.)
  Rng mix(std::stoull(result.candidate_key, nullptr, 16));
  const double fraction = 0.3 + 0.4 * mix.uniform(0, 1);
  HostDevice device(host_demo_options());
  HostProgram program;
  const double bw = device.info().read_bandwidth_gbps;
  program.call = [fraction, bw](HostLaunch& l) {
    host_reference(l.x, l.w, l.y, l.shape);
    l.cost_us = modelled_time_us(l.shape, bw, fraction);
  };
  program.traits.workspace_bytes =
      std::max<size_t>(kMinWorkspaceBytes, static_cast<size_t>(cc.plan.workspace_bytes));
  device.load(program, req.shape);
  EvalRequest demo = req;
  demo.repetitions = std::min(demo.repetitions, 2);
  demo.time_batches = 1;
  demo.working_set_l2_multiple = 1;  // keep the host rotation small
  ScreenContext ctx{device, demo, program.traits, result, stage};
  if (run_screens(ctx))
    result.message = "[host demo: kernel simulated, time modelled] " + result.message;
  result.device = device.info();
  return result;
}

}  // namespace kopt
