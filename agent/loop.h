// The optimisation loop for one shape: choose parents from the database,
// ask proposers for children, evaluate them in the sandbox, record, repeat
// until the budget is spent. Every record is written as soon as it exists,
// so a killed run resumes where it stopped.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/profiler.h"
#include "agent/proposer.h"
#include "db/database.h"
#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/protocol.h"

namespace kopt {

// The sandbox as the loop sees it (a fake in tests).
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual EvalResult evaluate(const EvalRequest& request) = 0;
  // Several at once, results in request order; one after another unless
  // the evaluator has several workers (one per GPU, or Slurm job steps).
  virtual std::vector<EvalResult> evaluate_many(const std::vector<EvalRequest>& requests) {
    std::vector<EvalResult> results;
    for (const auto& r : requests) results.push_back(evaluate(r));
    return results;
  }
  // Streaming, as WorkerPool::evaluate_stream: a free worker takes the next
  // request, a result may bring more, a worker in `lent` waits until its
  // GPU is back. This default (one worker, or fakes that count rounds)
  // waits for every lent worker, then runs rounds of parallelism()
  // requests through evaluate_many.
  using NextRequest = std::function<bool(EvalRequest*, size_t*)>;
  using RequestDone = std::function<void(size_t, EvalResult)>;
  virtual void evaluate_stream(const NextRequest& next, const RequestDone& done,
                               const std::map<int, std::function<bool()>>& lent);
  // How many evaluations run at once (a generation proposes at least this many).
  virtual int parallelism() const { return 1; }
  // The GPU index worker `w` runs on, for work beside the workers on the
  // same GPU (a profile); -1 where unknown (a job step of a launcher).
  virtual int gpu_of(int /*worker*/) const { return -1; }
  virtual Status device(DeviceInfo* out) = 0;
};

struct WeightedProposer {
  std::unique_ptr<Proposer> proposer;
  double weight = 1.0;
  int unreachable_in_a_row = 0;  // set aside (weight 0) at LoopOptions::unreachable_limit
  // What this proposer has earned in the run so far (the bandit's evidence).
  int proposals = 0;     // candidates it produced
  int improvements = 0;  // of which became the new best (after re-measurement)
  double spent = 0;      // its cost: dollars where priced, else millions of tokens
};

// The share of proposals each proposer gets: its configured weight times its
// improvements per cost so far, with a prior so that a new proposer is tried
// and an unlucky one is not starved (never below a tenth of its plain share).
// Weights set aside (0) stay 0.
std::vector<double> bandit_shares(const std::vector<WeightedProposer>& proposers);

// A candidate a new run evaluates first, after the seeds: a seed by name
// with parameter values (`kopt run --start`), e.g. the shipped library's
// kernel for the shape, so a run continues from what is known.
struct StartPoint {
  std::string name;  // a seed of the problem
  std::map<std::string, int64_t> params;
};

// A kernel the shipped library carries for `shape` (its export manifest):
// where a run's own database has fewer than LoopOptions::transfers kernels
// of nearby shapes, the nearest of these fill in, so a first run on a shape
// nobody tuned here starts from the library's tuning, not the seeds alone.
struct ShippedKernel {
  Shape shape;
  StartPoint kernel;
};

struct LoopOptions {
  int64_t budget = 100;  // candidates evaluated in the run, seeds included
  // On resume: the run's new total budget, as given on the command line
  // (otherwise the larger of the stored one and `budget`).
  std::optional<int64_t> resume_budget;
  double time_s = 0;   // 0: none (wall time, summed over resumes)
  int64_t tokens = 0;  // 0: none
  int trials = 1;
  int batch = 4;
  uint64_t seed = 1;
  // A model endpoint that cannot be reached (connection refused, unknown
  // host) this many times in a row is set aside; 0: never.
  int unreachable_limit = 3;
  // Measure a candidate that beats the incumbent a second time before it
  // leads (Database::best ranks by the slower measurement).
  bool remeasure_new_bests = true;
  // Every `niche_every`-th generation builds on the best of another kernel
  // family (by name, in turn) instead of the global best; 0: never.
  int niche_every = 3;
  // Share proposals between proposers by improvement per cost (bandit_shares);
  // false: by the configured weights alone.
  bool bandit = true;
  // Repair turns per failed model candidate (compile error, rejected, wrong
  // result): the failure and log go back to the same model; 0: none.
  int repair_turns = 1;
  // Evaluated with the seeds on a new run (proposer "start"); one equal to a
  // seed or to another start point is left out.
  std::vector<StartPoint> starts;
  // A new run also starts from the fastest kernel of each of this many other
  // shapes of the problem measured on the same GPU (nearest sizes first,
  // proposer "transfer", where this shape can run them; one equal to a seed
  // or a start point is left out): a kernel several parameters away from
  // this shape's best is out of the mutator's reach, yet often near the best
  // here when it won on a similar shape; 0: none.
  int transfers = 3;
  // The shipped library's kernels: where fewer than `transfers` come from
  // the database, the nearest of these that this shape can run fill in
  // (proposer "library").
  std::vector<ShippedKernel> shipped;
};

// One line of progress, after each candidate.
struct Progress {
  int64_t done = 0, budget = 0;
  double best_us = 0, best_fraction = 0;  // 0: nothing verified yet
  std::string last;                       // "vec {ROWS:2} ok 3.41 us"
  double seconds_left = -1;               // -1: no time limit
  std::string notice;  // said once, on its own line before this progress line ("" none)
};
using ProgressSink = std::function<void(const Progress&)>;

class OptimizationLoop {
 public:
  OptimizationLoop(Database* db, Evaluator* evaluator, std::vector<WeightedProposer> proposers,
                   LoopOptions options, ProgressSink progress = nullptr);

  // A new run for `shape`: the seeds first, then proposals.
  Status start(const Shape& shape, const std::string& config_json, int64_t* run_id);
  // Continues a run: evaluates what was in flight, then goes on.
  Status resume(int64_t run_id);

  // Profiles each new best after its re-measurement (so every parent the
  // search builds on has hardware counters); none: not profiled.
  void set_profiler(Profiler* profiler) { profiler_ = profiler; }

  // The reason the last run stopped ("budget", "time", "tokens", "space covered", "no device").
  const std::string& stop_reason() const { return stop_reason_; }

 private:
  Status run(RunRecord* run);
  // The candidates a new run for `shape` transfers from other shapes
  // (LoopOptions::transfers), nearest first: from the database, then from
  // the shipped library where the database has too few.
  Status transfer_points(const Shape& shape, std::vector<BestRow>* out,
                         std::vector<StartPoint>* shipped);
  // Evaluates the candidates together and records each result in order;
  // `led` says which became the new best.
  Status evaluate_batch(RunRecord* run, const std::vector<CandidateRecord*>& batch,
                        std::vector<bool>* led);
  // The bandit's evidence for a proposer: one more proposal, and whether it led.
  void credit(WeightedProposer* picked, const Proposal& proposal, bool led);
  // Profiles a new best: beside the workers on one worker's GPU (lent to
  // the profile, so no timing runs beside it) where there are several
  // workers on known GPUs, else now, in line. A profile in flight is
  // recorded when collected: before the next is started, between batches
  // once done, and at the end of the run.
  Status profile(int64_t run_id, const CandidateRecord& candidate);
  Status collect_profile(int64_t run_id, bool wait);
  struct ProfileOutcome {
    Status status;
    ProfileResult result;
    std::chrono::steady_clock::time_point ended;
  };
  struct ProfileInFlight {
    CandidateRecord candidate;
    int worker = -1;
    std::chrono::steady_clock::time_point began;
    std::future<ProfileOutcome> outcome;
  };
  std::optional<ProfileInFlight> profiling_;
  // The workers whose GPU is lent (to a profile), for evaluate_stream.
  std::map<int, std::function<bool()>> lent_workers();
  Status record_attempt(const RunRecord& run, const Proposer& proposer, const std::string& kind,
                        const std::string& message, const std::string& prompt,
                        const std::string& answer);
  // A repair that produced nothing: its tokens and cost charged to the run
  // and the attempt recorded as "repair:<kind>" (nothing where the proposer
  // made no attempt, an empty kind).
  Status record_failed_repair(RunRecord* run, const Proposer& proposer,
                              const ProposalFailure& failure);
  // Records a proposal as a candidate unless it repeats one (an attempt
  // "duplicate" then); `recorded` says which.
  Status record_candidate(RunRecord* run, const ProposalContext& ctx, Proposal& proposal,
                          WeightedProposer* picked, CandidateRecord* out, bool* recorded);
  Status gather_context(const RunRecord& run, ProposalContext* ctx);
  Proposer* pick_proposer();

  // What the steps of a run share: its record, whether the budget is spent
  // (saying why in stop_reason_), progress, and ending it with a status.
  struct RunControl {
    RunRecord* run;
    std::function<bool()> out_of_budget;
    std::function<Status()> report;
    std::function<Status(const std::string&)> finish;
  };
  // A step either lets the run go on or ends it, run() returning `status`.
  struct Step {
    bool ends_run = false;
    Status status;
  };
  // A recorded candidate with the proposal and proposer behind it.
  struct Planned {
    CandidateRecord candidate;
    Proposal proposal;
    WeightedProposer* picked;
  };
  // One generation's proposals, recorded (not yet evaluated) into `planned`;
  // `exhausted`: a proposer said its space is covered.
  Step propose_generation(RunControl& control, const ProposalContext& ctx,
                          std::vector<Planned>* planned, bool* exhausted);
  // Evaluated together (one per worker), then each proposer credited;
  // `produced` counts them.
  Status evaluate_together(RunRecord* run, std::vector<Planned>& items, int* produced);
  // The repair turns of the generation's failed model candidates.
  Step repair_failures(RunControl& control, const ProposalContext& ctx,
                       const std::vector<Planned>& planned, int* produced);

  Database* db_;
  Evaluator* evaluator_;
  Profiler* profiler_ = nullptr;
  std::vector<WeightedProposer> proposers_;
  LoopOptions options_;
  ProgressSink progress_;
  Rng rng_;
  // Input seeds of the measurements, apart from rng_, so what is proposed
  // does not depend on how many measurements were taken (a run proposes the
  // same candidates on one worker or several).
  Rng measure_rng_;
  DeviceInfo device_;
  Shape shape_;
  std::set<std::string> seen_;
  // Normalised source and parameters (sandbox/contract/candidate.h) -> the candidate
  // that has them: a child differing only in comments or white space is not
  // evaluated again.
  std::map<std::string, int64_t> seen_code_;
  int64_t evaluated_ = 0;
  int64_t generations_ = 0;
  // The run's timeline: when this process started the run, and a stage of
  // the orchestrator recorded from `began` to `ended` (`requests` sent to
  // the workers; 0 for work of the orchestrator alone).
  std::chrono::steady_clock::time_point run_started_ = std::chrono::steady_clock::now();
  Status stage_done(int64_t run_id, const char* stage, std::chrono::steady_clock::time_point began,
                    int64_t requests,
                    std::chrono::steady_clock::time_point ended = std::chrono::steady_clock::now());
  std::string stop_reason_;
  std::string last_line_;
  std::function<Status()> after_record_;  // progress after each record, while a run runs
};

// EvalResult -> the database row.
EvaluationRecord to_evaluation_record(const EvalResult& result, int64_t candidate_id,
                                      int64_t run_id, const std::string& key);

}  // namespace kopt
