// A run's timeline: the evaluation records carry where their time went, the
// loop records its own stages, and the N-worker estimates follow the means.
#include "agent/timeline.h"

#include <gtest/gtest.h>

#include "agent/loop.h"
#include "agent/proposer.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/evaluation.h"
#include "tests/agent/fakes.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

TEST(TimelineTest, AnEvaluationKeepsItsWorkerAndStagesThroughJson) {
  EvalResult r;
  r.verdict = Verdict::kOk;
  r.worker = 1;
  r.started_s = 12.5;
  r.seconds = 1.75;
  r.stage_seconds = {{"start", 0.01}, {"compile", 0.6}, {"time batch 2", 0.9}};
  const EvalResult back = eval_result_from_json(to_json(r));
  EXPECT_EQ(back.worker, 1);
  EXPECT_DOUBLE_EQ(back.started_s, 12.5);
  EXPECT_DOUBLE_EQ(back.seconds, 1.75);
  ASSERT_EQ(back.stage_seconds.size(), 3u);
  EXPECT_EQ(back.stage_seconds[2].stage, "time batch 2");
  EXPECT_DOUBLE_EQ(back.stage_seconds[1].seconds, 0.6);
  // A record from before timelines has none.
  EXPECT_EQ(eval_result_from_json(nlohmann::json{{"verdict", "ok"}}).worker, -1);
}

Timeline synthetic(double serial_per_candidate, int remeasure_rounds) {
  Timeline t;
  t.candidates = 48;
  t.evaluations = 48 + remeasure_rounds;
  t.evaluation_s = 1.75 * static_cast<double>(t.evaluations);
  t.loop_stages["propose"] = {12, serial_per_candidate * 48, 48};
  t.remeasure_rounds.assign(static_cast<size_t>(remeasure_rounds), 1);
  return t;
}

TEST(TimelineTest, WorkersScaleUntilTheSerialPartCapsThem) {
  // No serial work, no re-measurement: both loops scale with the workers
  // (the barrier one within a generation's rounding).
  const Timeline parallel = synthetic(0.0, 0);
  const Simulated one = simulate_workers(parallel, 1, 4), two = simulate_workers(parallel, 2, 4);
  EXPECT_NEAR(two.streaming_per_minute / one.streaming_per_minute, 2.0, 0.01);
  EXPECT_NEAR(two.barrier_per_minute / one.barrier_per_minute, 2.0, 0.01);
  // Profiles of new bests run on one worker's GPU beside the others: GPU
  // time the workers share, not serial time.
  Timeline profiled = synthetic(0.0, 0);
  profiled.loop_stages["profile"] = {5, 12.0, 0};
  EXPECT_NEAR(simulate_workers(profiled, 2, 4).streaming_per_minute /
                  simulate_workers(profiled, 1, 4).streaming_per_minute,
              2.0, 0.01);
  // Single-request re-measurement rounds leave a worker idle behind the
  // barrier: two workers give less than twice.
  const Timeline remeasured = synthetic(0.0, 12);
  EXPECT_LT(simulate_workers(remeasured, 2, 4).barrier_per_minute /
                simulate_workers(remeasured, 1, 4).barrier_per_minute,
            1.9);
  // A serial orchestrator as slow as an evaluation caps any number of
  // workers near one evaluation at a time.
  const Timeline serial = synthetic(1.75, 0);
  EXPECT_LT(simulate_workers(serial, 8, 4).streaming_per_minute, 60.0 / 1.75 * 1.01);
}

// The loop records its stages; the orchestrator's serial work per candidate
// (proposing, repair turns) must not grow with the number of
// workers. Five milliseconds per evaluation, 24 candidates, 1 and 8 workers.
class Workers : public test::FakeEvaluator {
 public:
  explicit Workers(int n) : n_(n) { delay_ms = 5; }
  int parallelism() const override { return n_; }

 private:
  int n_;
};

TEST(TimelineTest, TheOrchestratorsSerialStagesDoNotGrowWithTheWorkers) {
  double serial[2] = {0, 0};
  int64_t rounds[2] = {0, 0};
  const int counts[2] = {1, 8};
  for (int i = 0; i < 2; ++i) {
    std::unique_ptr<Database> db;
    ASSERT_TRUE(Database::open(test::temp_path("timeline-" + std::to_string(counts[i])), &db).ok());
    Workers eval(counts[i]);
    LoopOptions o;
    o.budget = 24;
    std::vector<WeightedProposer> proposers;
    proposers.push_back({std::make_unique<ParameterMutator>(), 1.0});
    OptimizationLoop loop(db.get(), &eval, std::move(proposers), o);
    int64_t run_id = 0;
    ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
    Timeline t;
    ASSERT_TRUE(build_timeline(*db, run_id, &t).ok());
    ASSERT_TRUE(t.loop_stages.count("propose"));
    ASSERT_TRUE(t.loop_stages.count("evaluate"));
    // Every candidate went to the workers in some evaluation round.
    EXPECT_EQ(t.loop_stages["evaluate"].requests, 24);
    for (const char* stage : {"propose", "propose-repair"})
      if (t.loop_stages.count(stage)) serial[i] += t.loop_stages[stage].seconds;
    serial[i] /= 24;
    rounds[i] = t.loop_stages["evaluate"].count;
  }
  EXPECT_LE(serial[1], 2 * serial[0] + 0.002) << "seconds of serial work per candidate";
  EXPECT_LT(rounds[1], rounds[0]) << "eight workers take generations eight at a time";
}

}  // namespace
}  // namespace kopt
