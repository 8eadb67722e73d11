// A run's timeline from its own records: where the orchestrator's time went
// (proposing, evaluation rounds, re-measurement, profiling, repair turns:
// the run_stages table) and the workers' (each evaluation's worker, seconds
// and stages), and what the same work would take on N workers with and
// without the generation barrier.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "db/database.h"

namespace kopt {

struct StageTotal {
  int64_t count = 0;     // records of the stage
  double seconds = 0;    // summed
  int64_t requests = 0;  // requests sent to the workers (evaluation rounds)
};

struct Timeline {
  double wall_s = 0;                                // the run's elapsed seconds
  std::map<std::string, StageTotal> loop_stages;    // the orchestrator's stages
  std::map<std::string, StageTotal> worker_stages;  // the workers' stages (compile, verify...)
  std::vector<double> worker_busy_s;                // per worker: seconds evaluating
  int64_t evaluations = 0;                          // measured (not reused) evaluations
  int64_t candidates = 0;                           // first measurements
  double evaluation_s = 0;                          // their summed seconds
  std::vector<int64_t> remeasure_rounds;            // requests of each re-measurement round
};

Status build_timeline(Database& db, int64_t run_id, Timeline* out);

// The same run's work on `workers` workers, from the timeline's means: each
// candidate costs its share of the orchestrator's serial work (proposing,
// profiling, repair turns) and one evaluation; re-measurements and
// evaluations run `workers` at a time.
// - barrier: today's loop: a generation of max(batch, workers) candidates is
//   proposed, then evaluated together, then re-measured; the next one waits.
// - streaming: proposals go to whichever worker is free while the
//   orchestrator prepares the next; a worker only waits for the
//   orchestrator when proposing is slower than `workers` evaluations.
struct Simulated {
  int workers = 1;
  double barrier_s = 0, streaming_s = 0;
  double barrier_per_minute = 0, streaming_per_minute = 0;  // candidates per minute
};
Simulated simulate_workers(const Timeline& t, int workers, int batch);

// The timeline as text: the stages, the workers' use, and the simulated
// candidates per minute for each count in `workers`.
std::string format_timeline(const Timeline& t, const std::vector<int>& workers, int batch);

}  // namespace kopt
