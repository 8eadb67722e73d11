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

}  // namespace
}  // namespace kopt
