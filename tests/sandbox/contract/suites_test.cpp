#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

bool has(const Suite& s, int64_t K, int64_t N, const std::string& role) {
  return std::any_of(s.shapes.begin(), s.shapes.end(), [&](const SuiteShape& e) {
    return e.shape.var("K") == K && e.shape.var("N") == N && e.role == role;
  });
}

TEST(SuitesTest, EverySuiteHasValidDistinctShapesAndADescription) {
  std::set<std::string> names;
  for (const Suite& s : test::w4a16_problem().suites({})) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_FALSE(s.description.empty()) << s.name;
    EXPECT_FALSE(s.shapes.empty()) << s.name;
    std::set<std::string> shapes;
    for (const auto& e : s.shapes) {
      EXPECT_TRUE(validate_shape(e.shape).ok()) << s.name << " " << e.shape.name();
      EXPECT_TRUE(shapes.insert(e.shape.name()).second) << s.name << " repeats " << e.shape.name();
    }
  }
  EXPECT_EQ(test::w4a16_problem().suites({}).front().name, "contest");
  EXPECT_EQ(test::w4a16_problem().suites({}).front().shapes.size(), 14u);
}

// The projections follow the models' published dimensions: column-parallel
// layers divide N by the tensor-parallel degree, row-parallel ones K.
TEST(SuitesTest, ModelProjectionsFollowTheModelsDimensions) {
  Suite s;
  ASSERT_TRUE(find_suite(test::w4a16_problem(), "llama3-8b", {{"G", 64}}, &s).ok());
  EXPECT_TRUE(has(s, 4096, 6144, "tp1 qkv_proj"));
  EXPECT_TRUE(has(s, 4096, 4096, "tp1 o_proj"));
  EXPECT_TRUE(has(s, 4096, 28672, "tp1 gate_up_proj"));
  EXPECT_TRUE(has(s, 14336, 4096, "tp1 down_proj"));
  EXPECT_TRUE(has(s, 1792, 4096, "tp8 down_proj"));
  EXPECT_TRUE(has(s, 4096, 768, "tp8 qkv_proj"));
  ASSERT_TRUE(find_suite(test::w4a16_problem(), "llama3-70b", {{"G", 64}}, &s).ok());
  EXPECT_TRUE(has(s, 8192, 10240, "tp1 qkv_proj"));
  EXPECT_TRUE(has(s, 28672, 8192, "tp1 down_proj"));
  ASSERT_TRUE(find_suite(test::w4a16_problem(), "deepseek-v3", {{"G", 64}}, &s).ok());
  EXPECT_TRUE(has(s, 7168, 576, "kv_a_proj_with_mqa"));
  EXPECT_TRUE(has(s, 512, 32768, "kv_b_proj"));
  EXPECT_TRUE(has(s, 16384, 7168, "o_proj"));
}

// A group size that does not divide a suite's K leaves that shape out and
// says so; the others take the group size.
TEST(SuitesTest, GroupSizeAppliesAndShapesItDoesNotDivideAreNamedAsLeftOut) {
  Suite s;
  ASSERT_TRUE(find_suite(test::w4a16_problem(), "qwen2.5-7b", {{"G", 256}}, &s).ok());
  for (const auto& e : s.shapes) EXPECT_EQ(e.shape.var("G"), 256);
  EXPECT_NE(s.description.find("left out"), std::string::npos)
      << s.description;  // o_proj 896 at tp4
  EXPECT_TRUE(std::none_of(s.shapes.begin(), s.shapes.end(),
                           [](const SuiteShape& e) { return e.shape.var("K") == 896; }));
  ASSERT_TRUE(find_suite(test::w4a16_problem(), "llama3-8b", {{"G", 128}}, &s).ok());
  EXPECT_EQ(s.description.find("left out"), std::string::npos) << s.description;
}

TEST(SuitesTest, ResolveShapesTakesASuiteThenShapesAndNamesUnknownSuites) {
  std::vector<Shape> shapes;
  EXPECT_FALSE(resolve_shapes(test::w4a16_problem(), "deepseek-v3", {"100x3"}, {{"G", 64}}, &shapes)
                   .ok());  // 64 does not divide 100
  ASSERT_TRUE(
      resolve_shapes(test::w4a16_problem(), "deepseek-v3", {"128x3"}, {{"G", 64}}, &shapes).ok());
  EXPECT_EQ(shapes.size(), 10u);
  EXPECT_EQ(shapes.back().name(), "128x3");
  Status s = resolve_shapes(test::w4a16_problem(), "llama", {}, {{"G", 64}}, &shapes);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("llama3-8b"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace kopt
