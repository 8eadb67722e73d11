// The loop's proposing: the context proposers see (parents, inspirations,
// the parent's profile, recent failures), which proposer goes next (the
// bandit), and recording what they propose as candidates or attempts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "agent/loop.h"
#include "agent/loop_internal.h"
#include "sandbox/contract/candidate.h"

namespace kopt {

namespace {

// Keeps only the overrides the contract declares with an allowed value.
std::map<std::string, int64_t> declared_params(const CandidateValue& proposed) {
  if (!proposed.contract.ok()) return {};
  std::map<std::string, int64_t> out;
  for (const auto& p : proposed.candidate.spec.params) {
    auto it = proposed.asked.find(p.name);
    if (it != proposed.asked.end() &&
        std::find(p.values.begin(), p.values.end(), it->second) != p.values.end())
      out[p.name] = it->second;
  }
  return out;
}

}  // namespace

std::string code_key(const std::string& source, const std::string& params_json) {
  return normalized_source(source) + "\n" + params_json;
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

Status OptimizationLoop::record_failed_repair(RunRecord* run, const Proposer& proposer,
                                              const ProposalFailure& failure) {
  if (failure.kind.empty()) return Status();
  run->tokens_used += failure.tokens;
  run->cost += failure.cost;
  return record_attempt(*run, proposer, "repair:" + failure.kind, failure.message, failure.prompt,
                        failure.answer);
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
  c.set_candidate(with_values(*proposal.candidate, declared_params(*proposal.candidate)));
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

}  // namespace kopt
