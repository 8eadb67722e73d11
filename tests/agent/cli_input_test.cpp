// Bad input to the command line, the config and the database: one clear
// line and a documented exit code, nothing recorded lost, no crash.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "agent/commands.h"
#include "db/database.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/subprocess.h"
#include "tests/agent/cli_runner.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

using test::fake_worker;
using test::kopt_cli;
using test::Outcome;

TEST(CliTest, MalformedShapesAreUsageErrors) {
  const std::string seed = test::source_dir() + "/seeds/w4a16_gemv/naive.hip";
  for (const char* shape : {"100x100", "0x256", "abc", "99999999x2", "5120x", "5120x256/g48"}) {
    Outcome o = kopt_cli({"eval", seed, "--shape", shape});
    EXPECT_EQ(o.code, kExitUsage) << shape << ": " << o.output;
    EXPECT_NE(o.output.find("kopt eval:"), std::string::npos) << o.output;
  }
  Outcome o = kopt_cli({"eval", "/nonexistent.hip", "--shape", "64x8"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("cannot read"), std::string::npos);
  EXPECT_EQ(kopt_cli({"bench", "--suite", "everything"}).code, kExitUsage);
  EXPECT_EQ(kopt_cli({"frobnicate"}).code, kExitUsage);
}

TEST(CliTest, BadDatabasesAreRefused) {
  Outcome o = kopt_cli({"db", "runs", "--db", "/nonexistent/kopt.db"});
  EXPECT_EQ(o.code, kExitUsage);
  std::string newer = test::temp_path("newer.db");
  sqlite3* raw;
  ASSERT_EQ(sqlite3_open(newer.c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "PRAGMA user_version=42", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  o = kopt_cli({"db", "runs", "--db", newer});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("newer"), std::string::npos) << o.output;
  std::string garbage = test::temp_path("garbage.db");
  std::ofstream(garbage) << std::string(4096, 'x');
  EXPECT_EQ(kopt_cli({"db", "list", "--db", garbage}).code, kExitUsage);
  o = kopt_cli({"run", "--shape", "5120x256", "--db", "/nonexistent/dir/kopt.db"}, fake_worker());
  EXPECT_EQ(o.code, kExitUsage) << o.output;
}

TEST(CliTest, CorruptConfigIsAUsageError) {
  std::string cfg = test::temp_path("bad.toml");
  std::ofstream(cfg) << "[run\nbudget = ";
  Outcome o = kopt_cli({"run", "--shape", "5120x256", "--config", cfg});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("line 1"), std::string::npos) << o.output;
  o = kopt_cli({"run", "--shape", "5120x256", "--model", "nobody"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("no model named"), std::string::npos);
}

TEST(CliTest, VersionUnknownCommandsAndValidation) {
  Outcome o = kopt_cli({"--version"});
  EXPECT_EQ(o.code, kExitOk);
  EXPECT_NE(o.output.find("kopt 0."), std::string::npos) << o.output;
  o = kopt_cli({"frobnicate"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("unknown command 'frobnicate'"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("eval"), std::string::npos) << o.output;
  o = kopt_cli({"bench", "--seeds", "nope", "--shape", "512x1024"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("naive"), std::string::npos) << o.output;  // lists the valid seeds
  const std::string db = test::temp_path("validate.db");
  std::ofstream(db).close();
  o = kopt_cli({"db", "best", "--shape", "abc", "--db", db});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("abc"), std::string::npos) << o.output;
  o = kopt_cli(
      {"eval", test::source_dir() + "/seeds/w4a16_gemv/naive.hip", "--shape", "512x1024/g7"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("512x1024/g7"), std::string::npos) << o.output;
  EXPECT_EQ(kopt_cli({"run", "--shape", "5120x256", "--trials", "0"}).code, kExitUsage);
  o = kopt_cli({"run", "--shape", "5120x256", "--transfers", "65"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("--transfers"), std::string::npos) << o.output;
  o = kopt_cli({"run", "--shape", "5120x256", "--prompts", "/nonexistent/prompts"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("no prompt folder /nonexistent/prompts"), std::string::npos) << o.output;
}

// Without a GPU, everything that needs none is still checked and reported.
TEST(CliTest, EvalWithoutAGpuReportsContractStaticAndCompileErrors) {
  std::string why;
  if (test::gpu_available(&why)) GTEST_SKIP() << "this machine has a GPU";
  struct Case {
    std::string source;
    std::vector<std::string> extra;
    const char* verdict;
    const char* reason;
  };
  const std::string kernel =
      "KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, "
      "int G) {";
  const std::string contract =
      R"(/* kopt: {"launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]} */)";
  const std::string vec = test::read_source_file("seeds/w4a16_gemv/vec.hip");
  const std::vector<Case> cases = {
      {kernel + "}", {}, "contract_error", "no contract block"},
      {"/* kopt: {not json} */\n" + kernel + "}", {}, "contract_error", "not valid JSON"},
      {test::read_source_file("tests/sandbox/adversarial/tensor_core.hip"),
       {},
       "static_rejected",
       "mma"},
      // The verdict line carries the compiler's first error, not just "does not compile".
      {contract + "\n" + kernel + " y[0] = undefined_name; }",
       {},
       "compile_error",
       "does not compile for sm_90: candidate.hip(2): error: identifier \"undefined_name\" is "
       "undefined"},
      {vec, {"--param", "NOPE=3"}, "contract_error", "NOPE"},
      {vec, {"--param", "ROWS=3"}, "contract_error", "ROWS = 3"},
  };
  for (const auto& c : cases) {
    const std::string file = test::temp_path("nogpu.hip");
    std::ofstream(file) << c.source;
    std::vector<std::string> args = {"eval", file, "--shape", "512x1024"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    Outcome o = kopt_cli(args);
    EXPECT_EQ(o.code, kExitRejected) << c.verdict << ": " << o.output;
    EXPECT_NE(o.output.find(c.verdict), std::string::npos) << o.output;
    EXPECT_NE(o.output.find(c.reason), std::string::npos) << o.output;
  }
  Outcome o =
      kopt_cli({"eval", test::source_dir() + "/seeds/w4a16_gemv/vec.hip", "--shape", "512x1024"});
  EXPECT_EQ(o.code, kExitNoDevice) << o.output;
  EXPECT_NE(o.output.find("passed"), std::string::npos) << o.output;
}

TEST(CliTest, ConfigTyposNameTheKeyAndTheLine) {
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c :
       {Case{"[run]\nbudget = 5\nbudgte = 5\n", "line 3: unknown key 'run.budgte'"},
        Case{"[mutator]\nweight = \"heavy\"\n", "line 2: mutator.weight must be a number"},
        Case{"[run]\ntrials = 1.5\n", "run.trials must be an integer"},
        Case{"[sandboxx]\n", "unknown key 'sandboxx'"},
        Case{"[[models]]\nname = \"m\"\nbase_url = \"http://x\"\nwieght = 2\n", "models.wieght"}}) {
    const std::string cfg = test::temp_path("typo.toml");
    std::ofstream(cfg) << c.text;
    Outcome o = kopt_cli({"run", "--shape", "5120x256", "--config", cfg});
    EXPECT_EQ(o.code, kExitUsage) << c.text;
    EXPECT_NE(o.output.find(c.expected), std::string::npos) << o.output;
  }
}

// Without a GPU the loop still runs end to end on the host fake, labelled as such.
// Hostile text never ends kopt: a 200 000-character line inside a comment
// (under the source limit), a contract nested 100 000 deep and random bytes
// each get a verdict line from `kopt eval`, through the whole orchestrator
// (source rules, the gfx906 check, the worker on the host fake).
TEST(CliTest, HostileTextGetsAVerdictNotACrash) {
  const std::string seed = test::read_source_file("seeds/w4a16_gemv/naive.hip");
  ASSERT_FALSE(seed.empty());
  std::string long_line = seed;
  long_line.insert(long_line.find("// y[n] ="), "// " + std::string(200000, 'A') + "\n");
  const std::string deep = "/* kopt: {\"launches\": " + std::string(100000, '[') +
                           std::string(100000, ']') + "} */\nKOPT_KERNEL void gemv() {}\n";
  std::string random(5000, '\0');
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (char& c : random) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<char>(state >> 56);
  }
  const std::string worker = "KOPT_WORKER='" + executable_dir() + "/kopt-worker --host-demo'";
  const std::pair<std::string, std::string> cases[] = {
      {long_line, ": ok"}, {deep, ": contract_error"}, {random, ": contract_error"}};
  for (const auto& [text, verdict] : cases) {
    const std::string file = test::temp_path("hostile.hip");
    std::ofstream(file, std::ios::binary) << text;
    Outcome o = kopt_cli({"eval", file, "--shape", "512x256", "--no-time"}, worker);
    EXPECT_TRUE(o.code == kExitOk || o.code == kExitRejected) << o.code << ": " << o.output;
    EXPECT_NE(o.output.find("shape w4a16_gemv:512x256" + verdict), std::string::npos)
        << o.output.substr(0, 2000);
  }
}

// First contact: every error starts with "kopt <verb>:", says what was
// wrong once and what to do; without a GPU, run points to the demo.
TEST(CliTest, MessagesNameTheCommandOnceWithAHint) {
  struct Case {
    std::vector<std::string> args;
    std::string first_line;
  };
  const std::vector<Case> cases = {
      {{"demo", "--budget", "-1"},
       "kopt demo: --budget must be between 1 and 1000; got -1 (kopt demo --help)"},
      {{"db", "show", "abc"}, "kopt db: 'abc' is not a number (ids) (kopt db --help)"},
      {{}, "kopt: a command is required: one of eval, "},
      {{"eval", "x.hip", "--shape", "64x8", "--bogus"},
       "kopt eval: unexpected argument '--bogus' (kopt eval --help)"},
      {{"demo", "--shape", "100x7"},
       "kopt demo: shape 100x7: group size 64 does not divide K = 100; name one that does with "
       "/gG, e.g. 100x7/g100"},
      {{"run", "--shape", "5120x256", "--db", test::temp_path("nogpu.db")}, "kopt run: "}};
  for (const Case& c : cases) {
    const Outcome o = kopt_cli(c.args, "KOPT_WORKER=/nonexistent-worker");
    EXPECT_NE(o.code, kExitOk) << o.output;
    EXPECT_EQ(o.output.rfind(c.first_line, 0), 0u) << o.output;
    EXPECT_EQ(o.output.find('\n'), o.output.size() - 1) << "one line: " << o.output;
  }
  // The shape is named once, not once per layer that passed the message on.
  const Outcome shape = kopt_cli({"demo", "--shape", "100x7"});
  EXPECT_EQ(shape.output.find("shape 100x7"), shape.output.rfind("shape 100x7")) << shape.output;
  EXPECT_EQ(shape.output.find("'100x7'"), std::string::npos) << shape.output;
  // Without a GPU (the real worker on a machine without one), run says what does work.
  if (!test::gpu_required()) {
    const Outcome o =
        kopt_cli({"run", "--shape", "5120x256", "--db", test::temp_path("nogpu2.db")});
    if (o.code == kExitNoDevice) {
      EXPECT_NE(o.output.find("`kopt demo` shows the loop without a GPU"), std::string::npos)
          << o.output;
    }
  }
}

}  // namespace
}  // namespace kopt
