#include "sandbox/client/worker_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

TEST(WorkerPoolTest, GpuListsAreParsedAndCheckedAgainstTheMachine) {
  std::vector<int> gpus;
  ASSERT_TRUE(parse_gpu_list("all", 3, &gpus).ok());
  EXPECT_EQ(gpus, (std::vector<int>{0, 1, 2}));
  ASSERT_TRUE(parse_gpu_list("2,0", 4, &gpus).ok());
  EXPECT_EQ(gpus, (std::vector<int>{2, 0}));
  EXPECT_FALSE(parse_gpu_list("all", 0, &gpus).ok());
  EXPECT_FALSE(parse_gpu_list("0,4", 4, &gpus).ok());  // no GPU 4
  EXPECT_FALSE(parse_gpu_list("1,1", 4, &gpus).ok());
  for (const char* bad : {"", ",", "0,", "-1", "a", "0;1", "99999"})
    EXPECT_FALSE(parse_gpu_list(bad, 4, &gpus).ok()) << bad;
}

TEST(WorkerPoolTest, EachGpuWorkerSeesOnlyItsGpu) {
  const auto commands = per_gpu_worker_commands({"/opt/kopt-worker", "--x"}, {3, 1});
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0],
            (std::vector<std::string>{"/usr/bin/env", "CUDA_VISIBLE_DEVICES=3",
                                      "HIP_VISIBLE_DEVICES=3", "/opt/kopt-worker", "--x"}));
  EXPECT_EQ(commands[1][1], "CUDA_VISIBLE_DEVICES=1");
}

// `n` workers on the host fake (no GPU), no gfx906 check.
std::vector<SandboxOptions> host_fake_workers(size_t n) {
  std::vector<SandboxOptions> workers(n);
  for (auto& w : workers) {
    w.worker_command = {default_worker_command()[0], "--host-demo"};
    w.amd_check = false;
  }
  return workers;
}

// Three host-fake workers evaluate five requests at once; each result is
// the one of its own request (shape and seed kernel), in request order.
TEST(WorkerPoolTest, ResultsComeBackInRequestOrder) {
  WorkerPool pool(host_fake_workers(3));
  std::vector<DeviceInfo> devices;
  ASSERT_TRUE(pool.devices(false, &devices).ok());
  ASSERT_EQ(devices.size(), 3u);
  std::vector<EvalRequest> requests;
  const int64_t columns[] = {64, 128, 96, 32, 160};
  for (int64_t n : columns) {
    EvalRequest r;
    r.candidate = seed_candidate(*find_seed(test::w4a16_problem(), "naive"));
    r.shape = w4a16::shape(256, n, 64);
    r.trials = 1;
    requests.push_back(r);
  }
  const auto results = pool.evaluate_all(requests);
  ASSERT_EQ(results.size(), requests.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_TRUE(results[i].ok()) << results[i].message;
    EXPECT_EQ(results[i].shape, requests[i].shape.key());
  }
}

// A stream: a result may bring more requests (here each first request one
// follow-up), and a worker whose GPU is lent takes none until it is back.
// Lent for the whole stream, worker 1 takes nothing and the stream ends
// without waiting for it; given back from the start, both workers take work.
TEST(WorkerPoolTest, AStreamGrowsFromItsResultsAndSkipsALentWorker) {
  WorkerPool pool(host_fake_workers(2));
  std::vector<DeviceInfo> devices;
  ASSERT_TRUE(pool.devices(false, &devices).ok());
  for (bool lent_all_along : {true, false}) {
    size_t issued = 0, follow_ups = 0;
    std::vector<EvalResult> results;
    std::vector<size_t> tags;
    EvalRequest base;
    base.candidate = seed_candidate(*find_seed(test::w4a16_problem(), "naive"));
    base.trials = 1;
    auto next = [&](EvalRequest* r, size_t* tag) {
      if (issued >= 4 && follow_ups == 0) return false;
      *r = base;
      if (issued < 4) {
        r->shape = w4a16::shape(256, 32 * static_cast<int64_t>(issued + 1), 64);
        *tag = issued++;
      } else {
        r->shape = w4a16::shape(256, 512, 64);
        *tag = 100 + follow_ups--;
      }
      return true;
    };
    auto done = [&](size_t tag, EvalResult r) {
      if (tag < 100) ++follow_ups;  // each first request asks for one more
      tags.push_back(tag);
      results.push_back(std::move(r));
    };
    const auto began = std::chrono::steady_clock::now();
    pool.evaluate_stream(next, done, {{1, [&] { return !lent_all_along; }}});
    EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(60));
    ASSERT_EQ(results.size(), 8u);
    size_t on_lent = 0;
    for (const EvalResult& r : results) {
      EXPECT_TRUE(r.ok()) << r.message;
      on_lent += r.worker == 1;
    }
    if (lent_all_along)
      EXPECT_EQ(on_lent, 0u);
    else
      EXPECT_GT(on_lent, 0u);
    EXPECT_EQ(std::count_if(tags.begin(), tags.end(), [](size_t t) { return t >= 100; }), 4);
  }
}

}  // namespace
}  // namespace kopt
