// The command line end to end: runs, suites, GPUs, bench, browse, demo and
// check-amd, and a missing GPU. Runs the real kopt binary; a fake worker
// (KOPT_WORKER) stands in for the GPU where one is needed.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "agent/commands.h"
#include "db/database.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/amd_offline.h"
#include "sandbox/contract/subprocess.h"
#include "tests/agent/cli_runner.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

using test::fake_worker;
using test::kopt_cli;
using test::Outcome;

// Suites: listed, one shown, unknown ones named with the known ones; `run`
// takes a suite instead of a shape, not both, and not with --resume.
TEST(CliTest, SuitesAreListedAndRunTakesOne) {
  Outcome o = kopt_cli({"suites"});
  EXPECT_EQ(o.code, 0) << o.output;
  for (const char* name : {"contest", "llama3-8b", "llama3-70b", "qwen2.5-7b", "qwen2.5-32b",
                           "mistral-7b", "deepseek-v3"})
    EXPECT_NE(o.output.find(name), std::string::npos) << name;
  o = kopt_cli({"suites", "deepseek-v3"});
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.output.find("512x32768"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("kv_b_proj"), std::string::npos) << o.output;
  o = kopt_cli({"suites", "llama2"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("known: contest"), std::string::npos) << o.output;
  EXPECT_EQ(kopt_cli({"run", "--suite", "llama2"}).code, kExitUsage);
  EXPECT_EQ(kopt_cli({"run", "--suite", "contest", "--shape", "5120x256"}).code, kExitUsage);
  o = kopt_cli({"run", "--suite", "contest", "--resume", "1"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("--resume"), std::string::npos) << o.output;
}

// A worker that reports the GPU it was given (and, if told, a model named
// after it).
std::string fake_worker_per_gpu(bool models_differ) {
  return "KOPT_WORKER=" +
         test::write_fake_worker(models_differ ? "worker-mixed.sh" : "worker-gpus.sh",
                                 R"(,\"visible_devices\":\"$CUDA_VISIBLE_DEVICES\",\"host\":\"h\")",
                                 models_differ ? "name=\"Fake GPU $CUDA_VISIBLE_DEVICES\"" : "");
}

// --gpus: one worker per listed GPU, each seeing only its own; evaluations
// record the GPU; workers on different models are refused.
TEST(CliTest, RunWithGpusStartsOneWorkerPerGpu) {
  const std::string db = test::temp_path("gpus.db");
  std::remove(db.c_str());
  Outcome o =
      kopt_cli({"run", "--shape", "5120x256", "--budget", "12", "--gpus", "0,1", "--db", db},
               fake_worker_per_gpu(false));
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("2 workers on Fake GPU: h GPU 0, h GPU 1"), std::string::npos)
      << o.output;
  std::unique_ptr<Database> database;
  ASSERT_TRUE(Database::open_existing(db, &database).ok());
  std::set<std::string> gpus;
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(database->candidates_of_run(1, &candidates).ok());
  EXPECT_EQ(candidates.size(), 12u);
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(database->evaluations_of(c.id, &e).ok());
    for (const auto& r : e)
      gpus.insert(nlohmann::json::parse(r.record_json)["device"].value("visible_devices", ""));
  }
  EXPECT_EQ(gpus, (std::set<std::string>{"0", "1"}));
  o = kopt_cli({"run", "--shape", "5120x256", "--gpus", "0,1", "--db", db},
               fake_worker_per_gpu(true));
  EXPECT_EQ(o.code, kExitNoDevice) << o.output;
  EXPECT_NE(o.output.find("different GPU models"), std::string::npos) << o.output;
  EXPECT_EQ(kopt_cli({"run", "--shape", "5120x256", "--gpus", "0,0"}).code, kExitUsage);
  EXPECT_EQ(kopt_cli({"run", "--shape", "5120x256", "--gpus", "0", "--gpu", "1"}).code, kExitUsage);
}

// `run --suite` runs each shape in turn, each its own run in the database.
TEST(CliTest, RunSuiteRecordsOneRunPerShape) {
  const std::string db = test::temp_path("suite-run.db");
  std::remove(db.c_str());
  Outcome o =
      kopt_cli({"run", "--suite", "mistral-7b", "--budget", "1", "--db", db}, fake_worker());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("suite mistral-7b: shape 8 of 8: 7168x4096"), std::string::npos)
      << o.output;
  std::unique_ptr<Database> database;
  ASSERT_TRUE(Database::open_existing(db, &database).ok());
  std::vector<RunRecord> runs;
  ASSERT_TRUE(database->list_runs(&runs).ok());
  ASSERT_EQ(runs.size(), 8u);
  std::set<std::string> shapes;
  for (const auto& r : runs) shapes.insert(r.shape);
  EXPECT_EQ(shapes.size(), 8u);
  EXPECT_TRUE(shapes.count("w4a16_gemv:14336x4096"));
}

// --start: a seed with parameter values, or the shipped library's kernel for
// the shape, evaluated after the seeds; bad values are usage errors before
// anything runs.
TEST(CliTest, RunStartsFromGivenParametersAndTheLibrary) {
  const std::string db = test::temp_path("start-run.db");
  std::remove(db.c_str());
  const std::string manifest = test::source_dir() + "/kernels/w4a16_gemv/generated/MANIFEST.json";
  Outcome o = kopt_cli({"run", "--shape", "7168x9216", "--budget", "8", "--db", db, "--start",
                        "gen:XBITS=16,ROWS=4", "--start", manifest, "--start", "dot"},
                       fake_worker());
  ASSERT_EQ(o.code, 0) << o.output;
  std::unique_ptr<Database> database;
  ASSERT_TRUE(Database::open_existing(db, &database).ok());
  std::vector<CandidateRecord> cands;
  ASSERT_TRUE(database->candidates_of_run(1, &cands).ok());
  std::vector<CandidateRecord> starts;
  for (const auto& c : cands)
    if (c.proposer == "start") starts.push_back(c);
  // The manifest's kernels for the shape (one per target it ships for), in
  // its order; "dot" alone is the dot seed itself: not evaluated twice.
  std::ifstream mf(manifest);
  const nlohmann::json doc = nlohmann::json::parse(mf);
  std::vector<nlohmann::json> shipped;
  for (const auto& e : doc["entries"])
    if (e["shape"] == "7168x9216") shipped.push_back(e);
  ASSERT_FALSE(shipped.empty());
  ASSERT_EQ(starts.size(), 1 + shipped.size()) << o.output;
  EXPECT_EQ(starts[0].name, "gen");
  EXPECT_EQ(nlohmann::json::parse(starts[0].params_json),
            nlohmann::json({{"ROWS", 4}, {"XBITS", 16}}));
  for (size_t i = 0; i < shipped.size(); ++i) {
    EXPECT_EQ(starts[1 + i].name, shipped[i]["name"]);
    EXPECT_EQ(nlohmann::json::parse(starts[1 + i].params_json), shipped[i]["params"]);
  }

  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--start", "nope"},
                                              {"--start", "gen:ROWS=5"},
                                              {"--start", "gen:ROWS"},
                                              {"--start", "gen:ROWS=2x"},
                                              {"--start", "/nonexistent.json"}}) {
    std::vector<std::string> args = {"run", "--shape", "7168x9216", "--budget", "8", "--db", db};
    args.insert(args.end(), bad.begin(), bad.end());
    Outcome b = kopt_cli(args, fake_worker());
    EXPECT_EQ(b.code, 2) << bad[1] << ": " << b.output;
    EXPECT_NE(b.output.find("kopt run:"), std::string::npos) << b.output;
  }
  Outcome r = kopt_cli({"run", "--resume", "1", "--budget", "9", "--db", db, "--start", "dot"},
                       fake_worker());
  EXPECT_EQ(r.code, 2) << r.output;
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
  EXPECT_EQ(
      kopt_cli({"bench", "--shape", "5120x256", "--tuned", "/nonexistent/MANIFEST.json"}).code,
      kExitUsage);
}

// The shipped manifest and its generated files are readable as a column.
TEST(CliTest, BenchAcceptsTheShippedManifest) {
  std::string why;
  if (test::gpu_available(&why)) GTEST_SKIP() << "this machine has a GPU: the bench would run";
  Outcome o = kopt_cli({"bench", "--suite", "contest", "--tuned",
                        test::source_dir() + "/kernels/w4a16_gemv/generated/MANIFEST.json"});
  EXPECT_EQ(o.code, kExitNoDevice) << o.output;
}

// --read-only adds the yardstick column, its sum and each best kernel's
// share of its speed; the yardstick is never the "best kopt" kernel.
TEST(CliTest, BenchReadOnlyColumn) {
  Outcome o = kopt_cli(
      {"bench", "--shape", "4096x7168", "--shape", "512x7168", "--seeds", "dot", "--read-only"},
      fake_worker());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("| read-only µs |"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("% of read-only speed"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("| dot | 5.00 |"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("100.0% |"), std::string::npos) << o.output;  // the fake's 5 us both
  EXPECT_NE(o.output.find("read-only kernel (reads every shape's bytes, computes nothing), "
                          "summed: 10.00 us; kopt's score is 100.0% of its speed"),
            std::string::npos)
      << o.output;
}

// --param sets a parameter of the seeds that declare it, to a number or to
// a shape variable: klanes at its row capacity MR = M on every batched
// shape; rows (no MR) at its defaults; a value that is neither, one line.
TEST(CliTest, BenchParamTakesAShapeVariable) {
  const std::string json = test::temp_path("bench-param.json");
  Outcome o =
      kopt_cli({"bench", "--problem", "w4a16_batch", "--shape", "8x512x256", "--shape", "2x512x256",
                "--seeds", "klanes", "--seeds", "rows", "--param", "MR=M", "--json", json},
               fake_worker());
  ASSERT_EQ(o.code, 0) << o.output;
  std::ifstream f(json);
  const nlohmann::json results = nlohmann::json::parse(f, nullptr, false);
  ASSERT_TRUE(results.is_object() || results.is_array()) << o.output;
  const nlohmann::json& rows = results.is_object() ? results["results"] : results;
  std::map<std::string, nlohmann::json> params;
  for (const auto& r : rows)
    params[r.value("column", std::string()) + " " + r.value("shape", std::string())] = r["params"];
  EXPECT_EQ(params["klanes w4a16_batch:8x512x256"], (nlohmann::json{{"MR", 8}})) << rows.dump();
  EXPECT_EQ(params["klanes w4a16_batch:2x512x256"], (nlohmann::json{{"MR", 2}}));
  EXPECT_EQ(params["rows w4a16_batch:8x512x256"], nlohmann::json::object());
  o = kopt_cli({"bench", "--problem", "w4a16_batch", "--shape", "8x512x256", "--seeds", "klanes",
                "--param", "MR=Q"},
               fake_worker());
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.output.find("kopt bench: --param MR=Q: the value is neither a number nor a variable"),
            std::string::npos)
      << o.output;
}

TEST(CliTest, NoGpuIsExitThreeWithAClearLine) {
  std::string why;
  if (test::gpu_available(&why)) GTEST_SKIP() << "this machine has a GPU";
  Outcome o = kopt_cli({"run", "--shape", "5120x256", "--db", test::temp_path("nogpu.db")});
  EXPECT_EQ(o.code, kExitNoDevice) << o.output;
  EXPECT_NE(o.output.find("no GPU"), std::string::npos);
  // The worker's reply says no device (not a message that happens to read
  // "no GPU"), so run names what works without one.
  EXPECT_NE(o.output.find("`kopt demo` shows the loop without a GPU"), std::string::npos)
      << o.output;
  EXPECT_EQ(kopt_cli({"bench", "--shape", "5120x256"}).code, kExitNoDevice);
  EXPECT_EQ(kopt_cli({"doctor"}).code, kExitNoDevice);
}

// Without a GPU, `kopt eval` still says what the candidate needs on the
// tuning target: its registers and local memory (spills), from the
// compiler's report, beside the gfx906 check's.
TEST(CliTest, EvalWithoutAGpuReportsTheTargetsRegisters) {
  std::string why;
  if (test::gpu_available(&why)) GTEST_SKIP() << "this machine has a GPU";
  Outcome o = kopt_cli({"eval", test::source_dir() + "/seeds/w4a16_batch/xrows.hip", "--problem",
                        "w4a16_batch", "--shape", "4x5120x3072", "--no-time"});
  EXPECT_EQ(o.code, kExitNoDevice) << o.output;
  EXPECT_NE(o.output.find("nothing was run"), std::string::npos) << o.output;
  const std::string line = "  sm_90: ";
  const size_t at = o.output.find(line);
  ASSERT_NE(at, std::string::npos) << o.output;
  const int registers = std::atoi(o.output.c_str() + at + line.size());
  EXPECT_GT(registers, 0) << o.output;
  EXPECT_LE(registers, 255) << o.output;
  EXPECT_NE(o.output.find(" B local (spills)", at), std::string::npos) << o.output;
}

// The verbs that only read never create or change a database, and agree on
// what an empty one means: a line saying nothing is recorded, exit 0.
TEST(CliTest, ReadOnlyVerbsWriteNothing) {
  const std::string missing = test::temp_path("missing.db");
  EXPECT_EQ(kopt_cli({"check-amd", "--db", missing}).code, kExitUsage);
  EXPECT_NE(access(missing.c_str(), F_OK), 0) << "check-amd created the database";
  EXPECT_EQ(
      kopt_cli({"export", "--db", missing, "--suite", "contest", "--out", test::temp_path("out")})
          .code,
      kExitUsage);
  EXPECT_NE(access(missing.c_str(), F_OK), 0) << "export created the database";
  EXPECT_EQ(kopt_cli({"db", "runs", "--db", missing}).code, kExitUsage);
  EXPECT_NE(access(missing.c_str(), F_OK), 0);

  const std::string empty = test::temp_path("empty.db");
  std::ofstream(empty).close();
  for (const char* verb : {"runs", "list", "best", "failures"}) {
    Outcome o = kopt_cli({"db", verb, "--db", empty});
    EXPECT_EQ(o.code, kExitOk) << verb << ": " << o.output;
  }
  EXPECT_NE(kopt_cli({"db", "list", "--db", empty}).output.find("no runs"), std::string::npos);
  EXPECT_NE(kopt_cli({"db", "best", "--db", empty}).output.find("no verified candidate"),
            std::string::npos);
  std::ifstream f(empty, std::ios::ate);
  EXPECT_EQ(f.tellg(), 0) << "a read-only verb wrote into an empty file";
}

TEST(CliTest, ResumeChecksTheRunAndTakesANewBudget) {
  const std::string db = test::temp_path("resume.db"), env = fake_worker();
  ASSERT_EQ(
      kopt_cli({"run", "--shape", "5120x256", "--budget", "10", "--db", db, "--seed", "3"}, env)
          .code,
      kExitOk);
  Outcome o = kopt_cli({"run", "--resume", "99", "--db", db}, env);
  EXPECT_EQ(o.code, kExitUsage) << o.output;
  EXPECT_NE(o.output.find("no run 99"), std::string::npos) << o.output;
  o = kopt_cli({"run", "--resume", "1", "--budget", "8", "--db", db}, env);
  EXPECT_EQ(o.code, kExitUsage) << o.output;
  EXPECT_NE(o.output.find("already has 10"), std::string::npos) << o.output;
  o = kopt_cli({"run", "--resume", "1", "--budget", "14", "--db", db}, env);
  EXPECT_EQ(o.code, kExitOk) << o.output;
  std::unique_ptr<Database> d;
  ASSERT_TRUE(Database::open(db, &d).ok());
  std::vector<CandidateRecord> cs;
  ASSERT_TRUE(d->candidates_of_run(1, &cs).ok());
  EXPECT_EQ(cs.size(), 14u);
}

TEST(CliTest, DemoRunsTheLoopOnTheHostFake) {
  const std::string db = test::temp_path("demo.db");
  Outcome o = kopt_cli({"demo", "--budget", "6", "--db", db});
  ASSERT_EQ(o.code, kExitOk) << o.output;
  EXPECT_NE(o.output.find("simulated"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("finished: budget"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("kopt db lineage"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("host demo"), std::string::npos)
      << o.output;  // the device every row names
}

// With a (fake) GPU: a run, the browser over it, and an unreachable model.
TEST(CliTest, RunBrowseAndAnUnreachableModel) {
  const std::string db = test::temp_path("run.db"), env = fake_worker();
  Outcome o =
      kopt_cli({"run", "--shape", "5120x256", "--budget", "12", "--db", db, "--seed", "3"}, env);
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
  std::ofstream(cfg)
      << "[run]\nbatch = 2\n[[models]]\nname = \"down\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"
         "retries = 1\ntimeout_s = 5\n";
  o = kopt_cli({"run", "--shape", "5120x256", "--budget", "30", "--db", db, "--model", "down",
                "--no-mutator", "--config", cfg},
               env);
  EXPECT_EQ(o.code, kExitProposers) << o.output;
  // The reason and the endpoint from the first failure; set aside after three.
  EXPECT_NE(o.output.find("model_unreachable — model endpoint http://127.0.0.1:1/v1 unreachable"),
            std::string::npos)
      << o.output;
  EXPECT_NE(o.output.find("every model endpoint is unreachable"), std::string::npos) << o.output;
  // The reason is said where it first happened and in the closing line, not
  // on every failure of the streak.
  size_t said = 0;
  for (size_t at = o.output.find("Couldn't connect"); at != std::string::npos;
       at = o.output.find("Couldn't connect", at + 1))
    ++said;
  EXPECT_LE(said, 2u) << o.output;
  EXPECT_NE(o.output.find("again (2 in a row)"), std::string::npos) << o.output;
  o = kopt_cli({"db", "failures", "--db", db, "--run", "2"});
  EXPECT_NE(o.output.find("model_unreachable"), std::string::npos);
  // The first run is intact.
  o = kopt_cli({"db", "list", "--db", db, "--run", "1"});
  EXPECT_NE(o.output.find("ok 5.00 us"), std::string::npos) << o.output;
}

// The demo database's tables fit 120 columns; seeds and children show every
// parameter the same way; the seeds' share of the budget is said; the last
// progress line is not printed twice.
TEST(CliTest, DemoTablesFitAndSayEveryParameter) {
  const std::string db = test::temp_path("tables.db");
  const Outcome demo = kopt_cli({"demo", "--budget", "7", "--db", db, "--seed", "5"});
  ASSERT_EQ(demo.code, kExitOk) << demo.output;
  EXPECT_NE(demo.output.find("5 seeds and starting points come first: 5 of the budget of 7, 2 left "
                             "for proposals"),
            std::string::npos)
      << demo.output;
  EXPECT_EQ(demo.output.find("[7/7]"), demo.output.rfind("[7/7]")) << demo.output;
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"db", "runs"},
                                             {"db", "list"},
                                             {"db", "best"},
                                             {"db", "lineage", "6"},
                                             {"db", "failures"}}) {
    std::vector<std::string> full = args;
    full.insert(full.end(), {"--db", db});
    const Outcome o = kopt_cli(full);
    ASSERT_EQ(o.code, kExitOk) << o.output;
    std::istringstream lines(o.output);
    for (std::string line; std::getline(lines, line);) {
      size_t width = 0;  // characters, not bytes
      for (unsigned char ch : line) width += (ch & 0xC0) != 0x80;
      EXPECT_LE(width, 120u) << args[1] << ": " << line;
    }
  }
  const Outcome best = kopt_cli({"db", "best", "--db", db});
  // Seeds spell out their defaults as children do; one device line.
  EXPECT_NE(best.output.find("WARPS=4"), std::string::npos) << best.output;
  EXPECT_EQ(best.output.find("{}"), std::string::npos) << best.output;
  EXPECT_EQ(best.output.rfind("device: host demo", 0), 0u) << best.output;
  EXPECT_EQ(best.output.find("host demo"), best.output.rfind("host demo")) << best.output;
}

// A file is checked with its own problem's device helpers: a W8A16 seed
// copied anywhere is still a W8A16 seed; a file of no problem says which
// problem it was built as.
TEST(CliTest, CheckAmdTakesTheProblemFromTheFile) {
  if (!AmdToolchain::find().available()) GTEST_SKIP() << "no clang++-15 with ROCm device libraries";
  const std::string copy = test::temp_path("w8a16_vec.hip");
  std::ofstream(copy) << test::read_source_file("seeds/w8a16_gemv/vec.hip");
  Outcome o = kopt_cli({"check-amd", copy});
  EXPECT_EQ(o.code, kExitOk) << o.output;
  EXPECT_NE(o.output.find("0 B scratch"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("checked as"), std::string::npos) << o.output;
  const std::string other = test::temp_path("other.hip");
  std::string naive = test::read_source_file("seeds/w4a16_gemv/naive.hip");
  std::ofstream(other) << naive << "\n// changed\n";
  o = kopt_cli({"check-amd", other});
  EXPECT_EQ(o.code, kExitOk) << o.output;
  EXPECT_NE(o.output.find("checked as w4a16_gemv, the default problem: give --problem ID"),
            std::string::npos)
      << o.output;
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
    run.shape = "w4a16_gemv:5120x256";
    run.config_json = "{}";
    run.status = "done";
    ASSERT_TRUE(db->create_run(&run).ok());
    CandidateRecord c;
    c.run_id = run.id;
    c.name = "splitk";
    c.source = find_seed(test::w4a16_problem(), "splitk")->source;
    c.params_json = "{\"SPLIT\":4}";
    c.key = "k";
    ASSERT_TRUE(db->add_candidate(&c).ok());
    EvaluationRecord e =
        test::evaluation_of(c, run.shape, "NVIDIA H100", "ok", 5.0,
                            {{"amd", {{"checked", false}, {"note", "not checked"}}}});
    ASSERT_TRUE(db->add_evaluation(&e).ok());
    eval_id = e.id;
  }
  Outcome o = kopt_cli({"check-amd", "--db", path});
  EXPECT_EQ(o.code, kExitOk) << o.output;
  EXPECT_NE(o.output.find("1 build(s) (candidate and shape) checked"), std::string::npos)
      << o.output;
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(path, &db).ok());
  std::vector<EvaluationRecord> evals;
  ASSERT_TRUE(db->evaluations_of(1, &evals).ok());
  ASSERT_EQ(evals.size(), 1u);
  EXPECT_EQ(evals[0].id, eval_id);
  auto details = nlohmann::json::parse(evals[0].record_json);
  // Written back into the record's targets, gfx906's entry.
  EXPECT_TRUE(details["targets"]["gfx906"]["checked"].get<bool>());
  EXPECT_GT(details["targets"]["gfx906"]["registers"].get<int>(), 0);
  EXPECT_TRUE(evals[0].may_ship);
  EXPECT_EQ(kopt_cli({"check-amd"}).code, kExitUsage);
}

}  // namespace
}  // namespace kopt
