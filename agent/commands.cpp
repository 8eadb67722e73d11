#include "agent/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "agent/export.h"
#include "agent/profiler.h"
#include "agent/proposer.h"
#include "db/database.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/problem.h"

namespace kopt {

Status parse_shapes(const std::string& problem_id, const std::vector<std::string>& texts,
                    const std::string& suite, int64_t group, std::vector<Shape>* out) {
  const Problem* problem = nullptr;
  KOPT_RETURN_IF_ERROR(problem_by_id(problem_id, &problem));
  KOPT_RETURN_IF_ERROR(resolve_shapes(*problem, suite, texts, shape_defaults(group), out));
  if (out->empty())
    return Status::error("no shape given: use --shape (" + problem->shape_syntax() +
                         ") or --suite NAME (`kopt suites` lists them)");
  return Status();
}

std::string describe_amd(const TargetResources& a) {
  if (!a.checked) return a.note.empty() ? "not checked" : a.note;
  if (!a.compiled) return "NOT PORTABLE: " + a.note;
  return fmt::format("gfx906: {} VGPRs, {} SGPRs, {} B scratch, occupancy {}", a.registers,
                     a.scalar_registers, a.spill_bytes, a.occupancy);
}

int run_doctor() {
  fmt::print("kopt doctor\n");
  Sandbox sandbox;
  const AmdToolchain& amd = sandbox.amd_toolchain();
  if (amd.available()) {
    ProcessResult r;
    run_process({amd.clang, "--version"}, 10, 4096, &r);
    fmt::print("  gfx906 offline check: {} ({})\n", amd.clang,
               r.output.substr(0, r.output.find('\n')));
  } else {
    fmt::print(
        "  gfx906 offline check: unavailable (no clang++-15 with ROCm device libraries); "
        "candidates are recorded 'not checked'\n");
  }
  DeviceInfo d;
  Status s = sandbox.device_info(/*measure_bandwidth=*/false, &d);
  if (!s.ok()) {
    fmt::print("  GPU: none — {}\n", s.message());
    fmt::print(
        "  verification and timing need a GPU; static checks and the gfx906 check work without "
        "one\n");
    return kExitNoDevice;
  }
  fmt::print("  GPU: {} ({}), {} SMs, warp {}, L2 {} MB, {} GB\n", d.name, d.arch,
             d.multiprocessors, d.warp_size, d.l2_bytes >> 20, d.total_memory >> 30);
  fmt::print("  platform: {}, driver {}, built against runtime {}, run-time compiler {}\n",
             d.platform, d.driver_version, d.runtime_version, d.compiler);
  fmt::print("  clocks: SM {} MHz, memory {} MHz\n", d.clock_khz / 1000, d.memory_clock_khz / 1000);
  return kExitOk;
}

int command_error(const std::string& verb, const std::string& message, int code) {
  fmt::print(stderr, "kopt {}: {}\n", verb, message);
  return code;
}

Status read_text_file(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::error("cannot read " + path);
  std::stringstream s;
  s << f.rdbuf();
  *out = s.str();
  return Status();
}

uint64_t fresh_seed(const std::optional<uint64_t>& seed) {
  if (seed) return *seed;
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
         static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

ShapeDefaults shape_defaults(int64_t group) { return {{"G", group}}; }

int run_problems() {
  for (const Problem* p : registered_problems()) {
    fmt::print("{}{}\n  {}\n", p->id(), p == registered_problems().front() ? " (default)" : "",
               p->summary());
    std::string vars, suites;
    for (const auto& v : p->variables()) vars += (vars.empty() ? "" : ", ") + v;
    for (const auto& s : p->suites({})) suites += (suites.empty() ? "" : ", ") + s.name;
    fmt::print("  shapes: {} (variables {})\n  seeds: {}\n  suites: {}\n  library: {}\n\n",
               p->shape_syntax(), vars, seed_names(*p), suites, p->library().name);
  }
  fmt::print("Commands take --problem ID (default: the first listed).\n");
  return kExitOk;
}

int run_suites(const std::string& problem_id, const std::string& name, int64_t group) {
  const Problem* problem = nullptr;
  if (Status s = problem_by_id(problem_id, &problem); !s.ok()) {
    fmt::print(stderr, "kopt suites: {}\n", s.message());
    return kExitUsage;
  }
  if (name.empty()) {
    fmt::print("Suites of {}:\n", problem->id());
    for (const Suite& s : problem->suites(shape_defaults(group)))
      fmt::print("{:<12} {:>3} shapes  {}\n", s.name, s.shapes.size(), s.description);
    fmt::print(
        "\nkopt suites NAME lists a suite's shapes; bench, run and export take --suite NAME.\n");
    return kExitOk;
  }
  Suite suite;
  if (Status s = find_suite(*problem, name, shape_defaults(group), &suite); !s.ok()) {
    fmt::print(stderr, "kopt suites: {}\n", s.message());
    return kExitUsage;
  }
  fmt::print("{}: {}\n", suite.name, suite.description);
  for (const auto& e : suite.shapes)
    fmt::print("  {:<14} {:<26} {:>8.2f} MB\n", e.shape.name(), e.role, shape_bytes(e.shape) / 1e6);
  return kExitOk;
}

}  // namespace kopt
