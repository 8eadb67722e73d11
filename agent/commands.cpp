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
#include "sandbox/candidate.h"
#include "sandbox/problem.h"
#include "sandbox/sandbox.h"

namespace kopt {

namespace {

// Eval and bench need at least one shape.
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
Status read_candidate_and_shapes(const EvalCommand& cmd, std::string* source,
                                 std::vector<Shape>* shapes) {
  KOPT_RETURN_IF_ERROR(read_text_file(cmd.file, source));
  return parse_shapes(cmd.problem, cmd.shapes, "", cmd.group, shapes);
}
}  // namespace

int run_profile(const EvalCommand& cmd, double time_limit_s) {
  std::string source;
  std::vector<Shape> shapes;
  if (Status s = read_candidate_and_shapes(cmd, &source, &shapes); !s.ok()) {
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
    Status s = chosen->profile(source, cmd.params, shape, &r);
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
  std::string source;
  std::vector<Shape> shapes;
  Status s = read_candidate_and_shapes(cmd, &source, &shapes);
  if (!s.ok()) {
    fmt::print(stderr, "kopt eval: {}\n", s.message());
    return kExitUsage;
  }
  Sandbox sandbox;
  int exit_code = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  for (const Shape& shape : shapes) {
    EvalRequest req;
    req.source = source;
    req.params = cmd.params;
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

namespace {

// One column of the bench table: a seed kernel, the exported kernels of a
// manifest, or the vendor BLAS baseline.
struct BenchColumn {
  std::string name;
  bool is_baseline = false;    // the vendor BLAS peer
  bool is_read_only = false;   // the yardstick: not a GEMV, never "best"
  const Seed* seed = nullptr;  // a seed column
  // The tuned column: shape name -> the exported candidate's source and parameters.
  std::map<std::string, std::pair<std::string, std::map<std::string, int64_t>>> tuned;
};

// Reads an export manifest (kernels/generated/MANIFEST.json) and, beside it,
// each shape's generated file and the source it includes, the exact code the
// library compiles: the column times what was shipped.
Status read_manifest(const Problem& problem, const std::string& path, BenchColumn* column) {
  std::vector<ManifestEntry> entries;
  KOPT_RETURN_IF_ERROR(read_export_manifest(problem, path, &entries));
  const std::string dir =
      path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  for (const auto& e : entries) {
    // The first entry of a shape is the one tuned on the exporting GPU; a
    // later one serves another architecture (gfx906).
    if (column->tuned.count(e.shape.name())) continue;
    std::string source;
    KOPT_RETURN_IF_ERROR(candidate_source_of(dir, e.file, &source));
    column->tuned[e.shape.name()] = {source, e.params};
  }
  return Status();
}

}  // namespace

int run_bench(const BenchCommand& cmd) {
  std::vector<Shape> shapes;
  Status s = parse_shapes(cmd.problem, cmd.shapes, cmd.suite, cmd.group, &shapes);
  if (!s.ok()) {
    fmt::print(stderr, "kopt bench: {}\n", s.message());
    return kExitUsage;
  }
  const Problem* problem = find_problem(shapes.front().problem);
  std::vector<BenchColumn> columns;
  std::vector<std::string> seed_names = cmd.seeds;
  if (seed_names.empty())
    for (const auto& seed : problem->seeds()) seed_names.push_back(seed.name);
  for (const auto& name : seed_names) {
    const Seed* seed = find_seed(*problem, name);
    if (!seed) {
      fmt::print(stderr, "kopt bench: unknown seed '{}'; the seeds are {}\n", name,
                 kopt::seed_names(*problem));
      return kExitUsage;
    }
    BenchColumn c;
    c.name = seed->name;
    c.seed = seed;
    columns.push_back(c);
  }
  if (!cmd.manifest.empty()) {
    BenchColumn c;
    c.name = "tuned";
    if (!(s = read_manifest(*problem, cmd.manifest, &c)).ok()) {
      fmt::print(stderr, "kopt bench: {}\n", s.message());
      return kExitUsage;
    }
    columns.push_back(c);
  }
  if (cmd.baselines) {
    BenchColumn c;
    c.name = kVendorBlasBaseline;
    c.is_baseline = true;
    columns.push_back(c);
  }
  if (cmd.read_only) {
    BenchColumn c;
    c.name = kReadOnlyBaseline;
    c.is_read_only = true;
    columns.push_back(c);
  }
  Sandbox sandbox;
  DeviceInfo device;
  s = sandbox.device_info(/*measure_bandwidth=*/true, &device);
  if (!s.ok()) {
    fmt::print(stderr, "kopt bench: {}\n", s.message());
    return kExitNoDevice;
  }
  fmt::print(
      "device: {} ({}, {} SMs, L2 {} MB, driver {}, {}); streaming read bandwidth {:.0f} GB/s\n",
      device.name, device.arch, device.multiprocessors, device.l2_bytes >> 20,
      device.driver_version, device.compiler, device.read_bandwidth_gbps);
  const uint64_t base_seed = fresh_seed(cmd.seed);
  nlohmann::json results = nlohmann::json::array();
  std::ostringstream table;
  table << "| shape | MB |";
  for (const auto& c : columns) table << " " << c.name << " µs |";
  table << " best kopt | best µs | GB/s | % of read BW |"
        << (cmd.read_only ? " % of read-only speed |" : "")
        << (cmd.baselines ? " vs vendor BLAS |" : "") << "\n|---|---|";
  for (size_t i = 0; i < columns.size(); ++i) table << "---|";
  table << "---|---|---|---|" << (cmd.read_only ? "---|" : "") << (cmd.baselines ? "---|" : "")
        << "\n";
  double score = 0, floor_us = 0, baseline_score = 0, read_only_score = 0;
  bool all_ok = true, all_shapes_have_best = true, all_shapes_have_baseline = true,
       all_shapes_have_read_only = true;
  for (size_t si = 0; si < shapes.size(); ++si) {
    const Shape& shape = shapes[si];
    const double mb = static_cast<double>(shape_bytes(shape)) / 1e6;
    table << "| " << shape.name() << " | " << fmt::format("{:.2f}", mb) << " |";
    std::optional<EvalResult> best, baseline, read_only;
    std::string best_name;
    for (size_t ci = 0; ci < columns.size(); ++ci) {
      const BenchColumn& column = columns[ci];
      EvalRequest req;
      req.shape = shape;
      req.seed = base_seed + si * 7919 + ci;
      req.trials = cmd.trials;
      if (column.is_baseline || column.is_read_only) {
        req.baseline = column.is_baseline ? kVendorBlasBaseline : kReadOnlyBaseline;
      } else if (column.seed) {
        req.source = column.seed->source;
      } else {
        auto t = column.tuned.find(shape.name());
        if (t == column.tuned.end()) {
          table << " — |";
          continue;
        }
        req.source = t->second.first;
        req.params = t->second.second;
      }
      EvalResult r = sandbox.evaluate(req);
      nlohmann::json j = to_json(r);
      j["column"] = column.name;
      j["params"] = req.params;
      results.push_back(j);
      fmt::print(stderr, "  {} {}: {}{}\n", shape.name(), column.name, verdict_name(r.verdict),
                 r.timing ? fmt::format(" {:.2f} us", r.timing->median_us) : "");
      if (r.ok() && r.timing) {
        table << fmt::format(" {:.2f} |", r.timing->median_us);
        if (column.is_baseline) {
          baseline = r;
        } else if (column.is_read_only) {
          read_only = r;
        } else if (!best || r.timing->median_us < best->timing->median_us) {
          best = r;
          best_name = column.name;
        }
      } else {
        table << " " << verdict_name(r.verdict) << " |";
        if (r.verdict != Verdict::kUnsupportedShape) {
          all_ok = false;
          fmt::print(stderr, "{} on {}: {} — {}\n", column.name, shape.name(),
                     verdict_name(r.verdict), r.message);
        }
      }
    }
    floor_us += static_cast<double>(shape_bytes(shape)) / (device.read_bandwidth_gbps * 1e3);
    if (baseline)
      baseline_score += baseline->timing->median_us;
    else
      all_shapes_have_baseline = false;
    if (read_only)
      read_only_score += read_only->timing->median_us;
    else
      all_shapes_have_read_only = false;
    if (best) {
      score += best->timing->median_us;
      table << fmt::format(" {} | {:.2f} | {:.0f} | {:.1f}% |", best_name, best->timing->median_us,
                           best->timing->gbps, 100 * best->timing->fraction_of_read_bw);
    } else {
      all_shapes_have_best = false;
      table << " — | — | — | — |";
    }
    if (cmd.read_only)
      table << (best && read_only ? fmt::format(" {:.1f}% |", 100 * read_only->timing->median_us /
                                                                  best->timing->median_us)
                                  : std::string(" — |"));
    if (cmd.baselines)
      table << (best && baseline ? fmt::format(" {:.2f}× |", baseline->timing->median_us /
                                                                 best->timing->median_us)
                                 : std::string(" — |"));
    table << "\n";
  }
  fmt::print("\n{}\n", table.str());
  if (all_shapes_have_best)
    fmt::print(
        "score (sum over shapes of the best kopt kernel): {:.2f} us; bandwidth floor at {:.0f} "
        "GB/s: {:.2f} us ({:.1f}% of floor)\n",
        score, device.read_bandwidth_gbps, floor_us, 100 * floor_us / score);
  else
    fmt::print("score: incomplete (some shapes have no verified kernel)\n");
  if (cmd.baselines && all_shapes_have_baseline)
    fmt::print("vendor BLAS fp16 baseline, summed: {:.2f} us\n", baseline_score);
  if (cmd.read_only && all_shapes_have_read_only)
    fmt::print(
        "read-only kernel (reads every shape's bytes, computes nothing), summed: {:.2f} us"
        "{}\n",
        read_only_score,
        all_shapes_have_best
            ? fmt::format("; kopt's score is {:.1f}% of its speed", 100 * read_only_score / score)
            : std::string());
  if (!cmd.json_out.empty()) {
    std::ofstream f(cmd.json_out);
    f << nlohmann::json{{"device", to_json(device)},
                        {"seed", base_seed},
                        {"results", results},
                        {"score_us", score},
                        {"floor_us", floor_us},
                        {"baseline_score_us",
                         all_shapes_have_baseline && cmd.baselines ? baseline_score : 0.0},
                        {"read_only_score_us",
                         all_shapes_have_read_only && cmd.read_only ? read_only_score : 0.0}}
             .dump(2);
  }
  if (!cmd.markdown_out.empty()) {
    std::ofstream f(cmd.markdown_out);
    f << table.str();
  }
  return all_ok ? kExitOk : kExitRejected;
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

namespace {

int check_amd_database(Sandbox& sandbox, const std::string& db_path) {
  std::unique_ptr<Database> db;
  Status s = Database::open_existing(db_path, &db);
  if (!s.ok()) {
    fmt::print(stderr, "kopt check-amd: {}\n", s.message());
    return kExitUsage;
  }
  std::vector<RunRecord> runs;
  db->list_runs(&runs);
  int checked = 0, not_portable = 0;
  for (const auto& run : runs) {
    std::vector<CandidateRecord> candidates;
    db->candidates_of_run(run.id, &candidates);
    for (const auto& c : candidates) {
      std::vector<EvaluationRecord> evals;
      db->evaluations_of(c.id, &evals);
      // One line per candidate and shape (the build depends on both).
      std::set<std::string> reported;
      for (const auto& e : evals) {
        EvalResult record =
            eval_result_from_json(nlohmann::json::parse(e.record_json, nullptr, false));
        if (record.targets[kOfflineTarget].checked) continue;
        // Built as it was evaluated: for the evaluation's shape (of the
        // run's problem, whose device helpers it compiles with).
        Shape shape;
        if (Status ps = parse_shape_key(record.shape, &shape); !ps.ok()) {
          fmt::print(stderr, "kopt check-amd: evaluation {}: {}\n", e.id, ps.message());
          continue;
        }
        TargetResources a = sandbox.check_amd(c.source, params_from_json(c.params_json), shape);
        if (!a.checked) continue;
        record.targets[kOfflineTarget] = a;
        if (!(s = db->update_evaluation_record(e.id, to_json(record).dump())).ok()) {
          fmt::print(stderr, "kopt check-amd: {}\n", s.message());
          return kExitInternal;
        }
        if (reported.insert(record.shape).second) {
          fmt::print("candidate {} ({} {}) on {}: {}\n", c.id, c.name, c.params_json, shape.name(),
                     describe_amd(a));
          ++checked;
          not_portable += a.compiled ? 0 : 1;
        }
      }
    }
  }
  fmt::print("{} build(s) (candidate and shape) checked for gfx906, {} not portable\n", checked,
             not_portable);
  return not_portable ? kExitRejected : kExitOk;
}

}  // namespace

int run_check_amd(const std::string& problem, const std::vector<std::string>& files,
                  const std::string& db_path) {
  Sandbox sandbox;
  if (!sandbox.amd_toolchain().available()) {
    fmt::print(stderr,
               "kopt check-amd: no clang++-15 with ROCm device libraries on this machine (install: "
               "see README)\n");
    return kExitNoDevice;
  }
  if (!db_path.empty()) return check_amd_database(sandbox, db_path);
  int exit_code = kExitOk;
  for (const auto& file : files) {
    std::string source;
    Status s = read_text_file(file, &source);
    if (!s.ok()) {
      fmt::print(stderr, "kopt check-amd: {}\n", s.message());
      return kExitUsage;
    }
    // The file's problem: the one asked for, else the problem whose folder or
    // seed the file is, else the default (said, since its device helpers
    // are the ones the file is built with).
    std::string file_problem = problem;
    std::string assumed;
    if (file_problem.empty()) {
      for (const Problem* p : registered_problems()) {
        const bool in_folder = file.find("problems/" + p->id() + "/") != std::string::npos;
        const bool is_seed = std::any_of(p->seeds().begin(), p->seeds().end(),
                                         [&](const Seed& seed) { return seed.source == source; });
        if (in_folder || is_seed) {
          file_problem = p->id();
          break;
        }
      }
      if (file_problem.empty())
        assumed = " (checked as " + registered_problems().front()->id() +
                  ", the default problem: give --problem ID for another)";
    }
    // A file has no shape: built as for any shape (no size macros).
    TargetResources a = sandbox.check_amd(source, {}, Shape{file_problem, {}});
    fmt::print("{}: {}{}\n", file, describe_amd(a), assumed);
    if (!a.compiled) {
      exit_code = kExitRejected;
      if (!a.log.empty()) fmt::print("{}\n", a.log.substr(0, 4000));
    }
  }
  return exit_code;
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
