#include "sandbox/contract/expr.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <regex>

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

std::string cpp(const std::string& text, const std::set<std::string>& wide = {"K", "N"}) {
  Expression e;
  Status s = Expression::parse(text, &e);
  EXPECT_TRUE(s.ok()) << s.message();
  return e.to_cpp(wide);
}

// The library's launch code is printed from the tree the sandbox evaluates:
// C's readings that differ from the contract language's cannot slip in.
TEST(ExprTest, CppIsPrintedFromTheTree) {
  EXPECT_EQ(cpp("K % 32 == 0"), "(K % 32LL == 0LL)");
  EXPECT_EQ(cpp("cdiv(N, ROWS * 4)"), "kopt_cdiv(N, (long long)ROWS * 4LL)");
  EXPECT_EQ(cpp("(K - N) - (K - N) * 2"), "(K - N - (K - N) * 2LL)");
  EXPECT_EQ(cpp("K - (N - 1)"), "(K - (N - 1LL))");
  EXPECT_EQ(cpp("K > N || N > 1 && K < 2"), "(K > N || (N > 1LL && K < 2LL))");
  EXPECT_EQ(cpp("(K > N || N > 1) && K < 2"), "((K > N || N > 1LL) && K < 2LL)");
  // `K--1` is K minus -1 here, `--K` minus minus K; C would read decrements.
  EXPECT_EQ(cpp("K--1"), "(K - -1LL)");
  EXPECT_EQ(cpp("--K"), "-(-K)");
  EXPECT_EQ(cpp("-(K + 1)"), "-(K + 1LL)");
  // A leading zero is decimal here; C would read octal (010 == 8).
  EXPECT_EQ(cpp("K % 010"), "(K % 10LL)");
  // Parameters are int macros in the library: cast, so P * P cannot overflow an int.
  EXPECT_EQ(cpp("P * P", {}), "((long long)P * (long long)P)");
  EXPECT_EQ(cpp("!K + 1"), "((long long)!K + 1LL)");
  EXPECT_EQ(cpp("!(K + 1)"), "(long long)!(K + 1LL)");
}

// Printed C++, read back by the evaluator (casts, LL and kopt_ removed),
// gives the same value as the expression on random trees and variables.
TEST(ExprTest, PrintedCppComputesTheSameValues) {
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const char* ops[] = {"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  const char* fns[] = {"cdiv", "min", "max", "align"};
  // Minimal spacing on purpose: `a--b`, `1-!K`.
  std::function<std::string(int)> random_expr = [&](int depth) -> std::string {
    const int kind = depth > 3 ? pick(2) : pick(6);
    if (kind == 0) return std::to_string(pick(40));
    if (kind == 1) return pick(2) ? "K" : "P";
    if (kind == 2) return std::string(pick(2) ? "-" : "!") + random_expr(depth + 1);
    if (kind == 3) return "(" + random_expr(depth + 1) + ")";
    if (kind == 4)
      return std::string(fns[pick(4)]) + "(" + random_expr(depth + 1) + "," +
             random_expr(depth + 1) + ")";
    return random_expr(depth + 1) + ops[pick(13)] + random_expr(depth + 1);
  };
  const std::regex decoration(R"(\(long long\)|LL\b|kopt_)");
  int compared = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string text = random_expr(0);
    Expression e;
    if (!Expression::parse(text, &e).ok()) continue;
    const Variables vars = {{"K", pick(200) - 50}, {"P", pick(9) + 1}};
    int64_t want = 0, got = 0;
    if (!e.evaluate(vars, &want).ok()) continue;  // division by zero and the like
    const std::string back = std::regex_replace(e.to_cpp({"K"}), decoration, "");
    Status s = evaluate_expression(back, vars, &got);
    ASSERT_TRUE(s.ok()) << text << " -> " << back << ": " << s.message();
    EXPECT_EQ(got, want) << text << " -> " << back;
    ++compared;
  }
  EXPECT_GT(compared, 1000);
}

}  // namespace
}  // namespace kopt
