// A long run (1000 candidates) keeps the orchestrator's memory and open
// handles flat, through the loop and through the worker protocol.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "agent/loop.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/client/worker_client.h"
#include "tests/agent/fakes.h"

namespace kopt {
namespace {

size_t open_fds() {
  size_t n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (d && readdir(d)) ++n;
  if (d) closedir(d);
  return n;
}

TEST(LongRunTest, ThousandCandidatesKeepMemoryAndHandlesFlat) {
  std::string path = "/tmp/kopt_long_" + std::to_string(getpid()) + ".db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(path, &db).ok());
  test::FakeEvaluator eval;
  std::vector<WeightedProposer> proposers;
  proposers.push_back({std::make_unique<ParameterMutator>(), 1.0});
  LoopOptions o;
  o.budget = 100;
  o.seed = 11;
  OptimizationLoop warmup(db.get(), &eval, std::move(proposers), o);
  int64_t id;
  ASSERT_TRUE(warmup.start(w4a16::shape(5120, 256, 64), "{}", &id).ok());
  const size_t rss_before = resident_bytes(getpid()), fds_before = open_fds();
  std::vector<WeightedProposer> again;
  again.push_back({std::make_unique<ParameterMutator>(), 1.0});
  o.budget = 1000;
  OptimizationLoop loop(db.get(), &eval, std::move(again), o);
  ASSERT_TRUE(loop.resume(id).ok());
  // 1000 candidates in all, plus the second measurements of new bests.
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(id, &candidates).ok());
  EXPECT_EQ(candidates.size(), 1000u);
  int evaluations = 0;
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(db->evaluations_of(c.id, &e).ok());
    evaluations += static_cast<int>(e.size());
  }
  EXPECT_EQ(eval.calls, evaluations);
  const size_t rss_after = resident_bytes(getpid());
  EXPECT_EQ(open_fds(), fds_before);
  EXPECT_LT(rss_after, rss_before + (64u << 20))
      << "resident memory grew by " << ((rss_after - rss_before) >> 20) << " MiB";
}

TEST(LongRunTest, ThousandWorkerRequestsLeakNoHandles) {
  // A worker that answers every request, and one that dies every 50th.
  WorkerClient client({"/bin/sh", "-c",
                       "n=0; while read -r line; do n=$((n+1)); id=$(printf '%s' \"$line\" | sed "
                       "-n 's/.*\"id\":\\([0-9]*\\).*/\\1/p'); "
                       "[ $((n % 50)) = 0 ] && exit 1; "
                       "echo "
                       "\"{\\\"id\\\":$id,\\\"event\\\":\\\"result\\\",\\\"result\\\":{"
                       "\\\"verdict\\\":\\\"ok\\\"}}\" >&3; done"});
  EvalRequest r;
  r.candidate = enter_candidate("/* kopt: {} */", {});
  r.shape = w4a16::shape(64, 8, 64);
  for (int i = 0; i < 20; ++i) client.evaluate(r);
  const size_t fds_before = open_fds(), rss_before = resident_bytes(getpid());
  int ok = 0, crashed = 0;
  for (int i = 0; i < 1000; ++i) {
    EvalResult res = client.evaluate(r);
    ok += res.verdict == Verdict::kOk;
    crashed += res.verdict == Verdict::kCrash;
  }
  EXPECT_EQ(ok + crashed, 1000);
  EXPECT_GT(crashed, 10);
  EXPECT_GT(client.restarts(), 10);
  EXPECT_EQ(open_fds(), fds_before);
  EXPECT_LT(resident_bytes(getpid()), rss_before + (16u << 20));
}

}  // namespace
}  // namespace kopt
