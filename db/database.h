// The candidate database: runs, candidates, evaluations and an attempt log
// that keeps every failure, in one SQLite file.
//
// Crash safety: WAL journal, one transaction per record, so a SIGKILL at any
// moment loses at most the record being written; `kopt run --resume` picks
// up from what is there. The schema is versioned; a database from a newer
// kopt is refused rather than misread. No GPU header here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/status.h"

struct sqlite3;

namespace kopt {

constexpr int kSchemaVersion = 5;

struct RunRecord {
  int64_t id = 0;
  std::string shape;        // the shape's key, "problem:shape" (Shape::key)
  std::string config_json;  // the effective configuration
  std::string proposers;    // e.g. "mutator, llm:gpt-x"
  int64_t budget_candidates = 0;
  double budget_seconds = 0;  // 0: none
  int64_t budget_tokens = 0;  // 0: none
  std::string status;         // running | done | failed | interrupted
  std::string started_at, updated_at;
  double elapsed_seconds = 0;  // accumulated over resumes
  int64_t tokens_used = 0;
  double cost = 0;
  uint64_t seed = 0;
};

struct CandidateRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string key;  // hash of source + parameter values
  std::string name;
  std::string source;
  std::string params_json;  // {"ROWS": 4, ...}: the values as given (CandidateValue::asked)
  // source and params_json parsed once (sandbox/contract/candidate.h): set by
  // the database when it reads the row, and by whoever makes the record.
  CandidateRef parsed;
  std::vector<int64_t> parents;
  std::string proposer;  // seed | mutator | llm
  std::string model;
  std::string prompt;
  std::string answer;  // the raw model answer
  int64_t generation = 0;
  std::string created_at;

  // The record of a value: its source, values as given, key and the value.
  void set_candidate(CandidateRef value) {
    source = value->source();
    params_json = params_to_json(value->asked);
    key = value->key;
    parsed = std::move(value);
  }
};

struct EvaluationRecord {
  int64_t id = 0;
  int64_t candidate_id = 0;
  int64_t run_id = 0;
  std::string candidate_key;
  std::string shape;
  std::string device, driver, compiler, flags;
  std::string verdict, stage, message, log, dataset;
  int64_t first_bad_index = -1;
  double expected = 0, got = 0, max_abs_error = 0;
  std::optional<double> median_us;  // set when timed
  double min_us = 0, max_us = 0, spread_pct = 0, gbps = 0, fraction_of_read_bw = 0;
  std::string method;
  int64_t repetitions = 0;
  // The evaluation whole: the sandbox's JSON of its result (to_json(EvalResult)).
  // The fields above are read from it (generated columns); add_evaluation
  // takes only this and the ids.
  std::string record_json;
  bool may_ship = false;  // kopt::may_ship's answer, stored with the record
  std::string created_at;
};

// A failure that produced no evaluation: malformed model answer, HTTP error,
// an edit that did not apply, a duplicate...
// The vendor profiler's view of one candidate on one shape and device:
// status "ok" (summary: the roofline line, json: the counters) or "failed"
// (summary: why, e.g. no permission for counters).
struct ProfileRecord {
  int64_t id = 0;
  int64_t candidate_id = 0;
  std::string shape, device, tool, status, summary, json, created_at;
};

// One stage of the orchestrator in a run: proposing a generation, an
// evaluation round on the workers (`requests` sent at once), re-measuring,
// profiling, a repair turn. Seconds since the run (this process) started.
struct RunStageRecord {
  int64_t run_id = 0;
  int64_t generation = 0;
  std::string stage;
  double started_s = 0, seconds = 0;
  int64_t requests = 0;
};

struct AttemptRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string proposer, model, kind, message, prompt, answer, created_at;
};

struct BestRow {
  CandidateRecord candidate;
  EvaluationRecord evaluation;
};

class Database {
 public:
  ~Database();
  // Opens (creating and migrating as needed). Refuses a newer schema and a
  // file that is not a kopt database.
  static Status open(const std::string& path, std::unique_ptr<Database>* out);
  // For the verbs that only read (db, export, check-amd): the file must exist
  // and is never created; a file with no schema yet stays untouched and
  // opens as an empty database (no runs). An older schema is migrated.
  static Status open_existing(const std::string& path, std::unique_ptr<Database>* out);

  Status create_run(RunRecord* run);  // fills id and timestamps
  Status update_run(const RunRecord& run);
  Status get_run(int64_t id, RunRecord* out);
  Status list_runs(std::vector<RunRecord>* out);

  Status add_candidate(CandidateRecord* c);  // fills id
  Status get_candidate(int64_t id, CandidateRecord* out);
  Status candidates_of_run(int64_t run_id, std::vector<CandidateRecord>* out);
  // Candidates recorded without any evaluation (in flight at a crash).
  Status unevaluated_candidates(int64_t run_id, std::vector<CandidateRecord>* out);

  // Stores e->record_json with the ids and kopt::may_ship's answer, then
  // fills every field of *e from the stored row (id included).
  Status add_evaluation(EvaluationRecord* e);
  // The evaluation of this source+parameters on this shape and device, if any.
  Status find_evaluation(const std::string& key, const std::string& shape,
                         const std::string& device, std::optional<EvaluationRecord>* out);
  Status evaluations_of(int64_t candidate_id, std::vector<EvaluationRecord>* out);
  // Replaces an evaluation's record (e.g. its gfx906 resources checked
  // later) and its shipping decision with it.
  Status update_evaluation_record(int64_t evaluation_id, const std::string& record_json);

  Status add_attempt(AttemptRecord* a);
  Status add_profile(ProfileRecord* p);
  Status profiles_of(int64_t candidate_id, std::vector<ProfileRecord>* out);
  Status add_run_stage(const RunStageRecord& r);
  Status run_stages(int64_t run_id, std::vector<RunStageRecord>* out);

  // Fastest verified candidates: per shape (shape empty: every shape), best
  // first. Kernels that spill on the measuring GPU, or that the gfx906 check
  // found not to build, are left out (one needing gfx906 scratch stays: it
  // may ship for NVIDIA).
  Status best(const std::string& shape, const std::string& device, int limit,
              std::vector<BestRow>* out);
  // Failed evaluations and attempts, newest first (run_id 0: all runs).
  Status failed_evaluations(int64_t run_id, int limit, std::vector<EvaluationRecord>* out);
  Status attempts(int64_t run_id, int limit, std::vector<AttemptRecord>* out);
  // The candidate and its ancestors through the first parent, newest first.
  Status lineage(int64_t candidate_id, std::vector<CandidateRecord>* out);

  int schema_version() const { return kSchemaVersion; }

 private:
  Database() = default;
  Status exec(const std::string& sql);
  Status migrate();
  // Decides may_ship for evaluations stored without it (migrated ones).
  Status decide_unshipped();
  sqlite3* db_ = nullptr;
};

std::string now_utc();

}  // namespace kopt
