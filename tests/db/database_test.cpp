#include "db/database.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "tests/test_paths.h"

namespace kopt {
namespace {

RunRecord make_run() {
  RunRecord r;
  r.shape = "5120x256";
  r.config_json = "{}";
  r.proposers = "mutator";
  r.budget_candidates = 10;
  r.status = "running";
  r.seed = 7;
  return r;
}

CandidateRecord make_candidate(int64_t run_id, const std::string& key) {
  CandidateRecord c;
  c.run_id = run_id;
  c.key = key;
  c.name = "vec";
  c.source = "/* kopt: {} */ source " + key;
  c.params_json = "{\"ROWS\":2}";
  c.proposer = "mutator";
  return c;
}

EvaluationRecord make_eval(const CandidateRecord& c, const std::string& verdict,
                           std::optional<double> us,
                           const nlohmann::json& extra = nlohmann::json::object()) {
  return test::evaluation_of(c, "5120x256", "NVIDIA H200", verdict, us, extra);
}

TEST(DatabaseTest, StoresAndQueriesRunsCandidatesEvaluations) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("crud"), &db).ok());
  RunRecord run = make_run();
  ASSERT_TRUE(db->create_run(&run).ok());
  EXPECT_GT(run.id, 0);
  CandidateRecord a = make_candidate(run.id, "a"), b = make_candidate(run.id, "b"),
                  c = make_candidate(run.id, "c");
  ASSERT_TRUE(db->add_candidate(&a).ok());
  b.parents = {a.id};
  ASSERT_TRUE(db->add_candidate(&b).ok());
  c.parents = {b.id, a.id};
  ASSERT_TRUE(db->add_candidate(&c).ok());
  EvaluationRecord ea = make_eval(a, "ok", 5.0), eb = make_eval(b, "ok", 3.0),
                   ec =
                       make_eval(c, "wrong_result", std::nullopt,
                                 {{"message", "first wrong index 3"}, {"log", "compiler says hi"}});
  for (auto* e : {&ea, &eb, &ec}) ASSERT_TRUE(db->add_evaluation(e).ok());

  std::vector<BestRow> best;
  ASSERT_TRUE(db->best("5120x256", "", 5, &best).ok());
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].candidate.id, b.id);
  EXPECT_DOUBLE_EQ(*best[0].evaluation.median_us, 3.0);
  // Stored whole; the fields are the record's (generated columns).
  EXPECT_EQ(ec.verdict, "wrong_result");
  EXPECT_EQ(ec.message, "first wrong index 3");
  EXPECT_EQ(ec.log, "compiler says hi");
  EXPECT_FALSE(ec.median_us.has_value());
  EXPECT_FALSE(ec.may_ship);
  EXPECT_EQ(best[0].evaluation.device, "NVIDIA H200");

  // Faster kernels that spill on NVIDIA or do not build for gfx906 never
  // become best; one that only needs gfx906 scratch does (it ships for
  // NVIDIA, and the AMD library build leaves it out).
  CandidateRecord scratch = make_candidate(run.id, "scratch"),
                  spills = make_candidate(run.id, "spills"),
                  no_amd = make_candidate(run.id, "no-amd");
  ASSERT_TRUE(db->add_candidate(&scratch).ok());
  ASSERT_TRUE(db->add_candidate(&spills).ok());
  ASSERT_TRUE(db->add_candidate(&no_amd).ok());
  EvaluationRecord es = make_eval(
                       scratch, "ok", 2.0,
                       nlohmann::json::parse(R"({"amd": {"checked": true, "compiled": true,
                                    "scratch_bytes": 144}, "nvidia": {"local_bytes": 0}})")),
                   ep = make_eval(spills, "ok", 1.5,
                                  nlohmann::json::parse(R"({"amd": {"checked": false},
                                    "nvidia": {"local_bytes": 64}})")),
                   en = make_eval(no_amd, "ok", 1.0,
                                  nlohmann::json::parse(R"({"amd": {"checked": true,
                                    "compiled": false}, "nvidia": {"local_bytes": 0}})"));
  ASSERT_TRUE(db->add_evaluation(&es).ok());
  ASSERT_TRUE(db->add_evaluation(&ep).ok());
  ASSERT_TRUE(db->add_evaluation(&en).ok());
  ASSERT_TRUE(db->best("5120x256", "", 5, &best).ok());
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].candidate.id, scratch.id);
  EXPECT_EQ(best[1].candidate.id, b.id);

  // A candidate measured twice ranks with its slower measurement: a lucky
  // 0.5 us first run followed by 9 us does not lead.
  CandidateRecord lucky = make_candidate(run.id, "lucky");
  ASSERT_TRUE(db->add_candidate(&lucky).ok());
  EvaluationRecord first = make_eval(lucky, "ok", 0.5), again = make_eval(lucky, "ok", 9.0);
  ASSERT_TRUE(db->add_evaluation(&first).ok());
  ASSERT_TRUE(db->add_evaluation(&again).ok());
  ASSERT_TRUE(db->best("5120x256", "", 10, &best).ok());
  ASSERT_EQ(best[0].candidate.id, scratch.id);
  auto it = std::find_if(best.begin(), best.end(),
                         [&](const BestRow& r) { return r.candidate.id == lucky.id; });
  ASSERT_NE(it, best.end());
  EXPECT_DOUBLE_EQ(*it->evaluation.median_us, 9.0);
  EXPECT_EQ(std::count_if(best.begin(), best.end(),
                          [&](const BestRow& r) { return r.candidate.id == lucky.id; }),
            1);

  std::optional<EvaluationRecord> found;
  ASSERT_TRUE(db->find_evaluation("b", "5120x256", "NVIDIA H200", &found).ok());
  ASSERT_TRUE(found.has_value());
  ASSERT_TRUE(db->find_evaluation("b", "5120x256", "other GPU", &found).ok());
  EXPECT_FALSE(found.has_value());

  std::vector<EvaluationRecord> failed;
  ASSERT_TRUE(db->failed_evaluations(run.id, 10, &failed).ok());
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].log, "compiler says hi");

  std::vector<CandidateRecord> chain;
  ASSERT_TRUE(db->lineage(c.id, &chain).ok());
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[2].id, a.id);
  EXPECT_EQ(chain[0].parents, (std::vector<int64_t>{b.id, a.id}));

  AttemptRecord at;
  at.run_id = run.id;
  at.proposer = "llm";
  at.kind = "malformed_answer";
  at.message = "no code block";
  at.answer = "I think...";
  ASSERT_TRUE(db->add_attempt(&at).ok());
  std::vector<AttemptRecord> ats;
  ASSERT_TRUE(db->attempts(run.id, 10, &ats).ok());
  ASSERT_EQ(ats.size(), 1u);
  EXPECT_EQ(ats[0].answer, "I think...");

  // A record rewritten (gfx906 checked later) takes its shipping decision
  // with it: a kernel that does not build for gfx906 stops being shippable.
  EXPECT_TRUE(ea.may_ship);
  nlohmann::json rewritten = nlohmann::json::parse(ea.record_json);
  rewritten["amd"] = {{"checked", true}, {"compiled", false}};
  ASSERT_TRUE(db->update_evaluation_record(ea.id, rewritten.dump()).ok());
  std::vector<EvaluationRecord> updated;
  ASSERT_TRUE(db->evaluations_of(a.id, &updated).ok());
  EXPECT_EQ(nlohmann::json::parse(updated[0].record_json), rewritten);
  EXPECT_FALSE(updated[0].may_ship);
  EXPECT_EQ(*updated[0].median_us, 5.0);  // the generated columns follow the record
  EXPECT_FALSE(db->update_evaluation_record(999999, rewritten.dump()).ok());
  EXPECT_FALSE(db->update_evaluation_record(ea.id, "{}").ok());  // not an evaluation
  EvaluationRecord junk = make_eval(a, "ok", 1.0);
  junk.record_json = R"({"no verdict": true})";
  EXPECT_FALSE(db->add_evaluation(&junk).ok());

  CandidateRecord d = make_candidate(run.id, "d");
  ASSERT_TRUE(db->add_candidate(&d).ok());
  std::vector<CandidateRecord> pending;
  ASSERT_TRUE(db->unevaluated_candidates(run.id, &pending).ok());
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].id, d.id);
}

// A failing verdict may carry a timing (impossible_speed keeps its 0.1 us on
// purpose, input_modified one from before the change was seen); it never
// ranks, however fast, and neither does a candidate with one such record.
TEST(DatabaseTest, AFailingVerdictWithATimingNeverRanks) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("failing-timed"), &db).ok());
  RunRecord run = make_run();
  ASSERT_TRUE(db->create_run(&run).ok());
  CandidateRecord honest = make_candidate(run.id, "honest"),
                  cheat = make_candidate(run.id, "cheat"), mixed = make_candidate(run.id, "mixed");
  for (auto* c : {&honest, &cheat, &mixed}) ASSERT_TRUE(db->add_candidate(c).ok());
  const nlohmann::json timed_fail = nlohmann::json::parse(
      R"({"timing": {"median_us": 0.1, "min_us": 0.09, "max_us": 0.2}, "may_ship": true})");
  EvaluationRecord eh = make_eval(honest, "ok", 5.0),
                   ec = make_eval(cheat, "impossible_speed", 0.1, timed_fail),
                   em1 = make_eval(mixed, "ok", 0.5),
                   em2 = make_eval(mixed, "input_modified", 0.4, timed_fail);
  for (auto* e : {&eh, &ec, &em1, &em2}) ASSERT_TRUE(db->add_evaluation(e).ok());
  ASSERT_TRUE(ec.median_us.has_value()) << "the failing record keeps its timing";
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best("5120x256", "", 10, &best).ok());
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].candidate.id, honest.id);
}

TEST(DatabaseTest, RefusesNewerSchemaAndForeignFiles) {
  std::string path = test::temp_path("newer");
  {
    sqlite3* raw;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
  }
  std::unique_ptr<Database> db;
  Status s = Database::open(path, &db);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("newer"), std::string::npos) << s.message();

  std::string foreign = test::temp_path("foreign");
  {
    sqlite3* raw;
    ASSERT_EQ(sqlite3_open(foreign.c_str(), &raw), SQLITE_OK);
    sqlite3_exec(raw, "CREATE TABLE mine(x)", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
  }
  EXPECT_FALSE(Database::open(foreign, &db).ok());

  std::string garbage = test::temp_path("garbage");
  FILE* f = std::fopen(garbage.c_str(), "w");
  std::fputs("this is not sqlite at all, not even close, really", f);
  std::fclose(f);
  EXPECT_FALSE(Database::open(garbage, &db).ok());
}

TEST(DatabaseTest, ReopensAtTheCurrentVersion) {
  std::string path = test::temp_path("reopen");
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(path, &db).ok());
  RunRecord run = make_run();
  ASSERT_TRUE(db->create_run(&run).ok());
  db.reset();
  ASSERT_TRUE(Database::open(path, &db).ok());
  std::vector<RunRecord> runs;
  ASSERT_TRUE(db->list_runs(&runs).ok());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].seed, 7u);
}

// A writer killed with SIGKILL mid-stream: every committed record survives and
// the file opens cleanly.
TEST(DatabaseTest, SurvivesSigkillOfTheWriter) {
  std::string path = test::temp_path("kill");
  int64_t run_id;
  {
    std::unique_ptr<Database> db;
    ASSERT_TRUE(Database::open(path, &db).ok());
    RunRecord run = make_run();
    ASSERT_TRUE(db->create_run(&run).ok());
    run_id = run.id;
  }
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::unique_ptr<Database> db;
    if (!Database::open(path, &db).ok()) _exit(1);
    for (int i = 0;; ++i) {
      CandidateRecord c = make_candidate(run_id, "k" + std::to_string(i));
      if (!db->add_candidate(&c).ok()) _exit(2);
      EvaluationRecord e = make_eval(c, "ok", 1.0 + i);
      if (!db->add_evaluation(&e).ok()) _exit(3);
      if (i == 50) {
        char byte = 1;
        if (write(ready[1], &byte, 1) != 1) _exit(4);
      }
    }
  }
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  usleep(20000);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(path, &db).ok());
  std::vector<CandidateRecord> cs;
  ASSERT_TRUE(db->candidates_of_run(run_id, &cs).ok());
  EXPECT_GT(cs.size(), 50u);
  std::vector<CandidateRecord> pending;
  ASSERT_TRUE(db->unevaluated_candidates(run_id, &pending).ok());
  EXPECT_LE(pending.size(), 1u);  // at most the one in flight
  sqlite3* raw;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st;
  sqlite3_prepare_v2(raw, "PRAGMA integrity_check", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

// Profiles are kept per candidate, in order, with their status.
TEST(DatabaseTest, ProfilesRoundTrip) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("profiles-db"), &db).ok());
  RunRecord run;
  run.shape = "5120x256";
  ASSERT_TRUE(db->create_run(&run).ok());
  CandidateRecord c = make_candidate(run.id, "p");
  ASSERT_TRUE(db->add_candidate(&c).ok());
  ProfileRecord failed{0, c.id, "5120x256", "NVIDIA H100", "", "failed", "no permission", "{}", ""};
  ProfileRecord ok{0,
                   c.id,
                   "5120x256",
                   "NVIDIA H100",
                   "ncu",
                   "ok",
                   "memory-bound: DRAM 85%",
                   R"({"dram_pct": 85})",
                   ""};
  ASSERT_TRUE(db->add_profile(&failed).ok());
  ASSERT_TRUE(db->add_profile(&ok).ok());
  std::vector<ProfileRecord> back;
  ASSERT_TRUE(db->profiles_of(c.id, &back).ok());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].status, "failed");
  EXPECT_EQ(back[1].summary, "memory-bound: DRAM 85%");
  EXPECT_FALSE(back[1].created_at.empty());
}

// A database written before profiles existed (schema 1: the committed
// schema-2 file without its profiles table) gains the table on open, and
// its evaluations every later step, its rows untouched.
TEST(DatabaseTest, SchemaOneGainsProfilesOnOpen) {
  const std::string path = test::temp_path("schema1");
  {
    std::ifstream in(test::source_dir() + "/tests/db/data/schema2-demo.db", std::ios::binary);
    ASSERT_TRUE(in.good());
    std::ofstream(path, std::ios::binary) << in.rdbuf();
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(raw, "DROP TABLE profiles; PRAGMA user_version=1", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(raw);
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(path, &db).ok());
  RunRecord run;
  ASSERT_TRUE(db->get_run(1, &run).ok());
  EXPECT_EQ(run.shape, "w4a16_gemv:5120x256");
  std::vector<ProfileRecord> none;
  EXPECT_TRUE(db->profiles_of(1, &none).ok());
}

// A database written by the previous release (schema 2: a `kopt demo` run,
// committed as it was written) opens; its shapes become W4A16 keys, so its
// best candidates are found under the key the current kopt asks with.
TEST(DatabaseTest, ASchemaTwoFileOfThePreviousReleaseOpensWithShapeKeys) {
  const std::string path = test::temp_path("schema2.db");
  {
    std::ifstream in(test::source_dir() + "/tests/db/data/schema2-demo.db", std::ios::binary);
    ASSERT_TRUE(in.good());
    std::ofstream(path, std::ios::binary) << in.rdbuf();
  }
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open_existing(path, &db).ok());
  std::vector<RunRecord> runs;
  ASSERT_TRUE(db->list_runs(&runs).ok());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].shape, "w4a16_gemv:5120x256");
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best("w4a16_gemv:5120x256", "", 5, &best).ok());
  ASSERT_FALSE(best.empty());
  EXPECT_EQ(best[0].evaluation.shape, "w4a16_gemv:5120x256");
  // Each evaluation became one record with its fields and the shipping
  // decision taken on open.
  EXPECT_TRUE(best[0].evaluation.may_ship);
  const nlohmann::json record = nlohmann::json::parse(best[0].evaluation.record_json);
  EXPECT_EQ(record["verdict"], "ok");
  EXPECT_EQ(record["timing"]["median_us"].get<double>(), *best[0].evaluation.median_us);
  EXPECT_FALSE(best[0].evaluation.device.empty());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), kSchemaVersion);
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

}  // namespace
}  // namespace kopt
