// `kopt bench`: every seed (and the shipped kernels, the peers) on shapes.
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
#include "agent/table.h"
#include "db/database.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/problem.h"

namespace kopt {

namespace {

// One column of the bench table: a seed kernel, the exported kernels of a
// manifest, or the vendor BLAS baseline.
struct BenchColumn {
  std::string name;
  bool is_baseline = false;    // the vendor BLAS peer
  bool is_read_only = false;   // the yardstick: not a GEMV, never "best"
  const Seed* seed = nullptr;  // a seed column
  // The tuned column: shape name -> the exported candidate.
  std::map<std::string, CandidateRef> tuned;
};

// Reads an export manifest (kernels/w4a16_gemv/generated/MANIFEST.json) and, beside it,
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
    // A shipped kernel enters as a candidate here.
    column->tuned[e.shape.name()] = enter_candidate(source, e.params);
  }
  return Status();
}

// The bench's columns in order: the seeds (those named, else every seed of
// the problem), the tuned kernels of a manifest, the vendor BLAS peer, the
// read-only yardstick.
Status bench_columns(const BenchCommand& cmd, const Problem& problem,
                     std::vector<BenchColumn>* columns) {
  std::vector<std::string> names = cmd.seeds;
  if (names.empty())
    for (const auto& seed : problem.seeds()) names.push_back(seed.name);
  for (const auto& name : names) {
    const Seed* seed = find_seed(problem, name);
    if (!seed)
      return Status::error(
          fmt::format("unknown seed '{}'; the seeds are {}", name, seed_names(problem)));
    BenchColumn c;
    c.name = seed->name;
    c.seed = seed;
    columns->push_back(c);
  }
  if (!cmd.manifest.empty()) {
    BenchColumn c;
    c.name = "tuned";
    KOPT_RETURN_IF_ERROR(read_manifest(problem, cmd.manifest, &c));
    columns->push_back(c);
  }
  if (cmd.baselines) {
    BenchColumn c;
    c.name = kVendorBlasBaseline;
    c.is_baseline = true;
    columns->push_back(c);
  }
  if (cmd.read_only) {
    BenchColumn c;
    c.name = kReadOnlyBaseline;
    c.is_read_only = true;
    columns->push_back(c);
  }
  return Status();
}

// --param NAME=VALUE items, VALUE a number or a shape variable.
Status parse_param_values(const std::vector<std::string>& items,
                          std::map<std::string, std::string>* out) {
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return Status::error(fmt::format(
          "--param takes NAME=VALUE (a number or a shape variable); got '{}' (kopt bench --help)",
          item));
    (*out)[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return Status();
}

// The --param values a seed takes on `shape`: only those it declares (the
// others run at their defaults), a shape variable's name standing for its
// value on the shape.
Status seed_params(const Seed& seed, const Shape& shape,
                   const std::map<std::string, std::string>& values,
                   std::map<std::string, int64_t>* out) {
  out->clear();
  if (values.empty()) return Status();
  const CandidateRef parsed = seed_candidate(seed);
  if (!parsed->ok()) return parsed->status;
  const Candidate& c = parsed->candidate;
  for (const auto& [name, value] : values) {
    const std::string& wanted = name;  // (a lambda cannot capture a binding in C++17)
    if (!std::any_of(c.spec.params.begin(), c.spec.params.end(),
                     [&](const TunableParam& p) { return p.name == wanted; }))
      continue;
    if (shape.vars.count(value)) {
      (*out)[name] = shape.var(value);
    } else if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos &&
               value.size() < 18) {
      (*out)[name] = std::stoll(value);
    } else {
      return Status::error("--param " + name + "=" + value +
                           ": the value is neither a number nor a variable of " + shape.name());
    }
  }
  return Status();
}

// What the bench collects over the shapes: the Markdown table, every
// result, and the sums of the best kernels, the peers and the floor.
struct BenchTally {
  Table table;
  nlohmann::json results = nlohmann::json::array();
  double score = 0, floor_us = 0, baseline_score = 0, read_only_score = 0;
  bool all_ok = true, all_shapes_have_best = true, all_shapes_have_baseline = true,
       all_shapes_have_read_only = true;
};

void table_header(const BenchCommand& cmd, const std::vector<BenchColumn>& columns, Table& table) {
  table.column("shape").column("MB");
  for (const auto& c : columns) table.column(c.name + " µs");
  table.column("best kopt").column("best µs").column("GB/s").column("% of read BW");
  if (cmd.read_only) table.column("% of read-only speed");
  if (cmd.baselines) table.column("vs vendor BLAS");
}

// Shape `si` on every column: its results, its row of the table and the
// sums. A --param value the shape cannot give is an error.
Status bench_shape(const BenchCommand& cmd, const std::vector<BenchColumn>& columns,
                   const std::map<std::string, std::string>& param_values, const Shape& shape,
                   size_t si, uint64_t base_seed, const DeviceInfo& device, Sandbox& sandbox,
                   BenchTally* t) {
  const double mb = static_cast<double>(shape_bytes(shape)) / 1e6;
  std::vector<std::string> row = {shape.name(), fmt::format("{:.2f}", mb)};
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
      std::map<std::string, int64_t> params;
      KOPT_RETURN_IF_ERROR(seed_params(*column.seed, shape, param_values, &params));
      req.candidate = seed_candidate(*column.seed, params);
    } else {
      auto tuned = column.tuned.find(shape.name());
      if (tuned == column.tuned.end()) {
        row.push_back("—");
        continue;
      }
      req.candidate = tuned->second;
    }
    EvalResult r = sandbox.evaluate(req);
    nlohmann::json j = to_json(r);
    j["column"] = column.name;
    j["params"] = req.candidate ? req.candidate->asked : std::map<std::string, int64_t>{};
    t->results.push_back(j);
    fmt::print(stderr, "  {} {}: {}{}\n", shape.name(), column.name, verdict_name(r.verdict),
               r.timing ? fmt::format(" {:.2f} us", r.timing->median_us) : "");
    if (r.ok() && r.timing) {
      row.push_back(fmt::format("{:.2f}", r.timing->median_us));
      if (column.is_baseline) {
        baseline = r;
      } else if (column.is_read_only) {
        read_only = r;
      } else if (!best || r.timing->median_us < best->timing->median_us) {
        best = r;
        best_name = column.name;
      }
    } else {
      row.push_back(verdict_name(r.verdict));
      if (r.verdict != Verdict::kUnsupportedShape) {
        t->all_ok = false;
        fmt::print(stderr, "{} on {}: {} — {}\n", column.name, shape.name(),
                   verdict_name(r.verdict), r.message);
      }
    }
  }
  t->floor_us += static_cast<double>(shape_bytes(shape)) / (device.read_bandwidth_gbps * 1e3);
  if (baseline)
    t->baseline_score += baseline->timing->median_us;
  else
    t->all_shapes_have_baseline = false;
  if (read_only)
    t->read_only_score += read_only->timing->median_us;
  else
    t->all_shapes_have_read_only = false;
  if (best) {
    t->score += best->timing->median_us;
    row.insert(row.end(), {best_name, fmt::format("{:.2f}", best->timing->median_us),
                           fmt::format("{:.0f}", best->timing->gbps),
                           fmt::format("{:.1f}%", 100 * best->timing->fraction_of_read_bw)});
  } else {
    t->all_shapes_have_best = false;
    row.insert(row.end(), {"—", "—", "—", "—"});
  }
  if (cmd.read_only)
    row.push_back(best && read_only ? fmt::format("{:.1f}%", 100 * read_only->timing->median_us /
                                                                 best->timing->median_us)
                                    : std::string("—"));
  if (cmd.baselines)
    row.push_back(best && baseline ? fmt::format("{:.2f}×", baseline->timing->median_us /
                                                                best->timing->median_us)
                                   : std::string("—"));
  t->table.row(std::move(row));
  return Status();
}

// The table, the score against the bandwidth floor and the peers' sums;
// then the JSON and Markdown files asked for.
void report_bench(const BenchCommand& cmd, const DeviceInfo& device, uint64_t base_seed,
                  const BenchTally& t) {
  fmt::print("\n{}\n", t.table.markdown());
  if (t.all_shapes_have_best)
    fmt::print(
        "score (sum over shapes of the best kopt kernel): {:.2f} us; bandwidth floor at {:.0f} "
        "GB/s: {:.2f} us ({:.1f}% of floor)\n",
        t.score, device.read_bandwidth_gbps, t.floor_us, 100 * t.floor_us / t.score);
  else
    fmt::print("score: incomplete (some shapes have no verified kernel)\n");
  if (cmd.baselines && t.all_shapes_have_baseline)
    fmt::print("vendor BLAS fp16 baseline, summed: {:.2f} us\n", t.baseline_score);
  if (cmd.read_only && t.all_shapes_have_read_only)
    fmt::print(
        "read-only kernel (reads every shape's bytes, computes nothing), summed: {:.2f} us"
        "{}\n",
        t.read_only_score,
        t.all_shapes_have_best ? fmt::format("; kopt's score is {:.1f}% of its speed",
                                             100 * t.read_only_score / t.score)
                               : std::string());
  if (!cmd.json_out.empty()) {
    std::ofstream f(cmd.json_out);
    f << nlohmann::json{{"device", to_json(device)},
                        {"seed", base_seed},
                        {"results", t.results},
                        {"score_us", t.score},
                        {"floor_us", t.floor_us},
                        {"baseline_score_us",
                         t.all_shapes_have_baseline && cmd.baselines ? t.baseline_score : 0.0},
                        {"read_only_score_us",
                         t.all_shapes_have_read_only && cmd.read_only ? t.read_only_score : 0.0}}
             .dump(2);
  }
  if (!cmd.markdown_out.empty()) {
    std::ofstream f(cmd.markdown_out);
    f << t.table.markdown();
  }
}

}  // namespace

int run_bench(const BenchCommand& cmd) {
  auto usage = [](const Status& s) {
    fmt::print(stderr, "kopt bench: {}\n", s.message());
    return kExitUsage;
  };
  std::vector<Shape> shapes;
  Status s = parse_shapes(cmd.problem, cmd.shapes, cmd.suite, cmd.group, &shapes);
  if (!s.ok()) return usage(s);
  const Problem* problem = find_problem(shapes.front().problem);
  std::vector<BenchColumn> columns;
  std::map<std::string, std::string> param_values;
  if (!(s = bench_columns(cmd, *problem, &columns)).ok()) return usage(s);
  if (!(s = parse_param_values(cmd.params, &param_values)).ok()) return usage(s);
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
  BenchTally tally;
  table_header(cmd, columns, tally.table);
  for (size_t si = 0; si < shapes.size(); ++si)
    if (!(s = bench_shape(cmd, columns, param_values, shapes[si], si, base_seed, device, sandbox,
                          &tally))
             .ok()) {
      fmt::print(stderr, "kopt bench: {} (kopt bench --help)\n", s.message());
      return kExitUsage;
    }
  report_bench(cmd, device, base_seed, tally);
  return tally.all_ok ? kExitOk : kExitRejected;
}

}  // namespace kopt
