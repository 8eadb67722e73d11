#include "sandbox/contract/expr.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

int64_t eval(const std::string& e, const Variables& v = {{"N", 9216}, {"K", 7168}, {"ROWS", 4}}) {
  int64_t out = -999;
  Status s = evaluate_expression(e, v, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

TEST(ExprTest, ArithmeticAndPrecedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("-4 + 10 % 4"), -2);
  EXPECT_EQ(eval("N / ROWS"), 2304);
}

TEST(ExprTest, FunctionsAndVariables) {
  EXPECT_EQ(eval("cdiv(N, 5)"), 1844);
  EXPECT_EQ(eval("align(10, 8)"), 16);
  EXPECT_EQ(eval("min(K, N)"), 7168);
  EXPECT_EQ(eval("max(K, N)"), 9216);
}

TEST(ExprTest, ComparisonsAndLogic) {
  EXPECT_EQ(eval("K % 32 == 0"), 1);
  EXPECT_EQ(eval("K % 33 == 0"), 0);
  EXPECT_EQ(eval("K > N || ROWS <= 4"), 1);
  EXPECT_EQ(eval("K > N && ROWS <= 4"), 0);
  EXPECT_EQ(eval("!(K != 7168)"), 1);
}

TEST(ExprTest, ErrorsNameTheProblem) {
  int64_t out;
  Status s = evaluate_expression("N / 0", {{"N", 1}}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("division by zero"), std::string::npos);
  s = evaluate_expression("FOO + 1", {}, &out);
  EXPECT_NE(s.message().find("unknown name 'FOO'"), std::string::npos);
  EXPECT_FALSE(evaluate_expression("1 +", {}, &out).ok());
  EXPECT_FALSE(evaluate_expression("(1", {}, &out).ok());
  EXPECT_FALSE(evaluate_expression("cdiv(1)", {}, &out).ok());
  EXPECT_FALSE(evaluate_expression("system(1, 2)", {}, &out).ok());
  EXPECT_FALSE(evaluate_expression(std::string(200, '('), {}, &out).ok());
}

TEST(ExprTest, OverflowAndTrapsAreErrorsNotUndefinedBehaviour) {
  int64_t out = 0;
  const Variables big = {{"B", INT64_MAX}, {"M", INT64_MIN}, {"one", 1}};
  for (const char* e :
       {"B + 1", "M - 1", "B * 2", "M / (0 - one)", "-M", "cdiv(B, 2)", "align(B, 16)",
        "1125899906842624 * 1125899906842624", "0 - 1125899906842624 * 8192 * 8192"}) {
    Status s = evaluate_expression(e, big, &out);
    EXPECT_FALSE(s.ok()) << e;
    EXPECT_NE(s.message().find(e), std::string::npos) << s.message();  // names the expression
  }
  Status s = evaluate_expression("M / (0 - one)", big, &out);
  EXPECT_NE(s.message().find("overflow"), std::string::npos) << s.message();
  ASSERT_TRUE(evaluate_expression("M % (0 - one)", big, &out).ok());  // no trap: the remainder is 0
  EXPECT_EQ(out, 0);
  EXPECT_FALSE(evaluate_expression("cdiv(5, 0)", {}, &out).ok());
  EXPECT_FALSE(evaluate_expression("align(5, -8)", {}, &out).ok());
  EXPECT_FALSE(evaluate_expression(std::string(300, '-') + "1", {}, &out).ok());
  EXPECT_FALSE(evaluate_expression(std::string(300, '!') + "1", {}, &out).ok());
}

}  // namespace
}  // namespace kopt
