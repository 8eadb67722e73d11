// kopt's configuration: a TOML file (config/kopt.toml is the commented
// default), with the model endpoint also settable from the environment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sandbox/contract/status.h"

namespace kopt {

struct ModelConfig {
  std::string name;      // how runs and the database refer to it
  std::string base_url;  // OpenAI-compatible, e.g. http://localhost:8000/v1
  std::string model;     // the "model" field sent
  std::string api_key_env = "OPENAI_API_KEY";
  double weight = 1.0;  // share of proposals
  double temperature = 0.7;
  int64_t max_tokens = 8192;
  double timeout_s = 120;
  int retries = 3;
  double price_per_million_input = 0;
  double price_per_million_output = 0;
};

struct Config {
  // [run]
  int64_t budget = 100;  // candidates
  double time_s = 0;     // 0: no wall-time limit
  int64_t tokens = 0;    // 0: no token limit
  int trials = 1;
  uint64_t seed = 0;  // 0: fresh per run
  int batch = 4;      // children per generation
  std::string database = "kopt.db";
  int unreachable_limit =
      3;  // a model endpoint unreachable this many times in a row is set aside; 0: never
  int niche_every = 3;   // every n-th generation builds on another family's best; 0: never
  bool bandit = true;    // share proposals by improvement per cost (else by weight alone)
  int repair_turns = 1;  // per failed model candidate: the failure goes back to the model
  int transfers = 3;     // a new run also starts from the best of this many nearest other shapes
  // [sandbox]
  double compile_timeout_s = 60;
  double run_timeout_s = 30;
  int64_t memory_limit_mb = 32768;
  bool amd_check = true;
  // [workers]: evaluations at once. gpus: "all" or "0,1" (one worker per
  // GPU of this machine; empty: one worker, the first GPU). command: a
  // launcher for each worker, "{worker}" standing for kopt-worker, e.g.
  // "srun --ntasks=1 --gpus=1 --quiet {worker}" (Slurm job steps), with
  // `count` workers; the worker then speaks over stdin/stdout.
  std::string worker_gpus;
  std::string worker_launcher;
  int worker_count = 1;
  // [mutator]
  double mutator_weight = 1.0;
  // [profiler]: hardware counters of each new best (Nsight Compute)
  bool profiler_enabled = true;
  std::string profiler_command;  // empty: ncu from PATH
  double profiler_time_limit_s = 180;
  // [[models]]
  std::vector<ModelConfig> models;
};

// Reads `path` over the defaults. A missing file is an error only when
// `required`; a malformed one always is, with the line and the reason.
Status load_config(const std::string& path, bool required, Config* out);

// KOPT_MODEL_BASE_URL and KOPT_MODEL add (or override the first) model.
void apply_environment(Config* config);

// "90", "90s", "30m", "2h" -> seconds.
Status parse_duration(const std::string& text, double* seconds);

}  // namespace kopt
