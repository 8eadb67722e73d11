#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "agent/proposer.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/candidate.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

ProposalContext context_for(const Shape& shape, const std::string& seed, Rng* rng,
                            const std::set<std::string>* seen) {
  ProposalContext ctx;
  ctx.shape = shape;
  ctx.device.multiprocessors = 132;
  ctx.device.warp_size = 32;
  ctx.device.max_threads_per_block = 1024;
  ctx.device.max_shared_bytes = 48 * 1024;
  ScoredCandidate parent;
  parent.candidate.id = 1;
  parent.candidate.set_candidate(seed_candidate(*find_seed(test::w4a16_problem(), seed)));
  ctx.parents.push_back(parent);
  ctx.rng = rng;
  ctx.seen_keys = seen;
  return ctx;
}

bool supported(const Proposal& p, const Shape& shape) {
  if (!p.candidate->ok()) return false;
  DeviceLimits limits;
  limits.sms = 132;
  LaunchPlan plan;
  return plan_launches(p.candidate->candidate, shape, limits, &plan).ok() && plan.supported;
}

// Up to `n` proposals of the mutator from `ctx`, each new to the run (the
// keys go into `seen`); fewer when the mutator has nothing left.
std::vector<Proposal> propose_unseen(ProposalContext ctx, int n, std::set<std::string>* seen) {
  ctx.seen_keys = seen;
  ParameterMutator mutator;
  std::vector<Proposal> out;
  for (int i = 0; i < n; ++i) {
    Proposal p;
    ProposalFailure failure;
    if (!mutator.propose(ctx, &p, &failure)) break;
    seen->insert(p.candidate->key);
    out.push_back(p);
  }
  return out;
}

// The generator seed's knobs have joint requirements (x in registers needs K
// cut into short parts, stream-K needs whole warps per column...): the
// mutator only proposes combinations the shape can run, so the budget buys
// measurements, not "unsupported_shape" answers.
TEST(MutatorTest, ProposesOnlyCombinationsTheShapeCanRun) {
  for (const Shape& shape : {w4a16::shape(7168, 9216, 64), w4a16::shape(16384, 1024, 64)}) {
    Rng rng(3);
    std::set<std::string> seen;
    const auto proposals = propose_unseen(context_for(shape, "gen", &rng, &seen), 60, &seen);
    EXPECT_EQ(proposals.size(), 60u) << shape.name();
    for (const auto& p : proposals)
      EXPECT_TRUE(supported(p, shape)) << shape.name() << " " << params_to_json(p.candidate->asked);
  }
}

// Without a known device (no GPU has answered yet) nothing is filtered: the
// sandbox remains the judge.
TEST(MutatorTest, WithoutADeviceEveryMoveIsAllowed) {
  Rng rng(3);
  std::set<std::string> seen;
  ProposalContext ctx = context_for(w4a16::shape(16384, 1024, 64), "gen", &rng, &seen);
  ctx.device = DeviceInfo();
  const auto proposals = propose_unseen(ctx, 60, &seen);
  ASSERT_EQ(proposals.size(), 60u);
  // K = 16384 with the seed's shared-memory x (SPLIT 1) does not fit: most
  // single moves away from the defaults stay unsupported.
  EXPECT_GT(std::count_if(proposals.begin(), proposals.end(),
                          [&](const Proposal& p) { return !supported(p, ctx.shape); }),
            0);
}

// Knobs with joint requirements are reachable one move at a time: x in
// registers (XREG) needs K split so that each warp's part fits its lanes, so
// a move to XREG = 1 alone is never runnable on 7168x9216; the mutator
// repairs it with one more parameter (KSPLIT) instead of dropping it.
TEST(MutatorTest, RepairsAMoveWithOneMoreParameter) {
  const Shape shape = w4a16::shape(7168, 9216, 64);
  Rng rng(11);
  std::set<std::string> seen;
  auto proposals = propose_unseen(context_for(shape, "gen", &rng, &seen), 300, &seen);
  ASSERT_EQ(proposals.size(), 300u);
  int xreg = 0;
  for (auto& p : proposals) {
    EXPECT_TRUE(supported(p, shape));
    const std::map<std::string, int64_t>& values = p.candidate->candidate.params;
    if (values.at("XREG") == 1) {
      ++xreg;
      EXPECT_GE(values.at("KSPLIT") * values.at("SPLIT"), 7) << params_to_json(p.candidate->asked);
    }
  }
  EXPECT_GT(xreg, 0);
}

// runs_on answers for any source and shape: x in registers with K in one
// part fits a warp's lanes on K = 512 (16 chunks), not on K = 7168 (224);
// an unknown device leaves the requirements to the sandbox, but parameters
// the contract does not take are refused whatever the device.
TEST(MutatorTest, RunsOnChecksTheContractForTheShapeAndDevice) {
  const Seed& gen = *find_seed(test::w4a16_problem(), "gen");
  const std::map<std::string, int64_t> xreg = {{"XREG", 1}, {"KSPLIT", 1}, {"LPR", 32}};
  DeviceInfo device;
  device.multiprocessors = 132;
  device.warp_size = 32;
  device.max_threads_per_block = 1024;
  device.max_shared_bytes = 48 * 1024;
  EXPECT_TRUE(runs_on(*seed_candidate(gen, xreg), w4a16::shape(512, 7168, 64), device));
  EXPECT_FALSE(runs_on(*seed_candidate(gen, xreg), w4a16::shape(7168, 9216, 64), device));
  EXPECT_TRUE(runs_on(*seed_candidate(gen, xreg), w4a16::shape(7168, 9216, 64), DeviceInfo()));
  EXPECT_FALSE(runs_on(*seed_candidate(gen, {{"ROWS", 5}}), w4a16::shape(512, 7168, 64),
                       device));  // not a value
  EXPECT_FALSE(
      runs_on(*seed_candidate(gen, {{"ROWS", 5}}), w4a16::shape(512, 7168, 64), DeviceInfo()));
  EXPECT_FALSE(runs_on(*seed_candidate(gen, {{"NOT_A_KNOB", 1}}), w4a16::shape(512, 7168, 64),
                       DeviceInfo()));
}

}  // namespace
}  // namespace kopt
