#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "agent/answer_parser.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/candidate.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

// The replay set (tests/replay, run against the GPU by run_replay.sh) is
// generated from the seeds; here, without a GPU, every answer goes through
// the answer parser against the `gen` seed as parent: the ones that hold a
// kernel give a source with a parsable contract, or the contract error the
// run reports; the others are malformed with their reason. A seed change
// that breaks the set fails here first.
TEST(ReplaySetTest, EveryAnswerBecomesASourceOrAReason) {
  const std::string out = test::temp_path("replay-answers");
  const std::string cmd = "python3 " + test::source_dir() + "/tests/replay/make_answers.py " +
                          test::source_dir() + " " + out + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::map<std::string, std::string> answers;
  DIR* dir = opendir(out.c_str());
  ASSERT_NE(dir, nullptr);
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name.size() < 4 || name.substr(name.size() - 3) != ".md") continue;
    std::ifstream f(out + "/" + name);
    std::stringstream text;
    text << f.rdbuf();
    answers[name.substr(0, name.size() - 3)] = text.str();
  }
  closedir(dir);
  ASSERT_GE(answers.size(), 15u);
  const std::string parent = find_seed(test::w4a16_problem(), "gen")->source;
  int sources = 0, malformed = 0;
  for (auto [name, text] : answers) {
    // The server fills this in from the prompt's parent.
    const size_t at = text.find("{{PARENT_BODY}}");
    if (at != std::string::npos) text.replace(at, 15, parent.substr(parent.find("*/\n") + 3));
    std::string source, kind;
    Status s = parse_model_answer(text, parent, &source, &kind);
    if (!s.ok()) {
      ++malformed;
      EXPECT_FALSE(s.message().empty()) << name;
      continue;
    }
    ++sources;
    Candidate c;
    Status contract = parse_candidate(source, {}, &c);
    if (name.find("contract-missing") != std::string::npos)
      EXPECT_NE(contract.message().find("launches"), std::string::npos) << name;
    else
      EXPECT_TRUE(contract.ok()) << name << ": " << contract.message();
  }
  EXPECT_EQ(malformed, 3);  // an edit against another kernel, no code, a truncated block
  EXPECT_EQ(sources + malformed, static_cast<int>(answers.size()));
}

}  // namespace
}  // namespace kopt
