// `kopt eval` and `kopt profile`: one candidate file on shapes.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "agent/commands.h"
#include "agent/export.h"
#include "agent/profiler.h"
#include "agent/proposer.h"
#include "db/database.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/problem.h"

namespace kopt {

namespace {

void print_result(const EvalResult& r) {
  fmt::print("shape {}: {}", r.shape, verdict_name(r.verdict));
  if (!r.message.empty()) fmt::print(" — {}", r.message);
  fmt::print("\n");
  if (r.first_bad_index >= 0 && !r.ok())
    fmt::print("  first wrong index {} ({}): expected {:.6g}, got {:.6g}\n", r.first_bad_index,
               r.dataset, r.expected, r.got);
  if (r.timing) {
    const Timing& t = *r.timing;
    fmt::print(
        "  time: {:.2f} us median (min {:.2f}, max {:.2f}, spread {:.1f}%, {} reps x {} calls, {} "
        "weight copies, {})\n",
        t.median_us, t.min_us, t.max_us, t.spread_pct, t.repetitions, t.calls_per_repetition,
        t.weight_copies, t.method);
    fmt::print("  bandwidth: {:.0f} GB/s = {:.1f}% of measured read bandwidth ({:.0f} GB/s)\n",
               t.gbps, 100 * t.fraction_of_read_bw, r.device.read_bandwidth_gbps);
  }
  for (const auto& [name, t] : r.targets)
    if (name != kOfflineTarget && t.checked)
      fmt::print("  {}: {} registers, {} B local (spills), {} B static shared\n", name, t.registers,
                 t.spill_bytes, t.shared_bytes);
  const auto offline = r.targets.find(kOfflineTarget);
  fmt::print("  {}\n", offline == r.targets.end() ? std::string("gfx906: not checked")
                                                  : describe_amd(offline->second));
  if (!r.ok() && !r.log.empty()) fmt::print("  log:\n{}\n", r.log.substr(0, 4000));
}

}  // namespace

namespace {
// The candidate file and the shapes of `kopt eval` / `kopt profile`.
// The file with the `--param` values enters as a candidate here (a contract
// that does not parse is the evaluation's verdict, not a usage error).
Status read_candidate_and_shapes(const EvalCommand& cmd, CandidateRef* candidate,
                                 std::vector<Shape>* shapes) {
  std::string source;
  KOPT_RETURN_IF_ERROR(read_text_file(cmd.file, &source));
  *candidate = enter_candidate(source, cmd.params);
  return parse_shapes(cmd.problem, cmd.shapes, "", cmd.group, shapes);
}
}  // namespace

int run_profile(const EvalCommand& cmd, double time_limit_s) {
  CandidateRef candidate;
  std::vector<Shape> shapes;
  if (Status s = read_candidate_and_shapes(cmd, &candidate, &shapes); !s.ok()) {
    fmt::print(stderr, "kopt profile: {}\n", s.message());
    return kExitUsage;
  }
  // Whichever vendor profiler is installed: Nsight Compute, else rocprof.
  NcuProfiler ncu("", "", time_limit_s);
  RocprofProfiler rocprof("", "", time_limit_s);
  std::string no_ncu, no_rocprof;
  Profiler* chosen = ncu.available(&no_ncu)           ? static_cast<Profiler*>(&ncu)
                     : rocprof.available(&no_rocprof) ? &rocprof
                                                      : nullptr;
  if (!chosen) {
    fmt::print(stderr, "kopt profile: not profiled: {}; {}\n", no_ncu, no_rocprof);
    return kExitNoDevice;
  }
  int exit_code = kExitOk;
  for (const Shape& shape : shapes) {
    ProfileResult r;
    Status s = chosen->profile(*candidate, shape, /*gpu=*/-1, &r);
    if (!s.ok()) {
      fmt::print("shape {}: not profiled: {}\n", shape.name(), s.message());
      exit_code = kExitRejected;
      continue;
    }
    fmt::print("shape {}: kernel {} {:.2f} us under the profiler\n  {}\n", shape.name(), r.kernel,
               r.duration_us, roofline_line(r));
    if (cmd.json) fmt::print("{}\n", profile_to_json(r));
  }
  return exit_code;
}

int run_eval(const EvalCommand& cmd) {
  CandidateRef candidate;
  std::vector<Shape> shapes;
  Status s = read_candidate_and_shapes(cmd, &candidate, &shapes);
  if (!s.ok()) {
    fmt::print(stderr, "kopt eval: {}\n", s.message());
    return kExitUsage;
  }
  Sandbox sandbox;
  int exit_code = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  for (const Shape& shape : shapes) {
    EvalRequest req;
    req.candidate = candidate;
    req.shape = shape;
    req.seed = fresh_seed(cmd.seed);
    req.trials = cmd.trials;
    req.time = cmd.time;
    EvalResult r = sandbox.evaluate(req);
    if (cmd.json)
      all.push_back(to_json(r));
    else
      print_result(r);
    if (r.verdict == Verdict::kNoDevice)
      exit_code = kExitNoDevice;
    else if (r.verdict == Verdict::kInternalError && exit_code == kExitOk)
      exit_code = kExitInternal;
    else if (!r.ok() && exit_code == kExitOk)
      exit_code = kExitRejected;
  }
  if (cmd.json) fmt::print("{}\n", all.dump(2));
  return exit_code;
}

}  // namespace kopt
