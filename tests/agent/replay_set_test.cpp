#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "agent/answer_parser.h"
#include "agent/candidate_text.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/static_checks.h"
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
  // The parent as the prompt shows it: the gen seed; the answers filled in as
  // the replay server fills them (diffs, elided edits, its body) and tool
  // calls as the client hands them on.
  const std::string parent = find_seed(test::w4a16_problem(), "gen")->source;
  const std::string parent_file = test::temp_path("replay-parent.hip");
  std::ofstream(parent_file) << parent;
  const std::string cmd = "python3 " + test::source_dir() + "/tests/replay/make_answers.py " +
                          test::source_dir() + " " + out + " --parent " + parent_file +
                          " > /dev/null";
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
  int sources = 0, malformed = 0;
  std::map<std::string, std::string> kinds;
  for (auto [name, text] : answers) {
    std::string source, kind;
    Status s = parse_model_answer(text, parent, &source, &kind);
    if (!s.ok()) {
      ++malformed;
      EXPECT_FALSE(s.message().empty()) << name;
      continue;
    }
    ++sources;
    kinds[name] = kind;
    // Round 2: what each style must become.
    if (name == "17-unified-diff" || name == "18-search-elided") {
      EXPECT_NE(source.find(name[1] == '7' ? "#define XLOADS 8" : "#define XLOADS 6"),
                std::string::npos)
          << name;
      EXPECT_EQ(source.find("#define XLOADS 4"), std::string::npos) << name;
      // The lines the elision skipped are all still there.
      EXPECT_EQ(text_lines(source).size(), text_lines(parent).size()) << name;
    }
    if (name == "20-two-blocks-second-is-the-fix") {
      EXPECT_NE(source.find("\"name\": \"gen-fixed\""), std::string::npos) << "took the draft";
    }
    if (name == "21-whole-program") {
      for (const char* host : {"int main(", "hipMalloc", "#include", "hipLaunchKernelGGL"})
        EXPECT_EQ(source.find(host), std::string::npos) << host << " kept";
      // Every conditional block the kernel had is whole.
      size_t opens = 0, closes = 0;
      for (const std::string& line : text_lines(source)) {
        const std::string t = line.substr(std::min(line.find_first_not_of(' '), line.size()));
        opens += t.rfind("#if", 0) == 0;
        closes += t.rfind("#endif", 0) == 0;
      }
      EXPECT_EQ(opens, closes) << source;
      std::vector<std::string> kernels = {"gemv"};
      std::string cleaned;
      EXPECT_TRUE(check_source(source, kernels, &cleaned).ok()) << name;
    }
    Candidate c;
    Status contract = parse_candidate(source, {}, &c);
    if (name.find("contract-missing") != std::string::npos)
      EXPECT_NE(contract.message().find("launches"), std::string::npos) << name;
    else
      EXPECT_TRUE(contract.ok()) << name << ": " << contract.message();
  }
  EXPECT_EQ(malformed, 3);  // an edit against another kernel, no code, a truncated block
  EXPECT_EQ(kinds["17-unified-diff"], "diff");
  EXPECT_EQ(kinds["18-search-elided"], "edits");
  EXPECT_EQ(kinds["19-tool-call-as-text"].rfind("tool-call", 0), 0u)
      << kinds["19-tool-call-as-text"];
  EXPECT_EQ(kinds["22-tool-calls-response"].rfind("tool-call", 0), 0u);
  EXPECT_EQ(kinds["21-whole-program"], "full+host-code-dropped");
  EXPECT_EQ(sources + malformed, static_cast<int>(answers.size()));
}

}  // namespace
}  // namespace kopt
