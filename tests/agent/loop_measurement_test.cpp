// The loop's measurements: generations on several workers, the
// re-measurement of contenders before one leads, and the profiles of new
// bests (in line on one worker, beside the others on several).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "agent/loop.h"
#include "agent/timeline.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "tests/agent/fakes.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

using test::mutator_only;

// Timing noise: every other measurement comes out at half the time. A child
// whose first measurement was lucky is measured again before it leads, and
// ranks with its slower measurement, so the run's best is a real one.
// Several workers: a generation's candidates go to the workers together
// (at least one per worker), each result is recorded, and the budget holds.
class TwoWorkers : public test::FakeEvaluator {
 public:
  std::vector<size_t> batches;
  std::vector<EvalResult> evaluate_many(const std::vector<EvalRequest>& requests) override {
    batches.push_back(requests.size());
    return Evaluator::evaluate_many(requests);
  }
  int parallelism() const override { return 6; }
};

TEST(LoopTest, AGenerationIsEvaluatedTogetherOnAllWorkers) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("two-workers"), &db).ok());
  TwoWorkers eval;
  LoopOptions o;
  o.budget = 23;
  o.batch = 2;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  int64_t run_id = 0;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  EXPECT_EQ(candidates.size(), 23u);
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(db->evaluations_of(c.id, &e).ok());
    EXPECT_FALSE(e.empty()) << c.id;
  }
  ASSERT_GE(eval.batches.size(), 3u);
  EXPECT_EQ(eval.batches[0], test::w4a16_problem().seeds().size());  // the seeds together
  // Then the seeds faster than the (empty) incumbent measured again, all in
  // one round (at most one per worker), and generations of one per worker.
  EXPECT_EQ(eval.batches[1], test::w4a16_problem().seeds().size());
  EXPECT_NE(std::find(eval.batches.begin() + 2, eval.batches.end(), 6u), eval.batches.end());
  size_t requested = 0;
  for (size_t n : eval.batches) requested += n;
  size_t remeasured = 0;
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(db->evaluations_of(c.id, &e).ok());
    for (const auto& r : e) remeasured += r.stage == "re-measured";
  }
  // Never past the budget: every request is a candidate's first measurement
  // or a re-measurement that was recorded.
  EXPECT_LE(requested, 23u + remeasured);
}

// With one worker the re-measurements stay as few as one at a time makes
// them: the fastest contender of a batch first, the others only if they
// still beat the best when their turn comes.
TEST(LoopTest, OneWorkerReMeasuresOnlyWhatCanStillLead) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("one-worker-remeasure"), &db).ok());
  test::FakeEvaluator eval;
  LoopOptions o;
  o.budget = 5;  // the seeds
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  int64_t run_id = 0;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  size_t remeasured = 0;
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(db->evaluations_of(c.id, &e).ok());
    for (const auto& r : e) remeasured += r.stage == "re-measured";
  }
  // The fake times every seed alike or slower than the fastest: only the
  // fastest is measured twice.
  EXPECT_EQ(remeasured, 1u);
}

// Noise: the first measurement of every other candidate is twice too fast.
class LuckyFirstMeasurements : public test::FakeEvaluator {
 public:
  EvalResult evaluate(const EvalRequest& req) override {
    EvalResult r = FakeEvaluator::evaluate(req);
    const std::string key = req.candidate->key;
    if (r.timing && measured_.insert(key).second && measured_.size() % 2 == 1)
      r.timing->median_us *= 0.5;
    return r;
  }

 private:
  std::set<std::string> measured_;
};

TEST(LoopTest, ANewBestIsMeasuredAgainBeforeItLeads) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("remeasure"), &db).ok());
  LuckyFirstMeasurements eval;
  LoopOptions o;
  o.budget = 30;
  o.seed = 5;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  int64_t run_id = 0;
  Shape shape = w4a16::shape(5120, 256, 64);
  ASSERT_TRUE(loop.start(shape, "{}", &run_id).ok());
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best(shape.key(), "Fake GPU", 1, &best).ok());
  ASSERT_EQ(best.size(), 1u);
  // The leader's rank is its slowest measurement: its true time.
  test::FakeEvaluator truth;
  EvalRequest req;
  req.candidate = best[0].candidate.parsed;
  req.shape = shape;
  EXPECT_DOUBLE_EQ(*best[0].evaluation.median_us, truth.evaluate(req).timing->median_us);
  std::vector<EvaluationRecord> e;
  ASSERT_TRUE(db->evaluations_of(best[0].candidate.id, &e).ok());
  if (best[0].candidate.proposer != "seed") {
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[1].stage, "re-measured");
    EXPECT_NE(e[1].message.find("re-measurement of a new best"), std::string::npos);
  }
}

// Profiles every new best (after its re-measurement) and hands the parent's
// roofline line to the proposers; a profiler failure is recorded, not fatal.
class FakeProfiler : public Profiler {
 public:
  int calls = 0;
  bool fail_next = false;
  Status profile(const CandidateValue&, const Shape&, int, ProfileResult* out) override {
    ++calls;
    if (fail_next) {
      fail_next = false;
      return Status::error("ERR_NVGPUCTRPERM: no permission to read the counters");
    }
    out->tool = "fake-ncu";
    out->dram_pct = 40 + calls;
    out->issue_pct = 30;
    out->registers = 64;
    out->stalls = {{"long_scoreboard", 70}, {"wait", 30}};
    return Status();
  }
};

class RecordingMutator : public ParameterMutator {
 public:
  std::vector<std::string>* seen;
  explicit RecordingMutator(std::vector<std::string>* s) : seen(s) {}
  bool propose(const ProposalContext& ctx, Proposal* out, ProposalFailure* failure) override {
    seen->push_back(ctx.parent_profile);
    return ParameterMutator::propose(ctx, out, failure);
  }
};

TEST(LoopTest, NewBestsAreProfiledAndParentsCarryTheirProfile) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("profiles"), &db).ok());
  test::FakeEvaluator eval;
  FakeProfiler profiler;
  profiler.fail_next = true;  // the first best's profile fails
  std::vector<std::string> contexts;
  std::vector<WeightedProposer> proposers;
  proposers.push_back({std::make_unique<RecordingMutator>(&contexts), 1.0});
  LoopOptions o;
  o.budget = 30;
  o.seed = 42;
  OptimizationLoop loop(db.get(), &eval, std::move(proposers), o);
  loop.set_profiler(&profiler);
  int64_t run_id = 0;
  Shape shape = w4a16::shape(5120, 256, 64);
  ASSERT_TRUE(loop.start(shape, "{}", &run_id).ok());
  EXPECT_GE(profiler.calls, 2);
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best(shape.key(), "Fake GPU", 1, &best).ok());
  std::vector<ProfileRecord> profiles;
  ASSERT_TRUE(db->profiles_of(best[0].candidate.id, &profiles).ok());
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].status, "ok");
  EXPECT_EQ(profiles[0].tool, "fake-ncu");
  EXPECT_EQ(profiles[0].summary.rfind("latency-bound: DRAM", 0), 0u) << profiles[0].summary;
  // Only new bests: far fewer profiles than candidates, the failure kept.
  int failed = 0, total = 0;
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  for (const auto& c : candidates) {
    std::vector<ProfileRecord> p;
    ASSERT_TRUE(db->profiles_of(c.id, &p).ok());
    total += static_cast<int>(p.size());
    for (const auto& r : p) failed += r.status == "failed";
  }
  EXPECT_EQ(total, profiler.calls);
  EXPECT_LT(total, 30);
  EXPECT_EQ(failed, 1);
  // The proposers saw the parent's line once it had one.
  ASSERT_FALSE(contexts.empty());
  EXPECT_NE(std::find_if(contexts.begin(), contexts.end(),
                         [](const std::string& c) {
                           return c.find("long scoreboard 70%") != std::string::npos;
                         }),
            contexts.end());
}

// Two workers on known GPUs: a new best's profile runs on the last worker's
// GPU beside the evaluations, that worker takes no request until it is
// done, and every profile is recorded by the end of the run (with its stage).
class TwoGpuWorkers : public test::FakeEvaluator {
 public:
  int beside_profile = 0;  // evaluations while a profile had worker 1's GPU
  int parallelism() const override { return 2; }
  int gpu_of(int worker) const override { return 10 + worker; }
  void evaluate_stream(const NextRequest& next, const RequestDone& done,
                       const std::map<int, std::function<bool()>>& lent) override {
    // Worker 0 alone takes the requests, one after another (as it does on
    // the pool while worker 1's GPU is lent).
    EvalRequest request;
    size_t tag = 0;
    while (next(&request, &tag)) {
      const auto gpu = lent.find(1);
      beside_profile += gpu != lent.end() && !gpu->second();
      done(tag, evaluate(request));
    }
  }
};

class SlowProfiler : public Profiler {
 public:
  std::vector<int> gpus;
  Status profile(const CandidateValue&, const Shape&, int gpu, ProfileResult* out) override {
    gpus.push_back(gpu);
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    out->tool = "fake-ncu";
    out->dram_pct = 50;
    return Status();
  }
};

TEST(LoopTest, ANewBestIsProfiledOnOneWorkersGpuBesideTheOthers) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("profile-beside"), &db).ok());
  TwoGpuWorkers eval;
  eval.delay_ms = 5;
  SlowProfiler profiler;
  LoopOptions o;
  o.budget = 40;
  o.seed = 3;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  loop.set_profiler(&profiler);
  int64_t run_id = 0;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  ASSERT_FALSE(profiler.gpus.empty());
  for (int gpu : profiler.gpus) EXPECT_EQ(gpu, 11);  // the last worker's GPU
  EXPECT_GT(eval.beside_profile, 0) << "evaluations went on while a profile ran";
  // Every profile recorded, each with its stage in the run's timeline.
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  size_t profiles = 0;
  for (const auto& c : candidates) {
    std::vector<ProfileRecord> p;
    ASSERT_TRUE(db->profiles_of(c.id, &p).ok());
    profiles += p.size();
  }
  EXPECT_EQ(profiles, profiler.gpus.size());
  Timeline t;
  ASSERT_TRUE(build_timeline(*db, run_id, &t).ok());
  EXPECT_EQ(t.loop_stages["profile"].count, static_cast<int64_t>(profiler.gpus.size()));
}

}  // namespace
}  // namespace kopt
