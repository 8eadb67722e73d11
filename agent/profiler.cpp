#include "agent/profiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/subprocess.h"

namespace kopt {
namespace {

// Stall reasons Nsight Compute reports per issue-active cycle; the roofline
// line shows each as a share of their sum.
const std::vector<std::string>& stall_reasons() {
  static const std::vector<std::string> reasons = {"long_scoreboard",
                                                   "short_scoreboard",
                                                   "mio_throttle",
                                                   "lg_throttle",
                                                   "barrier",
                                                   "wait",
                                                   "math_pipe_throttle",
                                                   "not_selected",
                                                   "no_instruction",
                                                   "dispatch_stall",
                                                   "membar",
                                                   "drain",
                                                   "branch_resolving",
                                                   "imc_miss",
                                                   "tex_throttle",
                                                   "sleeping"};
  return reasons;
}

std::string stall_metric(const std::string& reason) {
  return "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio";
}

// One CSV line of quoted fields ("a","b,c","") into its fields.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

// "1,152.5" (ncu may group digits) -> 1152.5; false when not a number.
bool number(std::string text, double* out) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end && *end == '\0';
}

// The math pipes whose busy cycles the roofline line reads, with what runs
// in each (on NVIDIA since GA10x and GH100: the FMA-heavy pipe is the only
// one with the integer dot products, IMAD and packed fp16, so a kernel of
// dp4a or dp2a is bound by it long before its issue slots are full).
struct Pipe {
  const char* name;   // as stored
  const char* label;  // as shown
  const char* metric;
  const char* runs;
};
const std::vector<Pipe>& math_pipes() {
  static const std::vector<Pipe> pipes = {
      {"fma_heavy", "FMA-heavy", "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active",
       "dp4a, dp2a, IMAD, FP32"},
      {"fma_lite", "FMA-lite", "sm__pipe_fmalite_cycles_active.avg.pct_of_peak_sustained_active",
       "FP32"},
      {"alu", "ALU", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
       "logic, shifts, compares, integer adds"}};
  return pipes;
}

std::string pretty(std::string reason) {
  std::replace(reason.begin(), reason.end(), '_', ' ');
  return reason;
}

}  // namespace

std::vector<std::string> ncu_metrics(bool with_pipes) {
  std::vector<std::string> m = {"gpu__time_duration.sum",
                                "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                                "sm__inst_issued.avg.pct_of_peak_sustained_active",
                                "sm__warps_active.avg.pct_of_peak_sustained_active",
                                "sm__maximum_warps_per_active_cycle_pct",
                                "lts__t_sector_hit_rate.pct",
                                "launch__registers_per_thread"};
  for (const auto& r : stall_reasons()) m.push_back(stall_metric(r));
  if (with_pipes)
    for (const Pipe& p : math_pipes()) m.push_back(p.metric);
  return m;
}

Status parse_ncu_csv(const std::string& output, ProfileResult* out) {
  *out = ProfileResult();
  std::istringstream in(output);
  std::string line;
  std::vector<std::string> header, units, values;
  while (std::getline(in, line)) {
    if (line.rfind("\"ID\"", 0) != 0) continue;
    header = csv_fields(line);
    // The units line, then the first kernel's values; other output may sit
    // between them.
    while (std::getline(in, line))
      if (line.rfind("\"", 0) == 0) {
        if (units.empty())
          units = csv_fields(line);
        else {
          values = csv_fields(line);
          break;
        }
      }
    break;
  }
  if (header.empty()) return Status::error("no Nsight Compute CSV in the profiler's output");
  if (values.size() != header.size() || units.size() != header.size())
    return Status::error("the profiler's CSV has no complete row for a kernel");
  std::map<std::string, std::pair<double, std::string>> m;
  for (size_t i = 0; i < header.size(); ++i) {
    double v;
    if (number(values[i], &v)) m[header[i]] = {v, units[i]};
    if (header[i] == "Kernel Name") out->kernel = values[i];
  }
  auto get = [&](const std::string& name, double* v) -> Status {
    auto it = m.find(name);
    if (it == m.end()) return Status::error("the profiler did not report " + name);
    *v = it->second.first;
    return Status();
  };
  double duration = 0, registers = 0;
  KOPT_RETURN_IF_ERROR(get("gpu__time_duration.sum", &duration));
  const std::string unit = m["gpu__time_duration.sum"].second;
  out->duration_us = unit == "nsecond" || unit == "ns"   ? duration / 1e3
                     : unit == "msecond" || unit == "ms" ? duration * 1e3
                                                         : duration;
  KOPT_RETURN_IF_ERROR(get("dram__throughput.avg.pct_of_peak_sustained_elapsed", &out->dram_pct));
  KOPT_RETURN_IF_ERROR(get("sm__inst_issued.avg.pct_of_peak_sustained_active", &out->issue_pct));
  KOPT_RETURN_IF_ERROR(
      get("sm__warps_active.avg.pct_of_peak_sustained_active", &out->achieved_occupancy_pct));
  KOPT_RETURN_IF_ERROR(
      get("sm__maximum_warps_per_active_cycle_pct", &out->theoretical_occupancy_pct));
  KOPT_RETURN_IF_ERROR(get("lts__t_sector_hit_rate.pct", &out->l2_hit_pct));
  KOPT_RETURN_IF_ERROR(get("launch__registers_per_thread", &registers));
  out->registers = static_cast<int>(registers);
  double total = 0;
  for (const auto& r : stall_reasons()) {
    double v = 0;
    if (get(stall_metric(r), &v).ok() && v > 0) {
      out->stalls.push_back({r, v});
      total += v;
    }
  }
  for (auto& s : out->stalls) s.second = total > 0 ? 100 * s.second / total : 0;
  std::sort(out->stalls.begin(), out->stalls.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  // The pipes where this GPU has them (Nsight Compute writes "n/a" for a
  // metric a chip lacks).
  for (const Pipe& pipe : math_pipes()) {
    double v = 0;
    if (get(pipe.metric, &v).ok()) out->pipes.push_back({pipe.name, v});
  }
  std::stable_sort(out->pipes.begin(), out->pipes.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return Status();
}

Status parse_rocprof_csv(const std::string& csv, const std::string& kernel, ProfileResult* out) {
  *out = ProfileResult();
  std::istringstream in(csv);
  std::string line;
  if (!std::getline(in, line)) return Status::error("rocprof wrote an empty CSV");
  const std::vector<std::string> header = csv_fields(line);
  auto column = [&](const std::string& name) -> int {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  };
  const int name_col = column("KernelName");
  if (name_col < 0) return Status::error("rocprof's CSV has no KernelName column");
  while (std::getline(in, line)) {
    const std::vector<std::string> row = csv_fields(line);
    if (row.size() != header.size()) continue;
    const std::string& name = row[static_cast<size_t>(name_col)];
    // "gemv.kd", "gemv [clone .kd]", "gemv(...)": the name, then a separator.
    if (name.rfind(kernel, 0) != 0 ||
        (name.size() > kernel.size() &&
         std::string(".( [").find(name[kernel.size()]) == std::string::npos))
      continue;
    out->kernel = kernel;
    auto get = [&](const std::string& metric, double* v) -> Status {
      const int c = column(metric);
      if (c < 0 || !number(row[static_cast<size_t>(c)], v))
        return Status::error("rocprof did not report " + metric);
      return Status();
    };
    double begin = 0, end = 0, vgpr = 0, stalled = 0;
    KOPT_RETURN_IF_ERROR(get("MemUnitBusy", &out->dram_pct));
    KOPT_RETURN_IF_ERROR(get("VALUBusy", &out->issue_pct));
    KOPT_RETURN_IF_ERROR(get("L2CacheHit", &out->l2_hit_pct));
    KOPT_RETURN_IF_ERROR(get("MemUnitStalled", &stalled));
    if (get("arch_vgpr", &vgpr).ok() || get("vgpr", &vgpr).ok())
      out->registers = static_cast<int>(vgpr);
    if (get("BeginNs", &begin).ok() && get("EndNs", &end).ok() && end > begin)
      out->duration_us = (end - begin) / 1e3;
    out->stalls = {{"memory_unit_stalled", stalled}};
    out->tool = "rocprof";
    return Status();
  }
  return Status::error("rocprof's CSV has no dispatch of kernel " + kernel);
}

std::string roofline_line(const ProfileResult& p) {
  if (p.tool == "rocprof") {
    const char* bound = p.dram_pct >= 60 && p.dram_pct >= p.issue_pct ? "memory-bound"
                        : p.issue_pct >= 60                           ? "compute-bound (VALU)"
                                                                      : "latency-bound";
    const double stalled = p.stalls.empty() ? 0 : p.stalls[0].second;
    return fmt::format(
        "{}: memory unit {:.0f}% busy (stalled {:.0f}%), VALU {:.0f}% busy, L2 hit {:.0f}%, {} "
        "VGPRs",
        bound, p.dram_pct, stalled, p.issue_pct, p.l2_hit_pct, p.registers);
  }
  // A kernel near the DRAM roof is memory-bound; one whose issue slots or
  // busiest math pipe are the busier unit is compute-bound (a pipe can be
  // the limit with issue slots to spare: dp4a takes two of an FMA-heavy
  // pipe's cycles per issue); none close to its peak means latency-bound
  // (too little in flight to saturate any).
  const double pipe_pct = p.pipes.empty() ? 0 : p.pipes[0].second;
  // The busiest pipe's label and what runs in it (a stored name this build
  // does not know is shown as it is).
  std::string pipe_label = p.pipes.empty() ? "" : pretty(p.pipes[0].first), pipe_runs;
  for (const Pipe& pipe : math_pipes())
    if (!p.pipes.empty() && p.pipes[0].first == pipe.name) {
      pipe_label = pipe.label;
      pipe_runs = pipe.runs;
    }
  const std::string bound =
      p.dram_pct >= 60 && p.dram_pct >= std::max(p.issue_pct, pipe_pct) ? "memory-bound"
      : pipe_pct >= 60 && pipe_pct > p.issue_pct ? "compute-bound (" + pipe_label + " pipe)"
      : p.issue_pct >= 60                        ? "compute-bound (issue)"
                                                 : "latency-bound";
  std::string s = fmt::format(
      "{}: DRAM {:.0f}% of peak, issue slots {:.0f}% busy, occupancy {:.0f}% of {:.0f}% "
      "possible, L2 hit {:.0f}%, {} registers",
      bound, p.dram_pct, p.issue_pct, p.achieved_occupancy_pct, p.theoretical_occupancy_pct,
      p.l2_hit_pct, p.registers);
  if (!p.pipes.empty())
    s += fmt::format("; busiest pipe {} {:.0f}%{}", pipe_label, pipe_pct,
                     pipe_runs.empty() ? "" : " (" + pipe_runs + ")");
  if (!p.stalls.empty()) {
    s += "; stalls:";
    for (size_t i = 0; i < p.stalls.size() && i < 3; ++i)
      s +=
          fmt::format("{} {} {:.0f}%", i ? "," : "", pretty(p.stalls[i].first), p.stalls[i].second);
  }
  return s;
}

std::string profile_to_json(const ProfileResult& p) {
  nlohmann::json stalls = nlohmann::json::array(), pipes = nlohmann::json::array();
  for (const auto& [reason, share] : p.stalls) stalls.push_back({reason, share});
  for (const auto& [name, busy] : p.pipes) pipes.push_back({name, busy});
  return nlohmann::json{{"tool", p.tool},
                        {"kernel", p.kernel},
                        {"duration_us", p.duration_us},
                        {"dram_pct", p.dram_pct},
                        {"issue_pct", p.issue_pct},
                        {"achieved_occupancy_pct", p.achieved_occupancy_pct},
                        {"theoretical_occupancy_pct", p.theoretical_occupancy_pct},
                        {"l2_hit_pct", p.l2_hit_pct},
                        {"registers", p.registers},
                        {"stalls", stalls},
                        {"pipes", pipes}}
      .dump();
}

Status profile_from_json(const std::string& text, ProfileResult* out) {
  *out = ProfileResult();
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return Status::error("a stored profile is not a JSON object");
  auto num = [&](const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
  };
  out->tool = j.contains("tool") && j["tool"].is_string() ? j["tool"].get<std::string>() : "";
  out->kernel =
      j.contains("kernel") && j["kernel"].is_string() ? j["kernel"].get<std::string>() : "";
  out->duration_us = num("duration_us");
  out->dram_pct = num("dram_pct");
  out->issue_pct = num("issue_pct");
  out->achieved_occupancy_pct = num("achieved_occupancy_pct");
  out->theoretical_occupancy_pct = num("theoretical_occupancy_pct");
  out->l2_hit_pct = num("l2_hit_pct");
  out->registers = static_cast<int>(num("registers"));
  // Pairs of a name and a share (profiles stored before the pipes have none).
  auto pairs = [&](const char* key, std::vector<std::pair<std::string, double>>* to) {
    if (j.contains(key) && j[key].is_array())
      for (const auto& s : j[key])
        if (s.is_array() && s.size() == 2 && s[0].is_string() && s[1].is_number())
          to->push_back({s[0].get<std::string>(), s[1].get<double>()});
  };
  pairs("stalls", &out->stalls);
  pairs("pipes", &out->pipes);
  return Status();
}

ToolProfiler::ToolProfiler(std::string program, const char* name, std::string kopt,
                           double time_limit_s)
    : program_(program.empty() ? find_program(name) : std::move(program)),
      name_(name),
      kopt_(kopt.empty() ? executable_dir() + "/kopt" : std::move(kopt)),
      time_limit_s_(time_limit_s) {}

bool ToolProfiler::available(std::string* why) const {
  if (program_.empty() || access(program_.c_str(), X_OK) != 0) {
    *why = "no " + name_ + " in PATH";
    return false;
  }
  return true;
}

std::vector<std::string> ToolProfiler::eval_arguments(const std::string& file, const Shape& shape,
                                                      const std::map<std::string, int64_t>& params,
                                                      int gpu) const {
  // The shape's problem by name: a shape's name alone reads as the default problem's.
  std::vector<std::string> argv = {kopt_,     "eval",       file,        "--problem", shape.problem,
                                   "--shape", shape.name(), "--no-time", "--trials",  "1"};
  for (const auto& [name, value] : params) {
    argv.push_back("--param");
    argv.push_back(name + "=" + std::to_string(value));
  }
  if (gpu >= 0) {
    argv.push_back("--gpu");
    argv.push_back(std::to_string(gpu));
  }
  return argv;
}

Status ToolProfiler::run(const std::vector<std::string>& argv, ProcessResult* result) const {
  KOPT_RETURN_IF_ERROR(run_process(argv, time_limit_s_, 1 << 20, result));
  if (result->timed_out)
    return Status::error(fmt::format("{} ran past its {:.0f} s limit", name_, time_limit_s_));
  return Status();
}

Status ToolProfiler::first_kernel(const CandidateValue& candidate, std::string* kernel) const {
  std::string why;
  if (!available(&why)) return Status::error("not profiled: " + why);
  if (!candidate.ok()) return candidate.status;
  const Candidate& c = candidate.candidate;
  if (c.spec.launches.empty()) return Status::error("the candidate launches no kernel");
  *kernel = c.spec.launches[0].kernel;
  return Status();
}

namespace {
// The reason a profiler's output could not be read, with the end of what
// it printed (no permission for counters, ...).
Status unreadable(const Status& why, const ProcessResult& r) {
  const std::string tail = r.output.substr(r.output.size() > 400 ? r.output.size() - 400 : 0);
  return Status::error(why.message() + " (profiler output ends: " + tail + ")");
}
}  // namespace

Status NcuProfiler::profile(const CandidateValue& candidate, const Shape& shape, int gpu,
                            ProfileResult* out) {
  std::string kernel;
  KOPT_RETURN_IF_ERROR(first_kernel(candidate, &kernel));
  char path[] = "/tmp/kopt-profile-XXXXXX.hip";
  const int fd = mkstemps(path, 4);
  if (fd < 0) return Status::error("cannot create a temporary file for the profiler");
  close(fd);
  { std::ofstream(path) << candidate.source(); }
  // The relayout and kopt's own kernels are not matched; the first launch
  // of the candidate's first kernel (verification's first run) is profiled.
  std::vector<std::string> argv = {program_,
                                   "--csv",
                                   "--page",
                                   "raw",
                                   "--target-processes",
                                   "all",
                                   "-k",
                                   "regex:^" + kernel + "$",
                                   "--launch-count",
                                   "1",
                                   "--metrics"};
  const std::vector<std::string> eval = eval_arguments(path, shape, candidate.asked, gpu);
  // `ran`: the profiler ran to its end (its output, not its time limit, is
  // what failed, if anything did).
  ProcessResult r;
  bool ran = false;
  auto profile_with = [&](bool pipes) {
    std::vector<std::string> full = argv;
    std::string metrics;
    for (const auto& m : ncu_metrics(pipes)) metrics += (metrics.empty() ? "" : ",") + m;
    full.push_back(metrics);
    full.insert(full.end(), eval.begin(), eval.end());
    Status s = run(full, &r);
    ran = s.ok();
    return ran ? parse_ncu_csv(r.output, out) : s;
  };
  // A GPU without the pipe counters (before GA10x) may refuse the request
  // as a whole: then once more without them.
  Status s = profile_with(true);
  if (!s.ok() && ran) s = profile_with(false);
  unlink(path);
  if (!s.ok()) return ran ? unreadable(s, r) : s;
  out->tool = "ncu";
  return Status();
}

Status RocprofProfiler::profile(const CandidateValue& candidate, const Shape& shape, int gpu,
                                ProfileResult* out) {
  std::string kernel;
  KOPT_RETURN_IF_ERROR(first_kernel(candidate, &kernel));
  char dir[] = "/tmp/kopt-rocprof-XXXXXX";
  if (!mkdtemp(dir)) return Status::error("cannot create a temporary folder for rocprof");
  const std::string d = dir, file = d + "/candidate.hip", input = d + "/input.txt",
                    csv = d + "/results.csv";
  { std::ofstream(file) << candidate.source(); }
  {
    std::ofstream(input) << "pmc: VALUBusy MemUnitBusy MemUnitStalled L2CacheHit\nkernel: "
                         << kernel << "\n";
  }
  std::vector<std::string> argv = {program_, "-i", input, "-o", csv, "--timestamp", "on"};
  for (auto& a : eval_arguments(file, shape, candidate.asked, gpu)) argv.push_back(std::move(a));
  ProcessResult r;
  Status s = run(argv, &r);
  std::string text;
  if (s.ok()) {
    std::ifstream f(csv);
    std::stringstream all;
    all << f.rdbuf();
    text = all.str();
  }
  for (const std::string& f : {file, input, csv}) unlink(f.c_str());
  rmdir(dir);
  KOPT_RETURN_IF_ERROR(s);
  if (!(s = parse_rocprof_csv(text, kernel, out)).ok()) return unreadable(s, r);
  return Status();
}

}  // namespace kopt
