#include "agent/loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "sandbox/candidate.h"

namespace kopt {

namespace {

using Clock = std::chrono::steady_clock;

// Keeps only the overrides the contract declares with an allowed value.
std::map<std::string, int64_t> declared_params(const std::string& source,
                                               const std::map<std::string, int64_t>& wanted) {
  Candidate c;
  if (!parse_candidate(source, {}, &c).ok()) return {};
  std::map<std::string, int64_t> out;
  for (const auto& p : c.spec.params) {
    auto it = wanted.find(p.name);
    if (it != wanted.end() &&
        std::find(p.values.begin(), p.values.end(), it->second) != p.values.end())
      out[p.name] = it->second;
  }
  return out;
}

// Code and parameters, comments and white space aside.
std::string code_key(const std::string& source, const std::string& params_json) {
  return normalized_source(source) + "\n" + params_json;
}

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
  auto add = [&](const std::string& name, const std::string& source,
                 const std::map<std::string, int64_t>& params, const char* proposer,
                 std::vector<int64_t> parents) -> Status {
    CandidateRecord c;
    c.run_id = run.id;
    c.name = name;
    c.source = source;
    c.params_json = params_to_json(params);
    c.key = proposal_key(source, params);
    c.proposer = proposer;
    c.parents = std::move(parents);
    if (!keys.insert(c.key).second) return Status();
    return db_->add_candidate(&c);
  };
  for (const auto& seed : problem->seeds())
    KOPT_RETURN_IF_ERROR(add(seed.name, seed.source, {}, "seed", {}));
  for (const auto& start : options_.starts) {
    const Seed* seed = find_seed(*problem, start.name);
    if (!seed) return Status::error("start point: no seed named '" + start.name + "'");
    KOPT_RETURN_IF_ERROR(add(seed->name, seed->source, start.params, "start", {}));
  }
  std::vector<BestRow> transfers;
  KOPT_RETURN_IF_ERROR(transfer_points(shape, &transfers));
  for (const BestRow& t : transfers)
    KOPT_RETURN_IF_ERROR(add(t.candidate.name, t.candidate.source,
                             params_from_json(t.candidate.params_json), "transfer",
                             {t.candidate.id}));
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
}  // namespace

Status OptimizationLoop::transfer_points(const Shape& shape, std::vector<BestRow>* out) {
  out->clear();
  if (options_.transfers <= 0) return Status();
  // Without a device there is nothing measured to transfer from (the run
  // itself reports why it has none).
  DeviceInfo device;
  if (!evaluator_->device(&device).ok() || device.name.empty()) return Status();
  std::vector<BestRow> bests;  // the fastest candidate of every shape on this GPU
  KOPT_RETURN_IF_ERROR(db_->best("", device.name, 1, &bests));
  std::vector<std::pair<double, size_t>> nearest;
  for (size_t i = 0; i < bests.size(); ++i) {
    Shape other;
    if (!parse_shape_key(bests[i].evaluation.shape, &other).ok() ||
        other.problem != shape.problem || other == shape)
      continue;
    nearest.push_back({shape_distance(shape, other), i});
  }
  std::stable_sort(nearest.begin(), nearest.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::set<std::string> taken;
  for (const auto& [distance, i] : nearest) {
    if (static_cast<int>(out->size()) >= options_.transfers) break;
    const CandidateRecord& c = bests[i].candidate;
    // One that this shape cannot run would only cost a candidate.
    if (!runs_on(c.source, params_from_json(c.params_json), shape, device)) continue;
    if (taken.insert(c.key).second) out->push_back(bests[i]);
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

Status OptimizationLoop::gather_context(const RunRecord& run, ProposalContext* ctx) {
  ctx->shape = shape_;
  ctx->read_bandwidth_gbps = device_.read_bandwidth_gbps;
  ctx->device = device_;
  // The six fastest (the first is the parent), then for diversity the best
  // candidate of every other source name, all from one query.
  std::vector<BestRow> all;
  KOPT_RETURN_IF_ERROR(db_->best(shape_.key(), device_.name, 1000, &all));
  ctx->parents.clear();
  ctx->top.clear();
  std::vector<size_t> family_best;  // index in `all` of each family's best, global best first
  std::set<std::string> families;
  for (size_t i = 0; i < all.size(); ++i)
    if (families.insert(all[i].candidate.name).second) family_best.push_back(i);
  std::set<std::string> names;
  for (size_t i = 0; i < all.size() && i < 6; ++i) {
    (i == 0 ? ctx->parents : ctx->top).push_back({all[i].candidate, all[i].evaluation});
    names.insert(all[i].candidate.name);
  }
  for (size_t i : family_best)
    if (names.insert(all[i].candidate.name).second)
      ctx->top.push_back({all[i].candidate, all[i].evaluation});
  // Niches: now and then the main parent is the best of another family (in
  // turn), the global best moving to the others, so a family that is behind
  // is still improved rather than abandoned to the leader.
  ++generations_;
  if (options_.niche_every > 0 && family_best.size() > 1 &&
      generations_ % options_.niche_every == 0) {
    const size_t turn = static_cast<size_t>(generations_ / options_.niche_every - 1);
    const BestRow& niche = all[family_best[1 + turn % (family_best.size() - 1)]];
    ctx->top.insert(ctx->top.begin(), ctx->parents[0]);
    ctx->top.erase(std::remove_if(ctx->top.begin() + 1, ctx->top.end(),
                                  [&](const ScoredCandidate& t) {
                                    return t.candidate.id == niche.candidate.id;
                                  }),
                   ctx->top.end());
    ctx->parents[0] = {niche.candidate, niche.evaluation};
  }
  ctx->parent_profile.clear();
  if (!ctx->parents.empty()) {
    std::vector<ProfileRecord> profiles;
    KOPT_RETURN_IF_ERROR(db_->profiles_of(ctx->parents[0].candidate.id, &profiles));
    for (const auto& p : profiles)
      if (p.status == "ok" && p.shape == shape_.key() && p.device == device_.name)
        ctx->parent_profile = p.summary;
  }
  KOPT_RETURN_IF_ERROR(db_->failed_evaluations(run.id, 3, &ctx->recent_failures));
  std::vector<AttemptRecord> attempts;
  KOPT_RETURN_IF_ERROR(db_->attempts(run.id, 20, &attempts));
  ctx->recent_attempts.clear();
  for (auto& a : attempts)
    if (a.kind == "malformed_answer" && ctx->recent_attempts.size() < 3)
      ctx->recent_attempts.push_back(std::move(a));
  ctx->seen_keys = &seen_;
  ctx->rng = &rng_;
  return Status();
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

std::vector<double> bandit_shares(const std::vector<WeightedProposer>& proposers) {
  // Beta-like prior: one improvement in ten proposals' worth of spending.
  double mean_spent = 0;
  int priced = 0;
  for (const auto& p : proposers)
    if (p.proposals > 0) {
      mean_spent += p.spent / p.proposals;
      ++priced;
    }
  mean_spent = priced ? mean_spent / priced : 0;
  // Where nothing is priced or counted, each proposal costs 1.
  const bool priced_runs = mean_spent > 0;
  const double unit = priced_runs ? mean_spent : 1.0;
  std::vector<double> value(proposers.size());
  double total_weight = 0, total_value = 0;
  for (size_t i = 0; i < proposers.size(); ++i) {
    const auto& p = proposers[i];
    const double cost = (priced_runs ? p.spent : p.proposals) + 10 * unit;
    value[i] = p.weight * (p.improvements + 1.0) / cost;
    total_weight += p.weight;
    total_value += value[i];
  }
  std::vector<double> shares(proposers.size(), 0);
  if (total_weight <= 0 || total_value <= 0) return shares;
  for (size_t i = 0; i < proposers.size(); ++i) {
    const double plain = proposers[i].weight / total_weight;
    shares[i] = std::max(value[i] / total_value, plain / 10);
  }
  return shares;
}

Proposer* OptimizationLoop::pick_proposer() {
  std::vector<double> shares;
  if (options_.bandit) {
    shares = bandit_shares(proposers_);
  } else {
    for (const auto& p : proposers_) shares.push_back(p.weight);
  }
  double total = 0;
  for (double s : shares) total += s;
  if (total <= 0) return nullptr;
  double r = rng_.uniform(0, total);
  for (size_t i = 0; i < proposers_.size(); ++i) {
    if (r < shares[i]) return proposers_[i].proposer.get();
    r -= shares[i];
  }
  return proposers_.back().proposer.get();
}

// What a proposer tried that produced no candidate goes to the attempt log.
Status OptimizationLoop::record_attempt(const RunRecord& run, const Proposer& proposer,
                                        const std::string& kind, const std::string& message,
                                        const std::string& prompt, const std::string& answer) {
  AttemptRecord a;
  a.run_id = run.id;
  a.proposer = proposer.name();
  a.model = proposer.model();
  a.kind = kind;
  a.message = message;
  a.prompt = prompt;
  a.answer = answer;
  return db_->add_attempt(&a);
}

Status OptimizationLoop::record_candidate(RunRecord* run, const ProposalContext& ctx,
                                          Proposal& proposal, WeightedProposer* picked,
                                          CandidateRecord* out, bool* recorded) {
  *recorded = false;
  auto record_attempt = [&](const std::string& kind, const std::string& message) {
    return this->record_attempt(*run, *picked->proposer, kind, message, proposal.prompt,
                                proposal.answer);
  };

  CandidateRecord c;
  c.run_id = run->id;
  c.name = proposal.name;
  c.source = proposal.source;
  const auto params = declared_params(proposal.source, proposal.params);
  c.params_json = params_to_json(params);
  c.key = proposal_key(proposal.source, params);
  c.parents = proposal.parents;
  c.proposer = proposal.proposer;
  c.model = proposal.model;
  c.prompt = proposal.prompt;
  c.answer = proposal.answer;
  c.generation = 1;
  for (const auto& p : ctx.parents)
    if (!proposal.parents.empty() && p.candidate.id == proposal.parents[0])
      c.generation = p.candidate.generation + 1;
  if (seen_.count(c.key)) {
    return record_attempt("duplicate", "identical to a candidate already in this run");
  }
  const std::string code = code_key(c.source, c.params_json);
  if (auto same = seen_code_.find(code); same != seen_code_.end()) {
    return record_attempt("duplicate", "the same code as candidate " +
                                           std::to_string(same->second) +
                                           " once comments and white space are set aside: "
                                           "change what the kernel does");
  }
  seen_.insert(c.key);
  KOPT_RETURN_IF_ERROR(db_->add_candidate(&c));
  seen_code_.emplace(code, c.id);
  *out = c;
  *recorded = true;
  return Status();
}

void OptimizationLoop::credit(WeightedProposer* picked, const Proposal& proposal, bool led) {
  ++picked->proposals;
  picked->improvements += led ? 1 : 0;
  picked->spent += proposal.cost > 0 ? proposal.cost : proposal.tokens / 1e6;
}

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
  // Recorded candidates with the proposal and proposer behind them.
  struct Planned {
    CandidateRecord candidate;
    Proposal proposal;
    WeightedProposer* picked;
  };
  // Evaluated together (one per worker), then each proposer credited.
  auto evaluate_together = [&](std::vector<Planned>& items) {
    std::vector<CandidateRecord*> batch;
    for (auto& p : items) batch.push_back(&p.candidate);
    std::vector<bool> led;
    KOPT_RETURN_IF_ERROR(evaluate_batch(run, batch, &led));
    for (size_t i = 0; i < items.size(); ++i) credit(items[i].picked, items[i].proposal, led[i]);
    produced += static_cast<int>(items.size());
    return Status();
  };
  while (!out_of_budget()) {
    ProposalContext ctx;
    KOPT_RETURN_IF_ERROR(gather_context(*run, &ctx));
    if (ctx.parents.empty()) {
      stop_reason_ = "no verified candidate to build on";
      {
        finish("failed");
        return Status::error("run " + std::to_string(run->id) + ": " + stop_reason_);
      }
    }
    produced = 0;
    exhausted = false;
    // A generation's proposals are recorded first, then evaluated together
    // (one per worker at a time), then failed model kernels get their repair
    // turns. Recorded candidates count against the budget before they are
    // evaluated, and a killed run evaluates them on resume.
    std::vector<Planned> planned;
    const auto propose_began = Clock::now();
    const int batch_size = std::max(options_.batch, evaluator_->parallelism());
    auto budget_left = [&] {
      return run->budget_candidates - evaluated_ - static_cast<int64_t>(planned.size());
    };
    for (int b = 0; b < batch_size && !out_of_budget() && budget_left() > 0; ++b) {
      Proposer* proposer = pick_proposer();
      if (!proposer) {
        stop_reason_ = "no proposer";
        {
          finish("failed");
          return Status::error("no proposer has a positive weight");
        }
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
        KOPT_RETURN_IF_ERROR(
            record_attempt(failure.kind, failure.message, failure.prompt, failure.answer));
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
          KOPT_RETURN_IF_ERROR(report());
          const bool any_left = std::any_of(proposers_.begin(), proposers_.end(),
                                            [](const WeightedProposer& p) { return p.weight > 0; });
          if (!any_left) {
            // (the reason itself closes the run's output: kopt run's last line)
            stop_reason_ = "proposers produced nothing: every model endpoint is unreachable";
            return finish("done");
          }
          continue;
        }
        exhausted = exhausted || failure.kind == "space_exhausted";
        KOPT_RETURN_IF_ERROR(report());
        // An answer that could not be read goes back to the same model once,
        // with what to change; its reply is a proposal like any other.
        if (failure.kind != "malformed_answer" || options_.repair_turns < 1 ||
            failure.answer.empty() || budget_left() <= 0)
          continue;
        Proposal unread;
        unread.prompt = failure.prompt;
        unread.answer = failure.answer;
        unread.source = ctx.parents[0].candidate.source;  // its edits were against the parent
        unread.parents = {ctx.parents[0].candidate.id};
        unread.name = "llm";
        ProposalFailure again;
        const std::string what =
            "Your answer could not be read: " + failure.message + "\n" + kAnswerFormats;
        if (!proposer->repair(ctx, unread, what, &proposal, &again)) {
          if (!again.kind.empty()) {
            run->tokens_used += again.tokens;
            run->cost += again.cost;
            KOPT_RETURN_IF_ERROR(
                record_attempt("repair:" + again.kind, again.message, again.prompt, again.answer));
          }
          continue;
        }
        run->tokens_used += proposal.tokens;
        run->cost += proposal.cost;
      }
      Planned p{CandidateRecord(), proposal, &picked};
      bool recorded = false;
      Status considered = record_candidate(run, ctx, p.proposal, &picked, &p.candidate, &recorded);
      if (!considered.ok()) {
        finish("failed");
        return considered;
      }
      if (recorded) planned.push_back(std::move(p));
    }
    KOPT_RETURN_IF_ERROR(
        stage_done(run->id, "propose", propose_began, static_cast<int64_t>(planned.size())));
    if (Status s = evaluate_together(planned); !s.ok()) {
      finish("failed");
      return s;
    }
    // One repair turn for a model candidate that failed (compile error,
    // rejected, wrong result): the failure goes back to the same model, and
    // its answer is a new candidate, counted in the budget. A turn's repairs
    // are evaluated together, one per worker, like a generation.
    std::vector<Planned> repairing = planned;
    for (int turn = 0; turn < options_.repair_turns && !repairing.empty() && !out_of_budget();
         ++turn) {
      std::vector<Planned> answered;  // the repaired candidates, recorded
      for (Planned& r : repairing) {
        if (out_of_budget() ||
            run->budget_candidates - evaluated_ - static_cast<int64_t>(answered.size()) <= 0)
          break;
        std::vector<EvaluationRecord> e;
        KOPT_RETURN_IF_ERROR(db_->evaluations_of(r.candidate.id, &e));
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
        KOPT_RETURN_IF_ERROR(stage_done(run->id, "propose-repair", repair_began, 0));
        if (!repaired_ok) {
          if (!repair_failure.kind.empty()) {
            run->tokens_used += repair_failure.tokens;
            run->cost += repair_failure.cost;
            KOPT_RETURN_IF_ERROR(this->record_attempt(
                *run, proposer, "repair:" + repair_failure.kind, repair_failure.message,
                repair_failure.prompt, repair_failure.answer));
          }
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
          finish("failed");
          return considered;
        }
        if (recorded) answered.push_back(std::move(next));  // (a record reports progress itself)
      }
      if (Status s = evaluate_together(answered); !s.ok()) {
        finish("failed");
        return s;
      }
      repairing = std::move(answered);
    }
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

}  // namespace kopt
