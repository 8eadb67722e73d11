#include "agent/run_command.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>

#include "agent/candidate_text.h"
#include "agent/chat_client.h"
#include "agent/commands.h"
#include "agent/config.h"
#include "agent/db_command.h"
#include "agent/export.h"
#include "agent/loop.h"
#include "agent/model_proposer.h"
#include "agent/report.h"
#include "db/database.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/client/worker_pool.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/subprocess.h"

namespace kopt {

namespace {

// The workers as the loop sees them: one, or one per GPU or Slurm job step.
class PoolEvaluator : public Evaluator {
 public:
  explicit PoolEvaluator(const std::vector<SandboxOptions>& workers) : pool_(workers) {
    for (const SandboxOptions& w : workers) gpus_.push_back(w.gpu);
  }
  EvalResult evaluate(const EvalRequest& request) override { return pool_.evaluate(request); }
  std::vector<EvalResult> evaluate_many(const std::vector<EvalRequest>& requests) override {
    return pool_.evaluate_all(requests);
  }
  void evaluate_stream(const NextRequest& next, const RequestDone& done,
                       const std::map<int, std::function<bool()>>& lent) override {
    pool_.evaluate_stream(next, done, lent);
  }
  int parallelism() const override { return static_cast<int>(pool_.size()); }
  int gpu_of(int worker) const override {
    return worker >= 0 && static_cast<size_t>(worker) < gpus_.size() ? gpus_[worker] : -1;
  }
  Status device(DeviceInfo* out) override {
    if (devices_.empty())
      KOPT_RETURN_IF_ERROR(pool_.devices(/*measure_bandwidth=*/true, &devices_));
    *out = devices_[0];
    return Status();
  }
  const std::vector<DeviceInfo>& devices() const { return devices_; }

 private:
  WorkerPool pool_;
  std::vector<int> gpus_;  // each worker's SandboxOptions::gpu
  std::vector<DeviceInfo> devices_;
};

// One SandboxOptions per worker: through the configured launcher (srun),
// one per listed GPU (--gpus, each with its `gpu`), or the one default
// worker. On failure `exit_code` says whose: a malformed GPU list (usage) or
// no GPU to count.
Status worker_options(const Config& config, const std::string& gpus_flag,
                      const SandboxOptions& base, std::vector<SandboxOptions>* out,
                      int* exit_code) {
  out->clear();
  *exit_code = kExitNoDevice;
  const std::string gpus = gpus_flag.empty() ? config.worker_gpus : gpus_flag;
  if (!config.worker_launcher.empty() && gpus_flag.empty()) {
    std::vector<std::string> command;
    for (const auto& word : split_command_words(config.worker_launcher)) {
      if (word == "{worker}")
        for (const auto& w : base.worker_command) command.push_back(w);
      else
        command.push_back(word);
    }
    for (int i = 0; i < config.worker_count; ++i) {
      SandboxOptions o = base;
      o.worker_command = command;
      o.events_on_stdout = true;  // launchers forward only the standard streams
      out->push_back(o);
    }
    return Status();
  }
  if (gpus.empty()) {
    out->push_back(base);
    return Status();
  }
  int available = 0;
  if (gpus == "all") {
    Sandbox probe(base);
    DeviceInfo d;
    KOPT_RETURN_IF_ERROR(probe.device_info(false, &d));
    available = d.device_count;
  }
  std::vector<int> list;
  *exit_code = kExitUsage;
  KOPT_RETURN_IF_ERROR(parse_gpu_list(gpus, available, &list));
  const std::vector<std::vector<std::string>> commands =
      per_gpu_worker_commands(base.worker_command, list);
  for (size_t i = 0; i < commands.size(); ++i) {
    SandboxOptions o = base;
    o.worker_command = commands[i];
    o.gpu = list[i];
    out->push_back(o);
  }
  return Status();
}

// The shipped library's kernels (its manifest, embedded in kopt), for runs
// to start from. One that cannot be read gives none: a run then starts
// from the seeds and the database, as it would without a library.
std::vector<ShippedKernel> shipped_kernels(const Problem& problem) {
  std::vector<ShippedKernel> out;
  const std::string manifest = problem.library().shipped_manifest;
  std::vector<ManifestEntry> entries;
  if (manifest.empty() ||
      !parse_export_manifest(problem, manifest, "the shipped library's manifest", &entries).ok())
    return out;
  for (const ManifestEntry& e : entries)
    out.push_back({e.shape, {e.row.value("name", std::string()), e.params}});
  return out;
}

std::string format_seconds(double s) {
  if (s < 0) return "no time limit";
  int t = static_cast<int>(s);
  return t >= 3600 ? fmt::format("{}h{:02}m left", t / 3600, (t % 3600) / 60)
                   : fmt::format("{}m{:02}s left", t / 60, t % 60);
}

void print_progress(const Progress& p) {
  static const bool tty = isatty(2);
  if (!p.notice.empty()) fmt::print(stderr, "{}{}\n", tty ? "\r\033[K" : "", p.notice);
  std::string best = p.best_us > 0 ? fmt::format("best {:.2f} us ({:.1f}% of read BW)", p.best_us,
                                                 100 * p.best_fraction)
                                   : "no verified candidate yet";
  std::string line = fmt::format("[{}/{}] {} | {} | {}", p.done, p.budget, best,
                                 format_seconds(p.seconds_left), p.last);
  if (tty)
    fmt::print(stderr, "\r\033[K{}", line.substr(0, 160));
  else
    fmt::print(stderr, "{}\n", line);
}

// `--start` values for one shape: "SEED[:NAME=V,...]" (checked against the
// seed's contract now, so a typo fails before any GPU work), or an exported
// MANIFEST.json, whose entries for the shape continue from the library.
Status resolve_start_points(const Problem& problem, const Shape& shape,
                            const std::vector<std::string>& specs, std::vector<StartPoint>* out) {
  for (const std::string& spec : specs) {
    if (spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".json") == 0) {
      std::vector<ManifestEntry> entries;
      KOPT_RETURN_IF_ERROR(read_export_manifest(problem, spec, &entries));
      size_t found = 0;
      for (const ManifestEntry& e : entries) {
        if (e.shape.key() != shape.key()) continue;
        const std::string name = e.row.value("name", std::string());
        const Seed* seed = find_seed(problem, name);
        if (!seed || !seed_candidate(*seed, e.params)->ok()) {
          // A kernel today's seeds no longer describe: not a starting point.
          fmt::print(stderr, "kopt run: {}: entry {} ({}) does not fit today's seed; left out\n",
                     spec, e.shape.name(), name);
          continue;
        }
        out->push_back({name, e.params});
        ++found;
      }
      if (found == 0)
        fmt::print(stderr, "kopt run: {} has no entry for {}; starting from the seeds\n", spec,
                   shape.name());
      continue;
    }
    const size_t colon = spec.find(':');
    StartPoint start;
    start.name = spec.substr(0, colon);
    const Seed* seed = find_seed(problem, start.name);
    if (!seed)
      return Status::error("--start " + spec + ": no seed named '" + start.name +
                           "' (seeds: " + seed_names(problem) + ")");
    if (colon != std::string::npos) {
      std::stringstream list(spec.substr(colon + 1));
      std::string item, error;
      while (std::getline(list, item, ','))
        if (!parse_param_assignment(item, &start.params, &error))
          return Status::error("--start " + spec + ": " + error);
    }
    const CandidateRef value = seed_candidate(*seed, start.params);
    if (!value->ok()) return Status::error("--start " + spec + ": " + value->status.message());
    out->push_back(std::move(start));
  }
  return Status();
}

// The proposers a run asks: the mutator (unless off) and each model named,
// from the config or the environment, with the prompt templates.
Status run_proposers(const RunCommand& cmd, const Config& config,
                     std::vector<WeightedProposer>* out) {
  if (!cmd.no_mutator && config.mutator_weight > 0)
    out->push_back({std::make_unique<ParameterMutator>(), config.mutator_weight});
  PromptTemplates templates = PromptTemplates::builtin();
  Status s;
  if (!cmd.prompts_dir.empty() &&
      !(s = PromptTemplates::from_directory(cmd.prompts_dir, &templates)).ok())
    return s;
  for (const auto& name : cmd.models) {
    auto it = std::find_if(config.models.begin(), config.models.end(),
                           [&](const ModelConfig& m) { return m.name == name; });
    if (it == config.models.end())
      return Status::error("no model named '" + name + "' in the config or environment");
    HttpChatOptions o;
    o.base_url = it->base_url;
    o.model = it->model;
    const char* key = std::getenv(it->api_key_env.c_str());
    o.api_key = key ? key : "";
    o.temperature = it->temperature;
    o.max_tokens = it->max_tokens;
    o.timeout_s = it->timeout_s;
    o.retries = it->retries;
    out->push_back({std::make_unique<ModelProposer>(it->name, std::make_unique<HttpChatClient>(o),
                                                    it->price_per_million_input,
                                                    it->price_per_million_output, templates),
                    it->weight});
  }
  if (out->empty())
    return Status::error("no proposer: enable the mutator or name a model with --model");
  return Status();
}

// A run to resume must exist, and a new --budget must exceed what it has
// (checked before anything else is started or written).
Status check_resumable(const RunCommand& cmd, const Config& config) {
  std::unique_ptr<Database> existing_db;
  RunRecord existing;
  if (!Database::open_existing(config.database, &existing_db).ok() ||
      !existing_db->get_run(*cmd.resume, &existing).ok())
    return Status::error(
        fmt::format("no run {} in {} (kopt db runs lists them)", *cmd.resume, config.database));
  std::vector<CandidateRecord> done;
  if (cmd.budget && existing_db->candidates_of_run(*cmd.resume, &done).ok() &&
      *cmd.budget <= static_cast<int64_t>(done.size()))
    return Status::error(fmt::format(
        "run {} already has {} candidates; with --resume, --budget is the run's new total",
        *cmd.resume, done.size()));
  return Status();
}

// The loop's options from the config and the command: budgets, the
// search's knobs, where a new run starts, the seed.
LoopOptions run_loop_options(const RunCommand& cmd, const Config& config, const Shape& shape,
                             std::vector<StartPoint> starts) {
  LoopOptions lo;
  lo.budget = config.budget;
  if (cmd.resume && cmd.budget) lo.resume_budget = *cmd.budget;
  lo.unreachable_limit = config.unreachable_limit;
  lo.niche_every = config.niche_every;
  lo.bandit = config.bandit;
  lo.repair_turns = config.repair_turns;
  lo.transfers = config.transfers;
  // A new run's library starts (a resumed run has its candidates already).
  if (const Problem* problem =
          cmd.resume || !cmd.library_starts ? nullptr : find_problem(shape.problem))
    lo.shipped = shipped_kernels(*problem);
  lo.starts = std::move(starts);
  lo.time_s = config.time_s;
  lo.tokens = config.tokens;
  lo.trials = config.trials;
  lo.batch = config.batch;
  std::random_device rd;
  lo.seed = cmd.seed      ? *cmd.seed
            : config.seed ? config.seed
                          : (static_cast<uint64_t>(rd()) << 32 | rd());
  return lo;
}

// Hardware counters for each new best (and so every parent), where the
// vendor profiler is installed; otherwise the prompts say "not profiled".
// Nsight Compute on NVIDIA, rocprof on AMD; `ncu` and `rocprof` outlive the loop.
void attach_profiler(const Config& config, const DeviceInfo& device, NcuProfiler& ncu,
                     RocprofProfiler& rocprof, OptimizationLoop& loop) {
  const bool amd = device.platform == "amd-hip";
  std::string no_profiler;
  if (!config.profiler_enabled)
    fmt::print(stderr, "profiler: off ([profiler] enabled = false)\n");
  else if (amd ? !rocprof.available(&no_profiler) : !ncu.available(&no_profiler))
    fmt::print(stderr, "profiler: not profiled: {}\n", no_profiler);
  else
    loop.set_profiler(amd ? static_cast<Profiler*>(&rocprof) : &ncu);
}

// What a finished run says: why it stopped, what the proposers failed at
// when they kept failing, and its best kernel. Whether the proposers failed.
bool print_run_outcome(const RunCommand& cmd, Database& db, const OptimizationLoop& loop,
                       int64_t run_id, const DeviceInfo& device) {
  std::vector<BestRow> best;
  RunRecord run;
  db.get_run(run_id, &run);
  db.best(run.shape, device.name, 1, &best);
  fmt::print("run {} ({}) finished: {}\n", run_id, run.shape, loop.stop_reason());
  const bool proposers_failed = loop.stop_reason().rfind("proposers produced nothing", 0) == 0;
  if (proposers_failed) {
    std::vector<AttemptRecord> last;
    db.attempts(run_id, 1, &last);
    fmt::print(stderr, "kopt {}: the proposers kept failing; last: {}\n", cmd.verb,
               last.empty() ? std::string("?") : last[0].kind + ": " + last[0].message);
  }
  if (!best.empty())
    fmt::print("best: candidate {} ({} {}) {:.2f} us, {:.0f} GB/s, {:.1f}% of read bandwidth\n",
               best[0].candidate.id, best[0].candidate.name, best[0].candidate.params_json,
               *best[0].evaluation.median_us, best[0].evaluation.gbps,
               100 * best[0].evaluation.fraction_of_read_bw);
  return proposers_failed;
}
}  // namespace

int run_optimize(const RunCommand& cmd) {
  Config config;
  const bool explicit_config = !cmd.config_path.empty();
  Status s = load_config(explicit_config ? cmd.config_path : "kopt.toml", explicit_config, &config);
  if (!s.ok()) return command_error(cmd.verb, s.message(), kExitUsage);
  apply_environment(&config);
  if (cmd.budget) config.budget = *cmd.budget;
  if (cmd.transfers) config.transfers = *cmd.transfers;
  if (cmd.trials) config.trials = *cmd.trials;
  if (!cmd.time.empty() && !(s = parse_duration(cmd.time, &config.time_s)).ok())
    return command_error(cmd.verb, s.message(), kExitUsage);
  if (config.budget < 1) return command_error(cmd.verb, "--budget must be at least 1", kExitUsage);
  if (!cmd.db_path.empty()) config.database = cmd.db_path;
  Shape shape;
  if (!cmd.resume &&
      !(s = parse_shape(cmd.problem, cmd.shape, shape_defaults(cmd.group), &shape)).ok())
    return command_error(cmd.verb, s.message(), kExitUsage);
  if (cmd.resume && !cmd.starts.empty())
    return command_error(cmd.verb, "--start applies to a new run, not to --resume", kExitUsage);
  std::vector<StartPoint> starts;
  if (!cmd.starts.empty() &&
      !(s = resolve_start_points(*find_problem(shape.problem), shape, cmd.starts, &starts)).ok())
    return command_error(cmd.verb, s.message(), kExitUsage);

  std::vector<WeightedProposer> proposers;
  if (!(s = run_proposers(cmd, config, &proposers)).ok())
    return command_error(cmd.verb, s.message(), kExitUsage);

  if (cmd.resume && !(s = check_resumable(cmd, config)).ok())
    return command_error("run", s.message(), kExitUsage);

  SandboxOptions so;
  if (!cmd.worker_command.empty()) so.worker_command = cmd.worker_command;
  so.limits.compile_s = config.compile_timeout_s;
  so.limits.run_s = config.run_timeout_s;
  so.limits.memory_bytes = static_cast<size_t>(config.memory_limit_mb) << 20;
  so.amd_check = config.amd_check;
  std::vector<SandboxOptions> workers;
  int workers_failure = kExitOk;
  if (!(s = worker_options(config, cmd.gpus, so, &workers, &workers_failure)).ok())
    return command_error(cmd.verb, s.message(), workers_failure);
  PoolEvaluator evaluator(workers);
  DeviceInfo device;
  if (!(s = evaluator.device(&device)).ok()) {
    // Without a GPU, say what works instead (the demo runs the same loop).
    return command_error(
        cmd.verb,
        s.message() + (s.is_no_device() ? "; `kopt demo` shows the loop without a GPU" : ""),
        kExitNoDevice);
  }
  if (workers.size() > 1) {
    std::string where;
    for (const auto& d : evaluator.devices())
      where += (where.empty() ? "" : ", ") + where_it_ran(d);
    fmt::print(stderr, "{} workers on {}: {}\n", workers.size(), device.name, where);
  }

  std::unique_ptr<Database> db;
  if (!(s = Database::open(config.database, &db)).ok())
    return command_error(cmd.verb, s.message(), kExitUsage);
  const LoopOptions lo = run_loop_options(cmd, config, shape, std::move(starts));
  OptimizationLoop loop(db.get(), &evaluator, std::move(proposers), lo, print_progress);
  NcuProfiler ncu(config.profiler_command, "", config.profiler_time_limit_s);
  RocprofProfiler rocprof(config.profiler_command, "", config.profiler_time_limit_s);
  attach_profiler(config, device, ncu, rocprof, loop);
  int64_t run_id = cmd.resume.value_or(0);
  nlohmann::json cfg{
      {"budget", config.budget},    {"time_s", config.time_s}, {"tokens", config.tokens},
      {"trials", config.trials},    {"batch", config.batch},   {"models", cmd.models},
      {"mutator", !cmd.no_mutator}, {"device", device.name},   {"workers", workers.size()}};
  if (cmd.resume) {
    fmt::print(stderr, "resuming run {}\n", run_id);
    s = loop.resume(run_id);
  } else {
    s = loop.start(shape, cfg.dump(), &run_id);
  }
  fmt::print(stderr, "\n");
  if (!s.ok())
    return command_error(cmd.verb, fmt::format("run {} stopped: {}", run_id, s.message()),
                         s.is_no_device() ? kExitNoDevice : kExitInternal);
  return print_run_outcome(cmd, *db, loop, run_id, device) ? kExitProposers : kExitOk;
}

int run_optimize_suite(const RunCommand& cmd) {
  if (cmd.resume)
    return command_error(cmd.verb, "--resume continues one run: give it without --suite",
                         kExitUsage);
  if (!cmd.shape.empty())
    return command_error(cmd.verb, "give --shape or --suite, not both", kExitUsage);
  std::vector<Shape> shapes;
  const Problem* problem = nullptr;
  Status s = problem_by_id(cmd.problem, &problem);
  if (s.ok()) s = resolve_shapes(*problem, cmd.suite, {}, shape_defaults(cmd.group), &shapes);
  if (!s.ok()) return command_error(cmd.verb, s.message(), kExitUsage);
  int first_failure = kExitOk;
  for (size_t i = 0; i < shapes.size(); ++i) {
    RunCommand one = cmd;
    one.suite.clear();
    one.problem = problem->id();
    one.shape = shapes[i].name();
    fmt::print("suite {}: shape {} of {}: {}\n", cmd.suite, i + 1, shapes.size(), one.shape);
    const int code = run_optimize(one);
    if (code == kExitUsage || code == kExitNoDevice) return code;  // no other shape would start
    if (first_failure == kExitOk) first_failure = code;
  }
  return first_failure;
}

int run_demo(RunCommand cmd) {
  const Problem* problem = nullptr;
  Status ps = problem_by_id(cmd.problem, &problem);
  if (!ps.ok()) return command_error("demo", ps.message(), kExitUsage);
  if (cmd.shape.empty()) {
    // The problem's smallest shape of its first suite: the demo stays quick.
    const std::vector<Suite> suites = problem->suites(shape_defaults(cmd.group));
    if (suites.empty() || suites[0].shapes.empty())
      return command_error("demo", "give --shape: the problem has no suite", kExitUsage);
    Shape smallest = suites[0].shapes[0].shape;
    for (const auto& e : suites[0].shapes)
      if (shape_bytes(e.shape) < shape_bytes(smallest)) smallest = e.shape;
    cmd.shape = smallest.name();
  }
  if (!cmd.budget) cmd.budget = 12;
  if (cmd.db_path.empty()) cmd.db_path = "kopt-demo.db";
  cmd.verb = "demo";
  Shape shape;  // a bad shape is said before the demo's banner
  if (Status s = parse_shape(cmd.problem, cmd.shape, shape_defaults(cmd.group), &shape); !s.ok())
    return command_error("demo", s.message(), kExitUsage);
  cmd.worker_command = {executable_dir() + "/kopt-worker", "--host-demo"};
  cmd.library_starts = false;  // tuned for GPUs; the demo's budget goes to the loop
  fmt::print(
      "kopt demo: no GPU needed. Each candidate's contract, source rules and compilation are real; "
      "its kernel\n"
      "is simulated on the CPU by kopt's reference GEMV and its time is a model, so correctness "
      "and speed here\n"
      "say nothing about the candidate. It shows the loop: propose -> check -> verify -> time -> "
      "record -> browse.\n\n");
  std::fflush(stdout);  // before the run's progress lines on stderr
  const int code = run_optimize(cmd);
  if (code != kExitOk) return code;
  std::unique_ptr<Database> db;
  Status s = Database::open_existing(cmd.db_path, &db);
  if (!s.ok()) return command_error("demo", s.message(), kExitInternal);
  fmt::print("\n$ kopt db best --db {} --problem {} --shape {}\n", cmd.db_path, shape.problem,
             shape.name());
  db_best(*db, shape.key(), 3);
  std::vector<BestRow> best;
  if (db->best(shape.key(), "", 1, &best).ok() && !best.empty()) {
    fmt::print("\n$ kopt db lineage {} --db {}\n", best[0].candidate.id, cmd.db_path);
    db_lineage(*db, best[0].candidate.id);
  }
  return kExitOk;
}

int run_report(const ReportCommand& cmd) {
  std::unique_ptr<Database> db;
  Status s = Database::open_existing(cmd.db_path, &db);
  if (!s.ok()) return command_error("report", s.message(), kExitUsage);
  ReportOptions o;
  o.db_label = cmd.db_path;
  o.run_id = cmd.run;
  o.shapes = cmd.shapes;
  o.problem = cmd.problem;
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  o.generated_at = stamp;
  std::string html;
  s = build_report(*db, o, &html);
  if (!s.ok()) return command_error("report", s.message(), kExitUsage);
  if (mkdir(cmd.out_dir.c_str(), 0755) != 0 && errno != EEXIST)
    return command_error("report", "cannot create " + cmd.out_dir + ": " + std::strerror(errno),
                         kExitUsage);
  const std::string path = cmd.out_dir + "/index.html";
  std::ofstream f(path, std::ios::binary);
  f << html;
  if (!f.flush()) return command_error("report", "cannot write " + path, kExitUsage);
  fmt::print("wrote {} ({} KiB)\n", path, html.size() / 1024);
  return kExitOk;
}

}  // namespace kopt
