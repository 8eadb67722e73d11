#include <algorithm>
#include <charconv>
#include <set>

#include "agent/proposer.h"
#include "sandbox/contract/candidate.h"

namespace kopt {

bool parse_param_assignment(const std::string& item, std::map<std::string, int64_t>* out,
                            std::string* error) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos || eq == 0) {
    *error = "expects NAME=VALUE, got '" + item + "'";
    return false;
  }
  int64_t value = 0;
  const char* end = item.data() + item.size();
  const auto parsed = std::from_chars(item.data() + eq + 1, end, value);
  if (eq + 1 == item.size() || parsed.ec != std::errc() || parsed.ptr != end) {
    *error = "value must be an integer: '" + item + "'";
    return false;
  }
  (*out)[item.substr(0, eq)] = value;
  return true;
}

namespace {

// runs_on for a candidate already parsed with its parameters.
bool launches_on(const Candidate& chosen, const Shape& shape, const DeviceInfo& device) {
  if (device.multiprocessors <= 0 || device.warp_size <= 0) return true;
  LaunchPlan plan;
  return plan_launches(chosen, shape, limits_of(device), &plan).ok() && plan.supported;
}

}  // namespace

bool runs_on(const CandidateValue& candidate, const Shape& shape, const DeviceInfo& device) {
  return candidate.ok() && launches_on(candidate.candidate, shape, device);
}

namespace {

// Moves one parameter: to a neighbouring value two times in three, else anywhere.
int64_t mutate_value(const TunableParam& p, int64_t current, Rng& rng) {
  auto it = std::find(p.values.begin(), p.values.end(), current);
  size_t i = it == p.values.end() ? 0 : static_cast<size_t>(it - p.values.begin());
  if (p.values.size() == 1) return p.values[0];
  if (rng.integer(0, 2) < 2) {
    if (i == 0) return p.values[1];
    if (i + 1 == p.values.size()) return p.values[i - 1];
    return p.values[rng.integer(0, 1) ? i + 1 : i - 1];
  }
  return p.values[static_cast<size_t>(rng.integer(0, static_cast<int64_t>(p.values.size()) - 1))];
}

// Every combination of the parameters, for when random moves find nothing new
// or nothing runnable (bounded: beyond this many the space is sampled).
constexpr size_t kMaxEnumerated = 20000;

bool next_unseen(const Candidate& c, const std::set<std::string>& seen, const ProposalContext& ctx,
                 std::map<std::string, int64_t>* out) {
  size_t total = 1;
  for (const auto& p : c.spec.params) {
    total *= p.values.size();
    if (total > kMaxEnumerated) break;
  }
  if (total > kMaxEnumerated) {
    // Too many to walk: random combinations, for a space where the parent's
    // neighbourhood holds nothing runnable (a long K every shared-memory
    // variant refuses, say).
    for (int attempt = 0; attempt < 4096; ++attempt) {
      std::map<std::string, int64_t> params;
      for (const auto& p : c.spec.params)
        params[p.name] = p.values[static_cast<size_t>(
            ctx.rng->integer(0, static_cast<int64_t>(p.values.size()) - 1))];
      Candidate probe;
      if (!with_params(c, params, &probe).ok()) continue;
      if (!seen.count(candidate_key(probe)) && launches_on(probe, ctx.shape, ctx.device)) {
        *out = params;
        return true;
      }
    }
    return false;
  }
  for (size_t index = 0; index < total; ++index) {
    std::map<std::string, int64_t> params;
    size_t rest = index;
    for (const auto& p : c.spec.params) {
      params[p.name] = p.values[rest % p.values.size()];
      rest /= p.values.size();
    }
    Candidate probe;
    if (!with_params(c, params, &probe).ok()) continue;
    if (!seen.count(candidate_key(probe)) && launches_on(probe, ctx.shape, ctx.device)) {
      *out = params;
      return true;
    }
  }
  return false;
}

// The mutator moves again instead of spending the budget on a combination
// the shape cannot run.
bool runnable(const Candidate& c, const std::map<std::string, int64_t>& params,
              const ProposalContext& ctx) {
  Candidate chosen;
  return with_params(c, params, &chosen).ok() && launches_on(chosen, ctx.shape, ctx.device);
}

// A move the shape cannot run (x in registers needs K cut into short parts,
// say) is kept if changing one other parameter makes it runnable: knobs with
// joint requirements become reachable one move at a time. Picks at random
// among the one-parameter repairs; false when there is none.
bool repair_move(const Candidate& c, const std::set<std::string>& moved, const ProposalContext& ctx,
                 std::map<std::string, int64_t>* params) {
  std::vector<std::map<std::string, int64_t>> repairs;
  for (const auto& p : c.spec.params) {
    if (moved.count(p.name)) continue;
    for (int64_t v : p.values) {
      if (v == (*params)[p.name]) continue;
      auto fixed = *params;
      fixed[p.name] = v;
      if (runnable(c, fixed, ctx)) repairs.push_back(fixed);
    }
  }
  if (repairs.empty()) return false;
  *params =
      repairs[static_cast<size_t>(ctx.rng->integer(0, static_cast<int64_t>(repairs.size()) - 1))];
  return true;
}

}  // namespace

bool ParameterMutator::propose(const ProposalContext& ctx, Proposal* out,
                               ProposalFailure* failure) {
  std::vector<const ScoredCandidate*> pool;
  for (const auto& p : ctx.parents) pool.push_back(&p);
  for (const auto& p : ctx.top) pool.push_back(&p);
  if (pool.empty()) {
    failure->kind = "no_parent";
    failure->message = "no verified parent to mutate";
    return false;
  }
  Rng& rng = *ctx.rng;
  for (int attempt = 0; attempt < 64; ++attempt) {
    // Mostly the best parent; sometimes another, for diversity.
    const ScoredCandidate& parent =
        *pool[rng.integer(0, 3) == 0
                  ? static_cast<size_t>(rng.integer(0, static_cast<int64_t>(pool.size()) - 1))
                  : 0];
    const CandidateRef& parsed = parent.candidate.parsed;
    if (!parsed || !parsed->ok() || parsed->candidate.spec.params.empty()) continue;
    const Candidate& c = parsed->candidate;
    std::map<std::string, int64_t> params = c.params;
    std::vector<int64_t> parents = {parent.candidate.id};
    // Crossover with another parent of the same source, one time in four.
    const ScoredCandidate* mate = nullptr;
    for (const auto* p : pool)
      if (p != &parent && p->candidate.parsed && p->candidate.source == parent.candidate.source)
        mate = p;
    if (mate && rng.integer(0, 3) == 0) {
      const std::map<std::string, int64_t>& other = mate->candidate.parsed->asked;
      for (auto& [k, v] : params)
        if (other.count(k) && rng.integer(0, 1)) v = other.at(k);
      parents.push_back(mate->candidate.id);
    }
    int moves = rng.integer(0, 2) == 0 ? 2 : 1;
    std::set<std::string> moved;
    for (int m = 0; m < moves; ++m) {
      const TunableParam& p = c.spec.params[static_cast<size_t>(
          rng.integer(0, static_cast<int64_t>(c.spec.params.size()) - 1))];
      params[p.name] = mutate_value(p, params[p.name], rng);
      moved.insert(p.name);
    }
    if (!runnable(c, params, ctx) && !repair_move(c, moved, ctx, &params)) continue;
    CandidateRef chosen = with_values(*parsed, params);
    if (!chosen->ok()) continue;
    if (ctx.seen_keys && ctx.seen_keys->count(chosen->key)) continue;
    out->name = c.spec.name;
    out->candidate = std::move(chosen);
    out->parents = parents;
    out->proposer = name();
    return true;
  }
  // Random moves found nothing new: walk the whole space of each parent.
  for (const auto* p : pool) {
    if (!p->candidate.parsed || !p->candidate.parsed->contract.ok()) continue;
    const CandidateRef defaults = with_values(*p->candidate.parsed, {});
    const Candidate& c = defaults->candidate;
    std::map<std::string, int64_t> params;
    if (ctx.seen_keys && next_unseen(c, *ctx.seen_keys, ctx, &params)) {
      out->name = c.spec.name;
      out->candidate = with_values(*defaults, params);
      out->parents = {p->candidate.id};
      out->proposer = name();
      return true;
    }
  }
  failure->kind = "space_exhausted";
  failure->message = "every parameter combination of the parents has been evaluated in this run";
  return false;
}

}  // namespace kopt
