#include "agent/answer_parser.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kopt
