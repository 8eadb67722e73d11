// The second problem on a real GPU, through the unchanged sandbox: every
// W8A16 seed verifies and is timed on assorted shapes, the vendor BLAS
// baseline runs on its dequantised weights, and kernels that read the int8
// weights unsigned or clamped are rejected. Skipped where no GPU is found.
#include <gtest/gtest.h>

#include "problems/w8a16_gemv/w8a16_gemv.h"
#include "sandbox/client/sandbox.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

class W8a16GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!test::gpu_available(&why)) {
      // KOPT_REQUIRE_GPU=1 (every GPU run that is reported) turns a worker
      // that cannot start into a failure instead of a suite of skips.
      if (test::gpu_required()) FAIL() << "KOPT_REQUIRE_GPU is set but no GPU: " << why;
      GTEST_SKIP() << "GPU tests skipped: " << why;
    }
  }
  static EvalResult run(const std::string& source, const Shape& shape, bool time,
                        const std::string& baseline = "") {
    Sandbox sandbox(test::gpu_test_options());
    EvalRequest r = test::gpu_test_request(source, shape, time, 20261123);
    r.baseline = baseline;
    return sandbox.evaluate(r);
  }
  static const Problem& problem() {
    (void)test::w4a16_problem();  // registers the problems
    return *find_problem(w8a16::kId);
  }
};

TEST_F(W8a16GpuTest, EverySeedVerifiesAndIsTimedOnAssortedShapes) {
  const Shape shapes[] = {w8a16::shape(4096, 1024), w8a16::shape(5120, 256),
                          w8a16::shape(384, 5120), w8a16::shape(1000, 33), w8a16::shape(16, 1)};
  for (const Seed& seed : problem().seeds())
    for (const Shape& shape : shapes) {
      const EvalResult r = run(seed.source, shape, /*time=*/shape.var("K") >= 384);
      if (r.verdict == Verdict::kUnsupportedShape) {
        EXPECT_NE(shape.var("K") % 16, 0) << seed.name << " " << shape.name() << ": " << r.message;
        continue;
      }
      EXPECT_EQ(r.verdict, Verdict::kOk) << seed.name << " " << shape.name() << ": " << r.message;
      EXPECT_EQ(r.shape, shape.key());
      if (r.ok() && shape.var("K") >= 384) {
        ASSERT_TRUE(r.timing.has_value());
        EXPECT_GT(r.timing->median_us, 0);
        EXPECT_EQ(r.timing->bytes, problem().bytes_moved(shape));
      }
    }
}

TEST_F(W8a16GpuTest, TheVendorBlasBaselineRunsOnDequantisedWeights) {
  const EvalResult r = run("", w8a16::shape(4096, 4096), true, kVendorBlasBaseline);
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.message;
}

// The naive seed with its weight read changed: unsigned bytes, or -128
// clamped to -127. The first is wrong on random data, the second on the
// extremes set (or the outliers).
TEST_F(W8a16GpuTest, UnsignedOrClampedWeightReadsAreRejected) {
  const std::string naive = find_seed(problem(), "naive")->source;
  const std::string signed_read = "(float)row[k]";
  ASSERT_NE(naive.find(signed_read), std::string::npos);
  std::string unsigned_read = naive, clamped = naive;
  unsigned_read.replace(unsigned_read.find(signed_read), signed_read.size(),
                        "(float)(unsigned char)row[k]");
  clamped.replace(clamped.find(signed_read), signed_read.size(),
                  "(float)(row[k] < -127 ? -127 : row[k])");
  for (const std::string* source : {&unsigned_read, &clamped}) {
    const EvalResult r = run(*source, w8a16::shape(2048, 512), false);
    EXPECT_EQ(r.verdict, Verdict::kWrongResult) << r.message;
  }
}

}  // namespace
}  // namespace kopt
