#include "agent/loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "agent/loop_internal.h"
#include "sandbox/contract/candidate.h"

namespace kopt {

namespace {

using Clock = std::chrono::steady_clock;
}  // namespace

OptimizationLoop::OptimizationLoop(Database* db, Evaluator* evaluator,
                                   std::vector<WeightedProposer> proposers, LoopOptions options,
                                   ProgressSink progress)
    : db_(db),
      evaluator_(evaluator),
      proposers_(std::move(proposers)),
      options_(options),
      progress_(std::move(progress)),
      rng_(options.seed),
      measure_rng_(options.seed ^ 0x6D656173757265ull) {}

Status OptimizationLoop::start(const Shape& shape, const std::string& config_json,
                               int64_t* run_id) {
  const Problem* problem = find_problem(shape.problem);
  if (!problem) return Status::error("no registered problem '" + shape.problem + "'");
  RunRecord run;
  run.shape = shape.key();
  run.config_json = config_json;
  for (const auto& p : proposers_)
    run.proposers += (run.proposers.empty() ? "" : ", ") + p.proposer->name() +
                     (p.proposer->model().empty() ? "" : ":" + p.proposer->model());
  run.budget_candidates = options_.budget;
  run.budget_seconds = options_.time_s;
  run.budget_tokens = options_.tokens;
  run.status = "running";
  run.seed = options_.seed;
  KOPT_RETURN_IF_ERROR(db_->create_run(&run));
  *run_id = run.id;
  std::set<std::string> keys;
  // Adds a candidate unless the run already has its key.
  auto add = [&](const std::string& name, CandidateRef value, const char* proposer,
                 std::vector<int64_t> parents) -> Status {
    CandidateRecord c;
    c.run_id = run.id;
    c.name = name;
    c.set_candidate(std::move(value));
    c.proposer = proposer;
    c.parents = std::move(parents);
    if (!keys.insert(c.key).second) return Status();
    return db_->add_candidate(&c);
  };
  for (const auto& seed : problem->seeds())
    KOPT_RETURN_IF_ERROR(add(seed.name, seed_candidate(seed), "seed", {}));
  for (const auto& start : options_.starts) {
    const Seed* seed = find_seed(*problem, start.name);
    if (!seed) return Status::error("start point: no seed named '" + start.name + "'");
    KOPT_RETURN_IF_ERROR(add(seed->name, seed_candidate(*seed, start.params), "start", {}));
  }
  std::vector<BestRow> transfers;
  std::vector<StartPoint> shipped;
  KOPT_RETURN_IF_ERROR(transfer_points(shape, &transfers, &shipped));
  for (const BestRow& t : transfers)
    KOPT_RETURN_IF_ERROR(add(t.candidate.name, t.candidate.parsed, "transfer", {t.candidate.id}));
  for (const StartPoint& k : shipped)
    KOPT_RETURN_IF_ERROR(
        add(k.name, seed_candidate(*find_seed(*problem, k.name), k.params), "library", {}));
  return this->run(&run);
}

namespace {
// How far apart two shapes of one problem are: the sum over their sizes of
// |ln(a / b)|, so 5120x3072 is nearer 5120x3584 than 7168x9216.
double shape_distance(const Shape& a, const Shape& b) {
  double d = 0;
  for (const auto& [name, value] : a.vars) {
    const int64_t other = b.var(name);
    if (value > 0 && other > 0)
      d += std::abs(std::log(static_cast<double>(value) / static_cast<double>(other)));
  }
  return d;
}

// Indices of `others` of `shape`'s problem, nearest first (ties in their
// order); an empty one is left out.
std::vector<size_t> nearest_first(const Shape& shape,
                                  const std::vector<std::optional<Shape>>& others) {
  std::vector<std::pair<double, size_t>> nearest;
  for (size_t i = 0; i < others.size(); ++i)
    if (others[i] && others[i]->problem == shape.problem)
      nearest.push_back({shape_distance(shape, *others[i]), i});
  std::stable_sort(nearest.begin(), nearest.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<size_t> order;
  for (const auto& [distance, i] : nearest) order.push_back(i);
  return order;
}

}  // namespace

Status OptimizationLoop::transfer_points(const Shape& shape, std::vector<BestRow>* out,
                                         std::vector<StartPoint>* shipped) {
  out->clear();
  shipped->clear();
  if (options_.transfers <= 0) return Status();
  // Without a device there is nothing measured to transfer from (the run
  // itself reports why it has none).
  DeviceInfo device;
  if (!evaluator_->device(&device).ok() || device.name.empty()) return Status();
  std::vector<BestRow> bests;  // the fastest candidate of every shape on this GPU
  KOPT_RETURN_IF_ERROR(db_->best("", device.name, 1, &bests));
  std::vector<std::optional<Shape>> measured;  // none: unreadable, or this shape itself
  for (const BestRow& b : bests) {
    Shape other;
    const bool other_shape = parse_shape_key(b.evaluation.shape, &other).ok() && !(other == shape);
    measured.push_back(other_shape ? std::optional<Shape>(other) : std::nullopt);
  }
  std::set<std::string> taken;
  for (size_t i : nearest_first(shape, measured)) {
    if (static_cast<int>(out->size()) >= options_.transfers) break;
    const CandidateRecord& c = bests[i].candidate;
    // One that this shape cannot run would only cost a candidate.
    if (!runs_on(*c.parsed, shape, device)) continue;
    if (taken.insert(c.key).second) out->push_back(bests[i]);
  }
  // The shipped library's kernels fill in, nearest first (its own kernel for
  // this very shape, if it has one, before all others).
  const Problem* problem = find_problem(shape.problem);
  std::vector<std::optional<Shape>> shipped_shapes;
  for (const ShippedKernel& k : options_.shipped) shipped_shapes.push_back(k.shape);
  for (size_t i : nearest_first(shape, shipped_shapes)) {
    if (static_cast<int>(out->size() + shipped->size()) >= options_.transfers) break;
    const StartPoint& k = options_.shipped[i].kernel;
    const Seed* seed = problem ? find_seed(*problem, k.name) : nullptr;
    // A kernel today's seed no longer describes (runs_on parses it) is no starting point.
    if (!seed) continue;
    const CandidateRef value = seed_candidate(*seed, k.params);
    if (!runs_on(*value, shape, device)) continue;
    if (taken.insert(value->key).second) shipped->push_back(k);
  }
  return Status();
}

Status OptimizationLoop::resume(int64_t run_id) {
  RunRecord run;
  KOPT_RETURN_IF_ERROR(db_->get_run(run_id, &run));
  // The budget may have been set anew for the resumed run.
  run.budget_candidates = options_.resume_budget ? *options_.resume_budget
                                                 : std::max(run.budget_candidates, options_.budget);
  if (options_.time_s > 0) run.budget_seconds = options_.time_s;
  rng_ = Rng(run.seed ^ static_cast<uint64_t>(Clock::now().time_since_epoch().count()));
  measure_rng_ = Rng(rng_.next());
  run.status = "running";
  KOPT_RETURN_IF_ERROR(db_->update_run(run));
  return this->run(&run);
}

namespace {
// What a reply may be, said to a model whose answer could not be read.
const char* const kAnswerFormats =
    "Answer with one of: the complete kernel with its /* kopt: */ contract in one ```hip block; "
    "SEARCH/REPLACE edits whose SEARCH lines are copied exactly from the parent kernel shown "
    "(an elision comment such as // ... unchanged ... may skip lines inside one); a unified "
    "diff of the parent in a ```diff block; or a submit_kernel tool call. Only kernel code: no "
    "host code, no includes.";

// Failures a model can fix from the message and log alone.
bool repairable(const std::string& verdict) {
  return verdict == "compile_error" || verdict == "contract_error" ||
         verdict == "static_rejected" || verdict == "wrong_result" || verdict == "not_written" ||
         verdict == "launch_error";
}
}  // namespace

Status OptimizationLoop::run(RunRecord* run) {
  run_started_ = Clock::now();
  Shape shape;
  KOPT_RETURN_IF_ERROR(parse_shape_key(run->shape, &shape));
  shape_ = shape;
  KOPT_RETURN_IF_ERROR(evaluator_->device(&device_));
  std::vector<CandidateRecord> existing;
  KOPT_RETURN_IF_ERROR(db_->candidates_of_run(run->id, &existing));
  seen_.clear();
  seen_code_.clear();
  for (const auto& c : existing) {
    seen_.insert(c.key);
    seen_code_.emplace(code_key(c.source, c.params_json), c.id);
  }
  std::vector<CandidateRecord> pending;
  KOPT_RETURN_IF_ERROR(db_->unevaluated_candidates(run->id, &pending));
  evaluated_ = static_cast<int64_t>(existing.size() - pending.size());
  stop_reason_.clear();
  // Said once: what the seeds and starting points take of the budget.
  std::string notice;
  if (evaluated_ == 0 && !pending.empty()) {
    const int64_t taken =
        std::min<int64_t>(static_cast<int64_t>(pending.size()), run->budget_candidates);
    notice = fmt::format(
        "{} seeds and starting points come first: {} of the budget of {}, {} left for proposals",
        pending.size(), taken, run->budget_candidates, run->budget_candidates - taken);
  }
  std::string last_progress;  // the last line shown: the same state is not shown twice

  const auto started = Clock::now();
  const double elapsed_before = run->elapsed_seconds;
  auto elapsed = [&] {
    return elapsed_before + std::chrono::duration<double>(Clock::now() - started).count();
  };
  auto report = [&] {
    run->elapsed_seconds = elapsed();
    Status s = db_->update_run(*run);
    if (progress_) {
      Progress p;
      p.done = evaluated_;
      p.budget = run->budget_candidates;
      std::vector<BestRow> best;
      if (db_->best(shape_.key(), device_.name, 1, &best).ok() && !best.empty()) {
        p.best_us = *best[0].evaluation.median_us;
        p.best_fraction = best[0].evaluation.fraction_of_read_bw;
      }
      p.last = last_line_;
      p.seconds_left =
          run->budget_seconds > 0 ? std::max(0.0, run->budget_seconds - elapsed()) : -1;
      const std::string state = fmt::format("{} {} {}", p.done, p.best_us, p.last);
      if (state != last_progress || !notice.empty()) {
        p.notice = notice;
        notice.clear();
        last_progress = state;
        progress_(p);
      }
    }
    return s;
  };
  auto out_of_budget = [&] {
    if (evaluated_ >= run->budget_candidates) return stop_reason_ = "budget", true;
    if (run->budget_seconds > 0 && elapsed() >= run->budget_seconds)
      return stop_reason_ = "time", true;
    if (run->budget_tokens > 0 && run->tokens_used >= run->budget_tokens)
      return stop_reason_ = "tokens", true;
    return false;
  };
  auto finish = [&](const std::string& status) {
    const Status profiled = collect_profile(run->id, /*wait=*/true);
    run->status = status;
    const Status reported = report();
    return profiled.ok() ? reported : profiled;
  };

  // Each record reports progress (and saves the run's counters).
  after_record_ = report;
  struct ClearAfterRecord {
    std::function<Status()>* f;
    ~ClearAfterRecord() { *f = nullptr; }
  } clear_after_record{&after_record_};

  // What was in flight when the run stopped (the seeds, on a fresh run),
  // as far as the budget goes, evaluated together on every worker.
  if (out_of_budget()) return finish("done");
  {
    std::vector<CandidateRecord*> batch;
    for (auto& c : pending)
      if (evaluated_ + static_cast<int64_t>(batch.size()) < run->budget_candidates)
        batch.push_back(&c);
    std::vector<bool> led;
    Status s = evaluate_batch(run, batch, &led);
    if (!s.ok()) {
      finish("failed");
      return s;
    }
  }

  int idle_generations = 0;
  bool exhausted = false;
  int produced = 0;
  RunControl control{run, out_of_budget, report, finish};
  while (!out_of_budget()) {
    ProposalContext ctx;
    KOPT_RETURN_IF_ERROR(gather_context(*run, &ctx));
    if (ctx.parents.empty()) {
      stop_reason_ = "no verified candidate to build on";
      finish("failed");
      return Status::error("run " + std::to_string(run->id) + ": " + stop_reason_);
    }
    produced = 0;
    exhausted = false;
    // A generation's proposals are recorded first, then evaluated together
    // (one per worker at a time), then failed model kernels get their repair
    // turns. Recorded candidates count against the budget before they are
    // evaluated, and a killed run evaluates them on resume.
    std::vector<Planned> planned;
    const auto propose_began = Clock::now();
    if (Step step = propose_generation(control, ctx, &planned, &exhausted); step.ends_run)
      return step.status;
    KOPT_RETURN_IF_ERROR(
        stage_done(run->id, "propose", propose_began, static_cast<int64_t>(planned.size())));
    if (Status s = evaluate_together(run, planned, &produced); !s.ok()) {
      finish("failed");
      return s;
    }
    // One repair turn for a model candidate that failed (compile error,
    // rejected, wrong result): the failure goes back to the same model, and
    // its answer is a new candidate, counted in the budget. A turn's repairs
    // are evaluated together, one per worker, like a generation.
    if (Step step = repair_failures(control, ctx, planned, &produced); step.ends_run)
      return step.status;
    // Nothing new for several generations (every proposer failed or the
    // parameter space is covered): stop rather than spin.
    idle_generations = produced == 0 ? idle_generations + 1 : 0;
    if (idle_generations >= 5) {
      stop_reason_ =
          exhausted ? "space covered" : "proposers produced nothing new for 5 generations";
      return finish("done");
    }
  }
  return finish("done");
}

OptimizationLoop::Step OptimizationLoop::propose_generation(RunControl& control,
                                                            const ProposalContext& ctx,
                                                            std::vector<Planned>* planned,
                                                            bool* exhausted) {
  RunRecord* run = control.run;
  const int batch_size = std::max(options_.batch, evaluator_->parallelism());
  auto budget_left = [&] {
    return run->budget_candidates - evaluated_ - static_cast<int64_t>(planned->size());
  };
  for (int b = 0; b < batch_size && !control.out_of_budget() && budget_left() > 0; ++b) {
    Proposer* proposer = pick_proposer();
    if (!proposer) {
      stop_reason_ = "no proposer";
      control.finish("failed");
      return {true, Status::error("no proposer has a positive weight")};
    }
    Proposal proposal;
    ProposalFailure failure;
    bool ok = proposer->propose(ctx, &proposal, &failure);
    run->tokens_used += ok ? proposal.tokens : failure.tokens;
    run->cost += ok ? proposal.cost : failure.cost;
    auto record_attempt = [&](const std::string& kind, const std::string& message,
                              const std::string& prompt, const std::string& answer) {
      return this->record_attempt(*run, *proposer, kind, message, prompt, answer);
    };

    WeightedProposer& picked =
        *std::find_if(proposers_.begin(), proposers_.end(),
                      [&](const WeightedProposer& p) { return p.proposer.get() == proposer; });
    picked.unreachable_in_a_row =
        !ok && failure.kind == "model_unreachable" ? picked.unreachable_in_a_row + 1 : 0;
    if (!ok) {
      if (Status s = record_attempt(failure.kind, failure.message, failure.prompt, failure.answer);
          !s.ok())
        return {true, s};
      // The reason, with the endpoint, from the first failure on.
      // (A streak of the same failure says its reason once.)
      last_line_ =
          picked.unreachable_in_a_row > 1
              ? fmt::format("{}: {} again ({} in a row)", proposer->name(), failure.kind,
                            picked.unreachable_in_a_row)
              : proposer->name() + ": " + failure.kind + " — " + failure.message.substr(0, 200);
      if (options_.unreachable_limit > 0 &&
          picked.unreachable_in_a_row >= options_.unreachable_limit) {
        picked.weight = 0;
        last_line_ = proposer->name() + " set aside after " +
                     std::to_string(picked.unreachable_in_a_row) + " failures in a row";
        if (Status s = control.report(); !s.ok()) return {true, s};
        const bool any_left = std::any_of(proposers_.begin(), proposers_.end(),
                                          [](const WeightedProposer& p) { return p.weight > 0; });
        if (!any_left) {
          // (the reason itself closes the run's output: kopt run's last line)
          stop_reason_ = "proposers produced nothing: every model endpoint is unreachable";
          return {true, control.finish("done")};
        }
        continue;
      }
      *exhausted = *exhausted || failure.kind == "space_exhausted";
      if (Status s = control.report(); !s.ok()) return {true, s};
      // An answer that could not be read goes back to the same model once,
      // with what to change; its reply is a proposal like any other.
      if (failure.kind != "malformed_answer" || options_.repair_turns < 1 ||
          failure.answer.empty() || budget_left() <= 0)
        continue;
      Proposal unread;
      unread.prompt = failure.prompt;
      unread.answer = failure.answer;
      unread.candidate = ctx.parents[0].candidate.parsed;  // its edits were against the parent
      unread.parents = {ctx.parents[0].candidate.id};
      unread.name = "llm";
      ProposalFailure again;
      const std::string what =
          "Your answer could not be read: " + failure.message + "\n" + kAnswerFormats;
      if (!proposer->repair(ctx, unread, what, &proposal, &again)) {
        if (Status s = record_failed_repair(run, *proposer, again); !s.ok()) return {true, s};
        continue;
      }
      run->tokens_used += proposal.tokens;
      run->cost += proposal.cost;
    }
    Planned p{CandidateRecord(), proposal, &picked};
    bool recorded = false;
    Status considered = record_candidate(run, ctx, p.proposal, &picked, &p.candidate, &recorded);
    if (!considered.ok()) {
      control.finish("failed");
      return {true, considered};
    }
    if (recorded) planned->push_back(std::move(p));
  }
  return {};
}

Status OptimizationLoop::evaluate_together(RunRecord* run, std::vector<Planned>& items,
                                           int* produced) {
  std::vector<CandidateRecord*> batch;
  for (auto& p : items) batch.push_back(&p.candidate);
  std::vector<bool> led;
  KOPT_RETURN_IF_ERROR(evaluate_batch(run, batch, &led));
  for (size_t i = 0; i < items.size(); ++i) credit(items[i].picked, items[i].proposal, led[i]);
  *produced += static_cast<int>(items.size());
  return Status();
}

OptimizationLoop::Step OptimizationLoop::repair_failures(RunControl& control,
                                                         const ProposalContext& ctx,
                                                         const std::vector<Planned>& planned,
                                                         int* produced) {
  RunRecord* run = control.run;
  std::vector<Planned> repairing = planned;
  for (int turn = 0; turn < options_.repair_turns && !repairing.empty() && !control.out_of_budget();
       ++turn) {
    std::vector<Planned> answered;  // the repaired candidates, recorded
    for (Planned& r : repairing) {
      if (control.out_of_budget() ||
          run->budget_candidates - evaluated_ - static_cast<int64_t>(answered.size()) <= 0)
        break;
      std::vector<EvaluationRecord> e;
      if (Status s = db_->evaluations_of(r.candidate.id, &e); !s.ok()) return {true, s};
      if (e.empty() || !repairable(e.back().verdict)) continue;
      const EvaluationRecord& f = e.back();
      std::string what = fmt::format("Your kernel was evaluated and failed:\n{} at stage {}: {}",
                                     f.verdict, f.stage, f.message);
      if (f.first_bad_index >= 0)
        what += fmt::format("\nfirst wrong index {} ({}): expected {:.6g}, got {:.6g}",
                            f.first_bad_index, f.dataset, f.expected, f.got);
      if (!f.log.empty()) what += "\nlog:\n" + f.log.substr(0, 3000);
      Proposal fixed;
      ProposalFailure repair_failure;
      Proposer& proposer = *r.picked->proposer;
      const auto repair_began = Clock::now();
      const bool repaired_ok = proposer.repair(ctx, r.proposal, what, &fixed, &repair_failure);
      if (Status s = stage_done(run->id, "propose-repair", repair_began, 0); !s.ok())
        return {true, s};
      if (!repaired_ok) {
        if (Status s = record_failed_repair(run, proposer, repair_failure); !s.ok())
          return {true, s};
        continue;
      }
      run->tokens_used += fixed.tokens;
      run->cost += fixed.cost;
      // The failed kernel, then its parent.
      fixed.parents.insert(fixed.parents.begin(), r.candidate.id);
      Planned next{CandidateRecord(), fixed, r.picked};
      bool recorded = false;
      Status considered =
          record_candidate(run, ctx, next.proposal, r.picked, &next.candidate, &recorded);
      if (!considered.ok()) {
        control.finish("failed");
        return {true, considered};
      }
      if (recorded) answered.push_back(std::move(next));  // (a record reports progress itself)
    }
    if (Status s = evaluate_together(run, answered, produced); !s.ok()) {
      control.finish("failed");
      return {true, s};
    }
    repairing = std::move(answered);
  }
  return {};
}

}  // namespace kopt
