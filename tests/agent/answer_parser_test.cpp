#include "agent/answer_parser.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sandbox/contract/static_checks.h"

namespace kopt {
namespace {

const std::string kParent =
    "/* kopt: {} */\nKOPT_KERNEL void gemv() {\n  int a = 1;\n  int b = 2;\n}\n";

TEST(AnswerParserTest, TakesTheCodeBlockWithAContract) {
  std::string answer =
      "Here it is.\n```hip\n/* kopt: {\"launches\": []} */\nKOPT_KERNEL void gemv() {}\n```\nDone.";
  std::string src, kind;
  ASSERT_TRUE(parse_model_answer(answer, kParent, &src, &kind).ok());
  EXPECT_EQ(kind, "full");
  EXPECT_EQ(src.rfind("/* kopt:", 0), 0u);
  EXPECT_EQ(src.find("```"), std::string::npos);
}

TEST(AnswerParserTest, SkipsBlocksWithoutAContract) {
  std::string answer = "```bash\nmake\n```\n```cpp\n/* kopt: {} */\nx\n```\n";
  std::string src, kind;
  ASSERT_TRUE(parse_model_answer(answer, kParent, &src, &kind).ok());
  EXPECT_EQ(src, "/* kopt: {} */\nx\n");
}

TEST(AnswerParserTest, AppliesSearchReplaceEdits) {
  std::string answer =
      "Faster:\n<<<<<<< SEARCH\n  int a = 1;\n=======\n  int a = 3;\n>>>>>>> REPLACE\n"
      "<<<<<<< SEARCH\n  int b = 2;\n=======\n>>>>>>> REPLACE\n";
  std::string src, kind;
  Status s = parse_model_answer(answer, kParent, &src, &kind);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(kind, "edits");
  EXPECT_NE(src.find("int a = 3;"), std::string::npos);
  EXPECT_EQ(src.find("int b"), std::string::npos);
}

TEST(AnswerParserTest, RejectsMalformedAnswers) {
  std::string src, kind;
  EXPECT_FALSE(parse_model_answer("", kParent, &src, &kind).ok());
  EXPECT_FALSE(parse_model_answer("I would use shared memory.", kParent, &src, &kind).ok());
  Status s =
      parse_model_answer("```hip\n/* kopt: {} */\nKOPT_KERNEL void gemv() {", kParent, &src, &kind);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("truncated"), std::string::npos);
  s = parse_model_answer("<<<<<<< SEARCH\n  int z = 9;\n=======\n  int z = 1;\n>>>>>>> REPLACE\n",
                         kParent, &src, &kind);
  EXPECT_NE(s.message().find("not found"), std::string::npos);
  s = parse_model_answer("<<<<<<< SEARCH\n  int a = 1;\n=======\n  int a = 2;\n", kParent, &src,
                         &kind);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(parse_model_answer("```\nno contract here\n```", kParent, &src, &kind).ok());
  EXPECT_FALSE(parse_model_answer(std::string(600 * 1024, 'x'), kParent, &src, &kind).ok());
}

// The ways real models answer that used to lose the kernel.
TEST(AnswerParserTest, EditsWithIndentationDriftStillApply) {
  // The SEARCH lines lost their indentation (and a blank line was added).
  std::string answer =
      "<<<<<<< SEARCH\nint a = 1;\n\nint b = 2;\n=======\n  int a = 5;\n  int b = 6;\n>>>>>>> "
      "REPLACE\n";
  std::string src, kind;
  Status s = parse_model_answer(answer, kParent, &src, &kind);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(src, "/* kopt: {} */\nKOPT_KERNEL void gemv() {\n  int a = 5;\n  int b = 6;\n}\n");
  // Still exactly once: a line that stands twice is ambiguous, and named.
  const std::string twice = "/* kopt: {} */\nvoid f() {\n  x();\n}\nvoid g() {\n    x();\n}\n";
  s = parse_model_answer("<<<<<<< SEARCH\n x();  \n=======\ny();\n>>>>>>> REPLACE\n", twice, &src,
                         &kind);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("matches 2 places"), std::string::npos) << s.message();
  s = parse_model_answer("<<<<<<< SEARCH\nnot there();\n=======\ny();\n>>>>>>> REPLACE\n", twice,
                         &src, &kind);
  EXPECT_NE(s.message().find("'not there();'"), std::string::npos) << s.message();
}

TEST(AnswerParserTest, AReasoningPreambleIsNotTheAnswer) {
  std::string answer =
      "<think>Maybe:\n<<<<<<< SEARCH\nnope\n=======\n>>>>>>> REPLACE\nor ```hip\nold\n```</think>\n"
      "```hip\n/* kopt: {\"launches\": []} */\nKOPT_KERNEL void gemv() {}\n```\n";
  std::string src, kind;
  Status s = parse_model_answer(answer, kParent, &src, &kind);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(kind, "full");
  EXPECT_EQ(src.find("nope"), std::string::npos);
}

TEST(AnswerParserTest, AContractInItsOwnJsonBlockIsJoinedToTheKernel) {
  std::string answer =
      "Contract:\n```json\n{\"name\": \"x\", \"launches\": [{\"kernel\": \"gemv\", \"grid\": [1], "
      "\"block\": [32]}]}\n```\n"
      "Kernel:\n```hip\nKOPT_KERNEL void gemv(const __half* x) {}\n```\n";
  std::string src, kind;
  Status s = parse_model_answer(answer, kParent, &src, &kind);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(kind, "full+contract-block");
  EXPECT_EQ(src.rfind("/* kopt:\n{\"name\": \"x\"", 0), 0u) << src;
  EXPECT_NE(src.find("KOPT_KERNEL void gemv(const __half* x) {}"), std::string::npos);
}

TEST(AnswerParserTest, AKernelWithoutItsContractTakesTheParents) {
  std::string answer =
      "Faster body:\n```cuda\nextern \"C\" __global__ void gemv() { /* new */ }\n```\n";
  std::string src, kind;
  Status s = parse_model_answer(answer, kParent, &src, &kind);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(kind, "full+parent-contract");
  EXPECT_EQ(src.rfind("/* kopt: {} */\n", 0), 0u) << src;
  EXPECT_NE(src.find("/* new */"), std::string::npos);
  // Without a kernel in it, a block is still not an answer.
  EXPECT_FALSE(
      parse_model_answer("```\nint helper() { return 1; }\n```\n", kParent, &src, &kind).ok());
}

// --- Answers in other voices: correct work is never lost -------------------

const std::string kLoopParent =
    "/* kopt: {\"launches\": []} */\n"
    "KOPT_KERNEL void gemv(const __half* x, float* y, int K) {\n"
    "  float acc = 0.f;\n"
    "  for (int k = 0; k < K; ++k) {\n"
    "    const float v = __half2float(x[k]);\n"
    "    acc += v;\n"
    "  }\n"
    "  y[0] = acc;\n"
    "}\n";

TEST(AnswerParserTest, AppliesAUnifiedDiffOfTheParent) {
  const std::string answer =
      "Unroll by two:\n```diff\n--- a/kernel.hip\n+++ b/kernel.hip\n"
      "@@ -3,5 +3,5 @@ KOPT_KERNEL void gemv(const __half* x, float* y, int K) {\n"
      "   float acc = 0.f;\n"
      "-  for (int k = 0; k < K; ++k) {\n"
      "+  for (int k = 0; k < K; k += 1) {\n"
      "     const float v = __half2float(x[k]);\n"
      "@@ -8,2 +8,2 @@\n"
      "-  y[0] = acc;\n"
      "+  y[0] = 2.f * acc;\n"
      " }\n```\n";
  std::string src, kind;
  Status s = parse_model_answer(answer, kLoopParent, &src, &kind);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(kind, "diff");
  EXPECT_NE(src.find("k += 1"), std::string::npos) << src;
  EXPECT_NE(src.find("y[0] = 2.f * acc;"), std::string::npos) << src;
  EXPECT_EQ(src.find("++k"), std::string::npos);
  // Drifted indentation and CRLF still apply; a hunk whose context is not in
  // the parent is named, with what to do.
  std::string crlf = answer;
  for (size_t at = 0; (at = crlf.find('\n', at)) != std::string::npos; at += 2)
    crlf.replace(at, 1, "\r\n");
  ASSERT_TRUE(parse_model_answer(crlf, kLoopParent, &src, &kind).ok());
  s = parse_model_answer("```diff\n@@ -1 +1 @@\n-  int nothing_like_this;\n+  int x;\n```\n",
                         kLoopParent, &src, &kind);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("hunk 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("against the parent"), std::string::npos) << s.message();
}

TEST(AnswerParserTest, SearchBlocksMayElideUnchangedLines) {
  const std::string answer =
      "<<<<<<< SEARCH\n"
      "  for (int k = 0; k < K; ++k) {\n"
      "    // ... rest of the loop unchanged ...\n"
      "  y[0] = acc;\n"
      "=======\n"
      "  for (int k = 0; k < K; k += 1) {\n"
      "    // ... rest of the loop unchanged ...\n"
      "  y[0] = 4.f * acc;\n"
      ">>>>>>> REPLACE\n";
  std::string src, kind;
  Status s = parse_model_answer(answer, kLoopParent, &src, &kind);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(kind, "edits");
  EXPECT_NE(src.find("k += 1"), std::string::npos) << src;
  EXPECT_NE(src.find("    const float v = __half2float(x[k]);\n    acc += v;\n  }\n"),
            std::string::npos)
      << "the elided lines are kept: " << src;
  EXPECT_NE(src.find("4.f * acc"), std::string::npos) << src;
  EXPECT_EQ(src.find("..."), std::string::npos) << src;
  // Two gaps in one SEARCH are ambiguous: a precise message.
  s = parse_model_answer(
      "<<<<<<< SEARCH\n  float acc = 0.f;\n  // ...\n    acc += v;\n  // ...\n  y[0] = acc;\n"
      "=======\n  y[0] = 0.f;\n>>>>>>> REPLACE\n",
      kLoopParent, &src, &kind);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("more than one elision marker"), std::string::npos) << s.message();
}

// Blank lines at the edges of the elided parts (as a model copies them) keep
// every line of the gap, and no more.
TEST(AnswerParserTest, AnElisionNextToBlankLinesKeepsExactlyTheGap) {
  const std::string parent =
      "/* kopt: {} */\n#define A 1\n\nint x0;\nint x1;\nint x2;\n\nint tail0;\nint tail1;\n";
  const std::string answer =
      "<<<<<<< SEARCH\n#define A 1\n\n// ... unchanged ...\n\nint tail0;\nint tail1;\n=======\n"
      "#define A 2\n\n// ... unchanged ...\n\nint tail0;\nint tail1;\n>>>>>>> REPLACE\n";
  std::string src, kind;
  ASSERT_TRUE(parse_model_answer(answer, parent, &src, &kind).ok());
  std::string expected = parent;
  expected.replace(expected.find("A 1"), 3, "A 2");
  EXPECT_EQ(src, expected);
}

TEST(AnswerParserTest, UnwrapsAToolCallWrittenAsText) {
  const std::string kernel = "/* kopt: {\"launches\": []} */\nKOPT_KERNEL void gemv() {}\n";
  nlohmann::json args = {{"source", kernel}, {"idea", "unroll"}};
  const std::string openai_style =
      nlohmann::json{{"name", "submit_kernel"}, {"arguments", args.dump()}}.dump();
  const std::string nested =
      nlohmann::json{{"type", "function"},
                     {"function", {{"name", "submit_kernel"}, {"arguments", args}}}}
          .dump();
  const std::string fenced = "```json\n" + args.dump(2) + "\n```";
  for (const std::string& answer : {openai_style, nested, fenced}) {
    std::string src, kind;
    Status s = parse_model_answer(answer, kParent, &src, &kind);
    ASSERT_TRUE(s.ok()) << s.message() << "\n" << answer;
    EXPECT_EQ(kind, "tool-call");
    EXPECT_EQ(src, kernel);
  }
  // A source without its contract takes the call's "contract" object.
  const std::string split = nlohmann::json{{"code", "KOPT_KERNEL void gemv() {}\n"},
                                           {"contract", {{"launches", nlohmann::json::array()}}}}
                                .dump();
  std::string src, kind;
  ASSERT_TRUE(parse_model_answer(split, kParent, &src, &kind).ok());
  EXPECT_EQ(src.rfind("/* kopt:", 0), 0u) << src;
  EXPECT_NE(src.find("\"launches\""), std::string::npos) << src;
}

TEST(AnswerParserTest, TheLastBlockWithAContractIsTheAnswer) {
  const std::string answer =
      "First try:\n```hip\n/* kopt: {\"launches\": []} */\nKOPT_KERNEL void gemv() { bug(); "
      "}\n```\n"
      "Wait, that has a bug. Fixed version:\n```hip\n/* kopt: {\"launches\": []} */\n"
      "KOPT_KERNEL void gemv() { fixed(); }\n```\n";
  std::string src, kind;
  ASSERT_TRUE(parse_model_answer(answer, kParent, &src, &kind).ok());
  EXPECT_NE(src.find("fixed()"), std::string::npos) << src;
}

TEST(AnswerParserTest, AWholeProgramKeepsItsKernelAndLosesItsHostCode) {
  const std::string answer =
      "Complete program:\n```cpp\n#include <hip/hip_runtime.h>\n#include <cstdio>\n"
      "/* kopt: {\"launches\": [{\"kernel\": \"gemv\", \"grid\": [1], \"block\": [32]}]} */\n"
      "#define TILE 4\n"
      "__device__ float twice(float v) { return 2.f * v; }\n"
      "KOPT_KERNEL void gemv(const __half* x, float* y) {\n  if (threadIdx.x == 0) { y[0] = "
      "twice(1.f); }\n}\n"
      "static void check(hipError_t e) { if (e) printf(\"error\\n\"); }\n"
      "int main() {\n  float* y;\n  check(hipMalloc(&y, 4));\n  gemv<<<1, 32>>>(nullptr, y);\n"
      "  return 0;\n}\n```\n";
  std::string src, kind;
  ASSERT_TRUE(parse_model_answer(answer, kParent, &src, &kind).ok());
  EXPECT_EQ(kind, "full+host-code-dropped");
  EXPECT_EQ(src.find("main("), std::string::npos) << src;
  EXPECT_EQ(src.find("hipMalloc"), std::string::npos) << src;
  EXPECT_EQ(src.find("#include"), std::string::npos) << src;
  EXPECT_EQ(src.find("check("), std::string::npos) << src;
  EXPECT_NE(src.find("KOPT_KERNEL void gemv"), std::string::npos) << src;
  EXPECT_NE(src.find("__device__ float twice"), std::string::npos) << src;
  EXPECT_NE(src.find("#define TILE 4"), std::string::npos) << src;
  EXPECT_NE(src.find("/* kopt:"), std::string::npos) << src;
  // What is left passes the source rules the whole program broke.
  std::string cleaned;
  Status rules = check_source(src, {"gemv"}, &cleaned);
  EXPECT_TRUE(rules.ok()) << rules.message() << "\n" << src;
  EXPECT_FALSE(check_source(answer.substr(answer.find("#include")), {"gemv"}, &cleaned).ok());
}

}  // namespace
}  // namespace kopt
