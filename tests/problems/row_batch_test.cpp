// Both batched problems (w4a16_batch, w8a16_batch) without a GPU, through
// what problems/common/row_batch.h writes once for them: shapes with M
// first and sizes that count every row, a reference that is the GEMV's row
// by row, rows that differ, the suites at each decode batch, and the
// protocol (host fake) rejecting a batch-1 kernel that computes row 0 only;
// and, for each batched problem and its GEMV, the dtype hooks the seeds take
// from the device prelude.
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "problems/w4a16_batch/w4a16_batch.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "problems/w8a16_batch/w8a16_batch.h"
#include "problems/w8a16_gemv/w8a16_gemv.h"
#include "sandbox/worker/host_device.h"
#include "sandbox/worker/verification.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

// A batched problem and its GEMV, with a small shape of each.
struct BatchCase {
  const char* batch_id;
  const char* gemv_id;
  const char* gemv_text;  // a GEMV shape of 256 x 48 (K x N)
};

// gtest names a case by its batched problem.
void PrintTo(const BatchCase& c, std::ostream* os) { *os << c.batch_id; }

class RowBatchTest : public testing::TestWithParam<BatchCase> {
 protected:
  static void SetUpTestSuite() { (void)test::w4a16_problem(); }  // the problems are registered
  const Problem& batch() const { return *find_problem(GetParam().batch_id); }
  const Problem& gemv() const { return *find_problem(GetParam().gemv_id); }
  Shape gemv_shape(const std::string& text) const {
    Shape s;
    EXPECT_TRUE(gemv().parse_shape(text, {}, &s).ok()) << text;
    return s;
  }
  Shape batch_shape(const std::string& text) const {
    Shape s;
    EXPECT_TRUE(parse_shape(GetParam().batch_id, text, {}, &s).ok()) << text;
    return s;
  }
};

TEST_P(RowBatchTest, ShapesParseWithRowsFirstAndSizesCountEveryRow) {
  const std::string id = GetParam().batch_id;
  const Shape s = batch_shape(std::string("3x") + GetParam().gemv_text);
  const Shape g = gemv_shape(GetParam().gemv_text);
  EXPECT_EQ(s.key(), id + ":3x" + GetParam().gemv_text);
  EXPECT_EQ(s.var("M"), 3);
  for (const auto& [name, value] : g.vars) EXPECT_EQ(s.var(name), value) << name;
  EXPECT_EQ(batch().x_elements(s), 3 * gemv().x_elements(g));
  EXPECT_EQ(batch().y_elements(s), 3 * gemv().y_elements(g));
  // The weights once (as the GEMV), every row of x and y.
  EXPECT_EQ(batch().bytes_moved(s),
            gemv().bytes_moved(g) + 2 * (2 * gemv().x_elements(g) + 4 * gemv().y_elements(g)));
  EXPECT_EQ(batch().weight_bytes(s), gemv().weight_bytes(g));
  EXPECT_TRUE(batch().validate(s).ok());
  Shape missing_m = s;
  missing_m.vars.erase("M");
  EXPECT_FALSE(batch().validate(missing_m).ok());
  Shape bad;
  for (const char* text : {"7168x9216", "0x512x256", "65x512x256", "x512x256", "8x0x7", "8x512"}) {
    const Status st = parse_shape(id, text, {}, &bad);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_EQ(st.message().find('\n'), std::string::npos) << text;
  }
  EXPECT_NE(parse_shape(id, "7168x9216", {}, &bad).message().find("MxKxN"), std::string::npos);
}

TEST_P(RowBatchTest, TheReferenceIsTheGemvsRowByRowAndRowsDiffer) {
  const Shape s = batch_shape(std::string("3x") + GetParam().gemv_text);
  const Shape g = gemv_shape(GetParam().gemv_text);
  const size_t K = static_cast<size_t>(gemv().x_elements(g)), N = 48;
  for (size_t set = 0; set < batch().datasets().size(); ++set) {
    const ProblemData d = batch().generate(s, set, 17);
    ASSERT_EQ(d.x.size(), 3 * K);
    const std::vector<double> y = batch().reference(d);
    ASSERT_EQ(y.size(), 3 * N);
    std::set<std::vector<uint16_t>> rows;
    for (size_t m = 0; m < 3; ++m) {
      ProblemData row;
      row.shape = g;
      row.weights = d.weights;
      row.x.assign(d.x.begin() + m * K, d.x.begin() + (m + 1) * K);
      rows.insert(row.x);
      const std::vector<double> want = gemv().reference(row);
      for (size_t n = 0; n < N; ++n) EXPECT_DOUBLE_EQ(y[m * N + n], want[n]);
    }
    // Every row its own draw, where the set draws x at all (W8A16's extremes
    // set has x all ones).
    const std::string name = batch().datasets()[set].name;
    if (name != "extremes") {
      EXPECT_EQ(rows.size(), 3u) << name;
    }
  }
}

TEST_P(RowBatchTest, SuitesHoldTheContestAtEachDecodeBatch) {
  Suite all, m8;
  ASSERT_TRUE(find_suite(batch(), "contest-batch", {}, &all).ok());
  ASSERT_TRUE(find_suite(batch(), "contest-m8", {}, &m8).ok());
  EXPECT_EQ(all.shapes.size(), 56u);
  ASSERT_EQ(m8.shapes.size(), 14u);
  EXPECT_EQ(m8.shapes[0].shape.name(), "8x7168x9216");
  EXPECT_EQ(m8.shapes[0].shape.problem, GetParam().batch_id);
}

// A batch-1 kernel (it computes row 0 and leaves the others) is rejected:
// every row of Y is poisoned and checked.
TEST_P(RowBatchTest, AKernelThatComputesRowZeroOnlyIsNotWritten) {
  const Shape shape = batch_shape(std::string("4x") + GetParam().gemv_text);
  const Shape g = gemv_shape(GetParam().gemv_text);
  const Problem& gemv_problem = gemv();
  HostDevice device;
  HostProgram p;
  p.traits.workspace_bytes = 256;
  p.call = [&](HostLaunch& l) {
    ProblemData row;
    row.shape = g;
    row.weights.assign(l.w, l.w + gemv_problem.weight_bytes(g));
    row.x.assign(l.x, l.x + gemv_problem.x_elements(g));
    const std::vector<double> y = gemv_problem.reference(row);
    for (size_t n = 0; n < y.size(); ++n) l.y[n] = static_cast<float>(y[n]);
    l.cost_us = 1;
  };
  device.load(p, shape);
  EvalRequest req;
  req.shape = shape;
  req.seed = 3;
  req.trials = 1;
  req.time = false;
  EvalResult result;
  uint64_t secret = 5;
  ScreenContext ctx{device, req, p.traits, result, nullptr, [&secret] { return ++secret; }};
  EXPECT_FALSE(run_screens(ctx));
  EXPECT_EQ(verdict_name(result.verdict), std::string("not_written")) << result.message;
}

// The dtype hooks' defaults (fp16 x, fp32 y) are the device prelude's, each
// behind #ifndef so a library build's own definitions win; the seeds that
// read x and write y through the hooks (some in each problem) use them
// without defining them again.
TEST_P(RowBatchTest, SeedsUseTheDtypeHooksThePreludeDefines) {
  for (const Problem* problem : {&batch(), &gemv()}) {
    const std::string prelude = problem->device_prelude();
    for (const char* hook : {"KOPT_X_PAIR", "KOPT_X_FP16", "KOPT_Y_STORE"}) {
      const size_t guard = prelude.find(std::string("#ifndef ") + hook + "\n");
      ASSERT_NE(guard, std::string::npos) << problem->id() << " " << hook;
      EXPECT_EQ(prelude.find(std::string("#define ") + hook), prelude.find('\n', guard) + 1)
          << problem->id() << " " << hook;
    }
    int hooked = 0;
    for (const Seed& seed : problem->seeds()) {
      if (seed.source.find("KOPT_X_PAIR(") == std::string::npos) continue;
      ++hooked;
      EXPECT_NE(seed.source.find("KOPT_Y_STORE("), std::string::npos) << seed.name;
      for (const char* hook : {"KOPT_X_PAIR", "KOPT_X_FP16", "KOPT_Y_STORE"})
        EXPECT_EQ(seed.source.find(std::string("#define ") + hook), std::string::npos)
            << problem->id() << " " << seed.name << " " << hook;
    }
    EXPECT_GE(hooked, 1) << problem->id();
  }
}

INSTANTIATE_TEST_SUITE_P(BothProblems, RowBatchTest,
                         testing::Values(BatchCase{w4a16_batch::kId, w4a16::kId, "256x48"},
                                         BatchCase{w8a16_batch::kId, w8a16::kId, "256x48"}),
                         [](const testing::TestParamInfo<BatchCase>& info) {
                           return std::string(info.param.batch_id);
                         });

}  // namespace
}  // namespace kopt
