// Bad input to the command line, the config and the database: one clear line
// and a documented exit code, and nothing recorded lost. Runs the real kopt
// binary; a fake worker (KOPT_WORKER) stands in for the GPU where one is needed.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "agent/commands.h"
#include "db/database.h"
#include "sandbox/amd_offline.h"
#include "seeds/seeds.h"
#include "sandbox/subprocess.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

struct Outcome {
  int code;
  std::string output;
};

Outcome kopt_cli(const std::vector<std::string>& args, const std::string& env = "") {
  std::string cmd = env + " " + executable_dir() + "/kopt";
  for (const auto& a : args) cmd += " '" + a + "'";
  ProcessResult r;
  Status s = run_process({"/bin/sh", "-c", cmd}, 120, 1 << 20, &r);
  EXPECT_TRUE(s.ok()) << s.message();
  return {r.exit_code, r.output};
}

// A worker that claims a GPU and answers every evaluation "ok, 5 us".
std::string fake_worker() {
  std::string path = test::temp_path("worker.sh");
  std::ofstream(path) << R"(#!/bin/sh
while read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"op":"device"'*) echo "{\"id\":$id,\"event\":\"device\",\"device\":{\"name\":\"Fake GPU\",\"read_bandwidth_gbps\":1000}}" >&3 ;;
    *) echo "{\"id\":$id,\"event\":\"result\",\"result\":{\"verdict\":\"ok\",\"shape\":\"5120x256\",\"device\":{\"name\":\"Fake GPU\"},\"timing\":{\"median_us\":5.0,\"gbps\":100,\"fraction_of_read_bw\":0.1}}}" >&3 ;;
  esac
done
)";
  chmod(path.c_str(), 0755);
  return "KOPT_WORKER=" + path;
}

TEST(CliTest, MalformedShapesAreUsageErrors) {
  const std::string seed = test::source_dir() + "/seeds/naive.hip";
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

// A manifest is checked before any GPU work: a JSON list of shapes, each
// with its generated file beside it.
TEST(CliTest, BenchRefusesABadManifest) {
  const std::string garbage = test::temp_path("manifest-garbage.json");
  std::ofstream(garbage) << "{not json";
  Outcome o = kopt_cli({"bench", "--shape", "5120x256", "--tuned", garbage});
  EXPECT_EQ(o.code, kExitUsage) << o.output;
  EXPECT_NE(o.output.find("not an export manifest"), std::string::npos) << o.output;
  const std::string missing = test::temp_path("manifest-missing.json");
  std::ofstream(missing) << R"([{"shape": "5120x255", "name": "naive", "params": {}}])";
  o = kopt_cli({"bench", "--shape", "5120x256", "--tuned", missing});
  EXPECT_EQ(o.code, kExitUsage) << o.output;
  EXPECT_NE(o.output.find("cannot read"), std::string::npos) << o.output;
  EXPECT_EQ(kopt_cli({"bench", "--shape", "5120x256", "--tuned", "/nonexistent/MANIFEST.json"}).code, kExitUsage);
}

// The shipped manifest and its generated files are readable as a column.
TEST(CliTest, BenchAcceptsTheShippedManifest) {
  std::string why;
  if (test::gpu_available(&why)) GTEST_SKIP() << "this machine has a GPU: the bench would run";
  Outcome o = kopt_cli({"bench", "--suite", "contest", "--tuned", test::source_dir() + "/kernels/generated/MANIFEST.json"});
  EXPECT_EQ(o.code, kExitNoDevice) << o.output;
}

TEST(CliTest, NoGpuIsExitThreeWithAClearLine) {
  std::string why;
  if (test::gpu_available(&why)) GTEST_SKIP() << "this machine has a GPU";
  Outcome o = kopt_cli({"run", "--shape", "5120x256", "--db", test::temp_path("nogpu.db")});
  EXPECT_EQ(o.code, kExitNoDevice) << o.output;
  EXPECT_NE(o.output.find("no GPU"), std::string::npos);
  EXPECT_EQ(kopt_cli({"bench", "--shape", "5120x256"}).code, kExitNoDevice);
  EXPECT_EQ(kopt_cli({"doctor"}).code, kExitNoDevice);
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

// With a (fake) GPU: a run, the browser over it, and an unreachable model.
TEST(CliTest, RunBrowseAndAnUnreachableModel) {
  const std::string db = test::temp_path("run.db"), env = fake_worker();
  Outcome o = kopt_cli({"run", "--shape", "5120x256", "--budget", "12", "--db", db, "--seed", "3"}, env);
  ASSERT_EQ(o.code, kExitOk) << o.output;
  EXPECT_NE(o.output.find("finished: budget"), std::string::npos) << o.output;
  o = kopt_cli({"db", "runs", "--db", db});
  EXPECT_EQ(o.code, kExitOk);
  EXPECT_NE(o.output.find("5120x256"), std::string::npos);
  EXPECT_EQ(kopt_cli({"db", "best", "--db", db}).code, kExitOk);
  EXPECT_EQ(kopt_cli({"db", "list", "--db", db}).code, kExitOk);
  EXPECT_EQ(kopt_cli({"db", "show", "1", "--db", db}).code, kExitOk);
  EXPECT_EQ(kopt_cli({"db", "lineage", "5", "--db", db}).code, kExitOk);
  o = kopt_cli({"db", "diff", "1", "2", "--db", db});
  EXPECT_EQ(o.code, kExitOk);
  EXPECT_NE(o.output.find("@@"), std::string::npos);
  EXPECT_EQ(kopt_cli({"db", "show", "99999", "--db", db}).code, kExitUsage);

  const std::string cfg = test::temp_path("down.toml");
  std::ofstream(cfg) << "[run]\nbatch = 2\n[[models]]\nname = \"down\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"
                        "retries = 1\ntimeout_s = 5\n";
  o = kopt_cli({"run", "--shape", "5120x256", "--budget", "30", "--db", db, "--model", "down", "--no-mutator",
                "--config", cfg},
               env);
  EXPECT_EQ(o.code, kExitProposers) << o.output;
  EXPECT_NE(o.output.find("model_error"), std::string::npos) << o.output;
  o = kopt_cli({"db", "failures", "--db", db, "--run", "2"});
  EXPECT_NE(o.output.find("model_error"), std::string::npos);
  // The first run is intact.
  o = kopt_cli({"db", "list", "--db", db, "--run", "1"});
  EXPECT_NE(o.output.find("ok 5.00 us"), std::string::npos) << o.output;
}

// A database from the GPU machine records gfx906 as "not checked"; check-amd
// --db fills it in where the AMD toolchain is.
TEST(CliTest, CheckAmdFillsInADatabase) {
  if (!AmdToolchain::find().available()) GTEST_SKIP() << "no clang++-15 with ROCm device libraries";
  const std::string path = test::temp_path("amd.db");
  int64_t eval_id;
  {
    std::unique_ptr<Database> db;
    ASSERT_TRUE(Database::open(path, &db).ok());
    RunRecord run;
    run.shape = "5120x256";
    run.config_json = "{}";
    run.status = "done";
    ASSERT_TRUE(db->create_run(&run).ok());
    CandidateRecord c;
    c.run_id = run.id;
    c.name = "splitk";
    c.source = find_seed("splitk")->source;
    c.params_json = "{\"SPLIT\":4}";
    c.key = "k";
    ASSERT_TRUE(db->add_candidate(&c).ok());
    EvaluationRecord e;
    e.candidate_id = c.id;
    e.run_id = run.id;
    e.verdict = "ok";
    e.details_json = "{\"amd\": {\"checked\": false, \"note\": \"not checked\"}}";
    ASSERT_TRUE(db->add_evaluation(&e).ok());
    eval_id = e.id;
  }
  Outcome o = kopt_cli({"check-amd", "--db", path});
  EXPECT_EQ(o.code, kExitOk) << o.output;
  EXPECT_NE(o.output.find("1 candidate(s) checked"), std::string::npos) << o.output;
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(path, &db).ok());
  std::vector<EvaluationRecord> evals;
  ASSERT_TRUE(db->evaluations_of(1, &evals).ok());
  ASSERT_EQ(evals.size(), 1u);
  EXPECT_EQ(evals[0].id, eval_id);
  auto details = nlohmann::json::parse(evals[0].details_json);
  EXPECT_TRUE(details["amd"]["checked"].get<bool>());
  EXPECT_GT(details["amd"]["vgprs"].get<int>(), 0);
  EXPECT_EQ(kopt_cli({"check-amd"}).code, kExitUsage);
}

}  // namespace
}  // namespace kopt
