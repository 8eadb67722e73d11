// Hardware counters of one candidate from the vendor profiler, for the
// candidates the search builds on (new bests, hence every parent): Nsight
// Compute on NVIDIA. The profiler runs `kopt eval` of the candidate under
// its own time limit; its answer is summarised in one roofline line for the
// prompt and kept per evaluation in the database.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/problem.h"
#include "sandbox/contract/status.h"
#include "sandbox/contract/subprocess.h"

namespace kopt {

struct ProfileResult {
  std::string tool;  // "ncu" or "rocprof"
  std::string kernel;
  double duration_us = 0;
  double dram_pct = 0;                // DRAM throughput, % of peak
  double issue_pct = 0;               // issue slots busy, % of peak
  double achieved_occupancy_pct = 0;  // active warps, % of the SM's maximum
  double theoretical_occupancy_pct = 0;
  double l2_hit_pct = 0;
  int registers = 0;
  // Stall reasons, largest first, as a share (%) of all stalled warp cycles.
  std::vector<std::pair<std::string, double>> stalls;
  // Math pipes' busy cycles, busiest first, % of peak over the SMs' active
  // cycles ("fma_heavy", "fma_lite", "alu"); empty where the profiler has
  // no such counters.
  std::vector<std::pair<std::string, double>> pipes;
};

// Nsight Compute's metric names, in the order they are requested: the
// roofline's and the stall reasons (`with_pipes` false), then the math
// pipes' busy cycles.
std::vector<std::string> ncu_metrics(bool with_pipes = true);

// Reads `ncu --csv --page raw` output (other program output may be mixed
// in): the first profiled kernel's metrics. An error names what is missing.
Status parse_ncu_csv(const std::string& output, ProfileResult* out);

// Reads the CSV `rocprof --timestamp on -i <pmc file>` writes: the first
// dispatch of `kernel` (ROCm appends ".kd" or a clone suffix to the name).
// rocprof's derived metrics fill the fields: MemUnitBusy -> dram_pct (the
// memory unit's busy share, the nearest AMD counterpart), VALUBusy ->
// issue_pct, L2CacheHit, the VGPR count, MemUnitStalled as the one stall.
Status parse_rocprof_csv(const std::string& csv, const std::string& kernel, ProfileResult* out);

// "memory-bound: DRAM 52% of peak, issue slots 43% busy, occupancy 22% of
// 25% possible, L2 hit 4%, 126 registers; busiest pipe FMA-heavy 31% (dp4a,
// dp2a, IMAD, FP32); stalls: short scoreboard 51%, ..."
// (rocprof: "...: memory unit 85% busy (stalled 20%), VALU 30% busy, ...").
std::string roofline_line(const ProfileResult& p);

// To and from the JSON kept in the database.
std::string profile_to_json(const ProfileResult& p);
Status profile_from_json(const std::string& text, ProfileResult* out);

class Profiler {
 public:
  virtual ~Profiler() = default;
  // On GPU `gpu` (an index of this machine), or the default GPU when -1.
  virtual Status profile(const CandidateValue& candidate, const Shape& shape, int gpu,
                         ProfileResult* out) = 0;
};

// A vendor profiler run as a program over `kopt eval FILE --no-time`.
class ToolProfiler : public Profiler {
 public:
  // False (with the reason) when the program is not installed: "not profiled".
  bool available(std::string* why) const;

 protected:
  // `program`: a path, or empty to find `name` in PATH; `kopt`: a path, or
  // empty for the kopt beside this program; `time_limit_s` bounds one run.
  ToolProfiler(std::string program, const char* name, std::string kopt, double time_limit_s);
  // `kopt eval` of `file` for `shape` with `params` on `gpu` (-1: the
  // default), to append to a command.
  std::vector<std::string> eval_arguments(const std::string& file, const Shape& shape,
                                          const std::map<std::string, int64_t>& params,
                                          int gpu) const;
  // Runs `argv` under the time limit; a limit passed is an error.
  Status run(const std::vector<std::string>& argv, ProcessResult* result) const;
  // What both profilers check first: the program is installed, the
  // candidate's contract parses, and `kernel` is its first launched kernel
  // (the one profiled).
  Status first_kernel(const CandidateValue& candidate, std::string* kernel) const;

  std::string program_, name_, kopt_;
  double time_limit_s_;
};

// Nsight Compute: the candidate's first launched kernel, once, after its
// load-time work.
class NcuProfiler : public ToolProfiler {
 public:
  NcuProfiler(std::string ncu, std::string kopt, double time_limit_s)
      : ToolProfiler(std::move(ncu), "ncu", std::move(kopt), time_limit_s) {}
  Status profile(const CandidateValue& candidate, const Shape& shape, int gpu,
                 ProfileResult* out) override;
};

// rocprof (ROCm's profiler, v1 command line): the candidate's first launched
// kernel, its first dispatch.
class RocprofProfiler : public ToolProfiler {
 public:
  RocprofProfiler(std::string rocprof, std::string kopt, double time_limit_s)
      : ToolProfiler(std::move(rocprof), "rocprof", std::move(kopt), time_limit_s) {}
  Status profile(const CandidateValue& candidate, const Shape& shape, int gpu,
                 ProfileResult* out) override;
};

}  // namespace kopt
