// The orchestrator side of the worker protocol against misbehaving workers:
// small shell programs that hang, abort, garble or flood, and the real worker
// on a machine without a GPU.
#include "sandbox/client/worker_client.h"

#include <gtest/gtest.h>

#include <chrono>

#include "problems/w4a16_gemv/w4a16_gemv.h"

namespace kopt {
namespace {

EvalRequest small_request() {
  EvalRequest r;
  r.candidate = enter_candidate("/* kopt: {} */", {});
  r.shape = w4a16::shape(64, 8, 64);
  return r;
}

std::vector<std::string> shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

WorkerLimits quick_limits() {
  WorkerLimits l;
  l.startup_s = 2;
  l.compile_s = 2;
  l.run_s = 1;
  return l;
}

TEST(WorkerClientTest, HangingWorkerTimesOutAndIsRestarted) {
  WorkerClient client(shell("read line; echo '{\"id\":1,\"event\":\"stage\",\"stage\":\"verify "
                            "random #1\"}' >&3; sleep 100"),
                      quick_limits());
  auto start = std::chrono::steady_clock::now();
  EvalResult r = client.evaluate(small_request());
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.verdict, Verdict::kTimeout);
  EXPECT_EQ(r.stage, "verify random #1");
  EXPECT_NE(r.message.find("verify random #1"), std::string::npos);
  EXPECT_LT(took, 5.0);
  // The next request starts a fresh worker.
  r = client.evaluate(small_request());
  EXPECT_EQ(r.verdict, Verdict::kTimeout);
  EXPECT_EQ(client.restarts(), 1);
}

TEST(WorkerClientTest, AbortingWorkerIsACrash) {
  WorkerClient client(
      shell("read line; echo '{\"id\":1,\"event\":\"stage\",\"stage\":\"verify random #1\"}' >&3; "
            "echo 'candidate said hi'; kill -ABRT $$"),
      quick_limits());
  EvalResult r = client.evaluate(small_request());
  EXPECT_EQ(r.verdict, Verdict::kCrash);
  EXPECT_NE(r.message.find("signal 6"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("candidate"), std::string::npos);
  EXPECT_NE(r.log.find("candidate said hi"), std::string::npos);
}

TEST(WorkerClientTest, MalformedMessagesAreRejected) {
  for (const char* reply : {"this is not json", "[1,2,3]", "{\"id\": 1}", "{\"event\": 7}"}) {
    WorkerClient client(shell(std::string("read line; echo '") + reply + "' >&3; sleep 100"),
                        quick_limits());
    EvalResult r = client.evaluate(small_request());
    EXPECT_EQ(r.verdict, Verdict::kInternalError) << reply;
    EXPECT_NE(r.message.find("malformed"), std::string::npos) << reply << ": " << r.message;
  }
}

TEST(WorkerClientTest, GarbledResultBecomesInternalError) {
  WorkerClient client(
      shell("read line; echo '{\"id\":1,\"event\":\"result\",\"result\":{\"verdict\":\"fast\"}}' "
            ">&3; sleep 100"),
      quick_limits());
  EvalResult r = client.evaluate(small_request());
  EXPECT_EQ(r.verdict, Verdict::kInternalError);
}

TEST(WorkerClientTest, OutputFloodIsCapped) {
  WorkerLimits l = quick_limits();
  l.output_cap = 1000;
  l.run_s = 3;
  WorkerClient client(
      shell(
          "read line; yes flood | head -c 200000; "
          "echo '{\"id\":1,\"event\":\"result\",\"result\":{\"verdict\":\"ok\"}}' >&3; sleep 100"),
      l);
  EvalResult r = client.evaluate(small_request());
  EXPECT_EQ(r.verdict, Verdict::kOk);
  EXPECT_LE(r.log.size(), 1100u);
  EXPECT_NE(r.log.find("[output truncated]"), std::string::npos);
}

TEST(WorkerClientTest, MemoryLimitKillsTheWorker) {
  WorkerLimits l = quick_limits();
  l.memory_bytes = 64 << 20;
  l.run_s = 10;
  WorkerClient client(
      shell("read line; echo '{\"id\":1,\"event\":\"stage\",\"stage\":\"verify\"}' >&3; "
            "exec perl -e '$x = \"a\" x (512 * 1024 * 1024); sleep 100'"),
      l);
  EvalResult r = client.evaluate(small_request());
  EXPECT_EQ(r.verdict, Verdict::kMemoryLimit) << r.message;
}

TEST(WorkerClientTest, MissingWorkerProgramIsAClearError) {
  WorkerClient client({"/nonexistent/kopt-worker"}, quick_limits());
  EvalResult r = client.evaluate(small_request());
  EXPECT_EQ(r.verdict, Verdict::kInternalError);
  EXPECT_NE(r.message.find("/nonexistent/kopt-worker"), std::string::npos);
}

TEST(WorkerClientTest, RealWorkerAnswersPing) {
  WorkerClient client(default_worker_command());
  Status s = client.ping();
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(WorkerClientTest, RealWorkerRejectsAMalformedRequest) {
  WorkerClient client(default_worker_command());
  EvalRequest r = small_request();
  r.shape = w4a16::shape(63, 8, 64);  // the client sends it; the worker must refuse it
  EvalResult res = client.evaluate(r);
  EXPECT_EQ(res.verdict, Verdict::kInternalError);
  EXPECT_NE(res.message.find("refused"), std::string::npos) << res.message;
  EXPECT_TRUE(client.ping().ok());  // and stays up
}

}  // namespace
}  // namespace kopt
