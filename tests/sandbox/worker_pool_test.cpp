#include "sandbox/worker_pool.h"

#include <gtest/gtest.h>

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

// Three host-fake workers evaluate five requests at once; each result is
// the one of its own request (shape and seed kernel), in request order.
TEST(WorkerPoolTest, ResultsComeBackInRequestOrder) {
  std::vector<SandboxOptions> workers(3);
  for (auto& w : workers) {
    w.worker_command = {default_worker_command()[0], "--host-demo"};
    w.amd_check = false;
  }
  WorkerPool pool(workers);
  std::vector<DeviceInfo> devices;
  ASSERT_TRUE(pool.devices(false, &devices).ok());
  ASSERT_EQ(devices.size(), 3u);
  std::vector<EvalRequest> requests;
  const int64_t columns[] = {64, 128, 96, 32, 160};
  for (int64_t n : columns) {
    EvalRequest r;
    r.source = find_seed(test::w4a16_problem(), "naive")->source;
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

}  // namespace
}  // namespace kopt
