#include "db/database.h"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

#include "db/migrations.h"
#include "db/rows.h"
#include "db/statement.h"
#include "sandbox/contract/evaluation.h"

namespace kopt {

namespace {

// Every row of a query with one integer parameter, read by `read`.
template <typename Record, typename Reader>
Status collect(sqlite3* db, const std::string& sql, int64_t id, Reader read,
               std::vector<Record>* out) {
  out->clear();
  Statement s(db, sql.c_str());
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(id);
  while (s.step() == SQLITE_ROW) out->push_back(read(s));
  return Status();
}

CandidateRecord read_candidate_row(const Statement& s) { return read_candidate(s); }
EvaluationRecord read_evaluation_row(const Statement& s) { return read_evaluation(s); }

}  // namespace

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Database::~Database() {
  if (db_) sqlite3_close(db_);
}

Status Database::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return Status::error("database: " + msg);
  }
  return Status();
}

Status Database::open(const std::string& path, std::unique_ptr<Database>* out) {
  std::unique_ptr<Database> d(new Database());
  if (sqlite3_open_v2(path.c_str(), &d->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK)
    return Status::error("cannot open database " + path + ": " +
                         (d->db_ ? sqlite3_errmsg(d->db_) : "out of memory"));
  sqlite3_busy_timeout(d->db_, 5000);
  // WAL: readers (kopt db) never block the writer (kopt run), and a killed
  // writer leaves every committed transaction intact.
  Status s = d->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
  if (!s.ok()) return Status::error(path + " is not a usable kopt database (" + s.message() + ")");
  s = d->migrate();
  if (!s.ok()) return Status::error(path + ": " + s.message());
  *out = std::move(d);
  return Status();
}

Status Database::open_existing(const std::string& path, std::unique_ptr<Database>* out) {
  if (access(path.c_str(), R_OK) != 0) return Status::error("no database at " + path);
  int64_t version = 0, tables = 0;
  {
    std::unique_ptr<Database> d(new Database());
    if (sqlite3_open_v2(path.c_str(), &d->db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      return Status::error("cannot open database " + path + ": " +
                           (d->db_ ? sqlite3_errmsg(d->db_) : "out of memory"));
    sqlite3_busy_timeout(d->db_, 5000);
    Statement v(d->db_, "PRAGMA user_version");
    if (!v.prepared().ok() || v.step() != SQLITE_ROW)
      return Status::error(path + " is not a usable kopt database (" + sqlite3_errmsg(d->db_) +
                           ")");
    version = v.integer(0);
    Statement t(d->db_, "SELECT count(*) FROM sqlite_master WHERE type='table'");
    if (t.prepared().ok() && t.step() == SQLITE_ROW) tables = t.integer(0);
  }
  if (version == 0 && tables > 0)
    return Status::error(path + ": not a kopt database (unknown tables)");
  // An empty file: answer from an in-memory schema and write nothing to it.
  if (version == 0) return open(":memory:", out);
  return open(path, out);
}

Status Database::migrate() {
  int64_t version = 0;
  {
    // Finalised before migrating: an open statement locks the tables a
    // migration drops.
    Statement v(db_, "PRAGMA user_version");
    KOPT_RETURN_IF_ERROR(v.prepared());
    if (v.step() != SQLITE_ROW) return Status::error("cannot read the schema version");
    version = v.integer(0);
  }
  if (version > kSchemaVersion)
    return Status::error("database schema version " + std::to_string(version) +
                         " is newer than this kopt supports (" + std::to_string(kSchemaVersion) +
                         "); use a newer kopt");
  if (version == 0) {
    // A version-0 file must be empty: refuse to take over someone else's tables.
    Statement t(db_, "SELECT count(*) FROM sqlite_master WHERE type='table'");
    KOPT_RETURN_IF_ERROR(t.prepared());
    if (t.step() == SQLITE_ROW && t.integer(0) > 0)
      return Status::error("not a kopt database (unknown tables)");
  }
  for (int64_t i = version; i < kSchemaVersion; ++i) {
    KOPT_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
    Status s = exec(schema_migration(static_cast<int>(i)));
    if (s.ok()) s = exec("PRAGMA user_version=" + std::to_string(i + 1));
    if (!s.ok()) {
      exec("ROLLBACK");
      return s;
    }
    KOPT_RETURN_IF_ERROR(exec("COMMIT"));
  }
  // Evaluations migrated from before the decision was stored get it now
  // (every later one is stored with it).
  return version < 4 ? decide_unshipped() : Status();
}

Status Database::create_run(RunRecord* r) {
  r->started_at = r->updated_at = now_utc();
  Statement s(db_,
              "INSERT INTO runs(shape, config_json, proposers, budget_candidates, budget_seconds, "
              "budget_tokens, status, "
              "started_at, updated_at, elapsed_seconds, tokens_used, cost, seed) "
              "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(r->shape)
      .bind(r->config_json)
      .bind(r->proposers)
      .bind(r->budget_candidates)
      .bind(r->budget_seconds)
      .bind(r->budget_tokens)
      .bind(r->status)
      .bind(r->started_at)
      .bind(r->updated_at)
      .bind(r->elapsed_seconds)
      .bind(r->tokens_used)
      .bind(r->cost)
      .bind(static_cast<int64_t>(r->seed));
  KOPT_RETURN_IF_ERROR(s.done());
  r->id = sqlite3_last_insert_rowid(db_);
  return Status();
}

Status Database::update_run(const RunRecord& r) {
  Statement s(db_,
              "UPDATE runs SET status=?, updated_at=?, elapsed_seconds=?, tokens_used=?, cost=?, "
              "budget_candidates=?, "
              "budget_seconds=?, budget_tokens=? WHERE id=?");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(r.status)
      .bind(now_utc())
      .bind(r.elapsed_seconds)
      .bind(r.tokens_used)
      .bind(r.cost)
      .bind(r.budget_candidates)
      .bind(r.budget_seconds)
      .bind(r.budget_tokens)
      .bind(r.id);
  return s.done();
}

Status Database::get_run(int64_t id, RunRecord* out) {
  Statement s(db_, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id=?").c_str());
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(id);
  if (s.step() != SQLITE_ROW) return Status::error("no run " + std::to_string(id));
  *out = read_run(s);
  return Status();
}

Status Database::list_runs(std::vector<RunRecord>* out) {
  out->clear();
  Statement s(db_, (std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id").c_str());
  KOPT_RETURN_IF_ERROR(s.prepared());
  while (s.step() == SQLITE_ROW) out->push_back(read_run(s));
  return Status();
}

Status Database::add_candidate(CandidateRecord* c) {
  c->created_at = now_utc();
  if (!c->parsed) c->parsed = enter_candidate(c->source, params_from_json(c->params_json));
  Statement s(db_,
              "INSERT INTO candidates(run_id, key, name, source, params_json, parents, proposer, "
              "model, prompt, answer, "
              "generation, created_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(c->run_id)
      .bind(c->key)
      .bind(c->name)
      .bind(c->source)
      .bind(c->params_json)
      .bind(join_ids(c->parents))
      .bind(c->proposer)
      .bind(c->model)
      .bind(c->prompt)
      .bind(c->answer)
      .bind(c->generation)
      .bind(c->created_at);
  KOPT_RETURN_IF_ERROR(s.done());
  c->id = sqlite3_last_insert_rowid(db_);
  return Status();
}

Status Database::get_candidate(int64_t id, CandidateRecord* out) {
  Statement s(db_,
              (std::string("SELECT ") + kCandidateColumns + " FROM candidates WHERE id=?").c_str());
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(id);
  if (s.step() != SQLITE_ROW) return Status::error("no candidate " + std::to_string(id));
  *out = read_candidate(s);
  return Status();
}

Status Database::candidates_of_run(int64_t run_id, std::vector<CandidateRecord>* out) {
  return collect(
      db_,
      std::string("SELECT ") + kCandidateColumns + " FROM candidates WHERE run_id=? ORDER BY id",
      run_id, read_candidate_row, out);
}

Status Database::unevaluated_candidates(int64_t run_id, std::vector<CandidateRecord>* out) {
  return collect(
      db_,
      std::string("SELECT ") + kCandidateColumns +
          " FROM candidates c WHERE run_id=? AND NOT EXISTS (SELECT 1 FROM evaluations e WHERE "
          "e.candidate_id=c.id) ORDER BY id",
      run_id, read_candidate_row, out);
}

namespace {

// The one decision whether an evaluation may ship (kopt::may_ship), from its
// stored record; -1 for a record that is not an evaluation's JSON.
int shipping_decision(const std::string& record) {
  const nlohmann::json j = nlohmann::json::parse(record, nullptr, false);
  if (!j.is_object() || !j.contains("verdict")) return -1;
  return may_ship(eval_result_from_json(j)) ? 1 : 0;
}

}  // namespace

Status Database::add_evaluation(EvaluationRecord* e) {
  const int ship = shipping_decision(e->record_json);
  if (ship < 0)
    return Status::error("an evaluation is stored as its result's JSON (with a verdict)");
  Statement s(db_,
              "INSERT INTO evaluations(candidate_id, run_id, candidate_key, record, may_ship, "
              "created_at) VALUES(?,?,?,?,?,?)");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(e->candidate_id)
      .bind(e->run_id)
      .bind(e->candidate_key)
      .bind(e->record_json)
      .bind(static_cast<int64_t>(ship))
      .bind(now_utc());
  KOPT_RETURN_IF_ERROR(s.done());
  const int64_t id = sqlite3_last_insert_rowid(db_);
  // Every other field as the database derives it from the record.
  Statement back(
      db_, (std::string("SELECT ") + kEvaluationColumns + " FROM evaluations WHERE id=?").c_str());
  KOPT_RETURN_IF_ERROR(back.prepared());
  back.bind(id);
  if (back.step() != SQLITE_ROW) return Status::error("the evaluation just stored is gone");
  *e = read_evaluation(back);
  return Status();
}

Status Database::decide_unshipped() {
  std::vector<std::pair<int64_t, std::string>> open;
  {
    Statement s(db_, "SELECT id, record FROM evaluations WHERE may_ship IS NULL");
    KOPT_RETURN_IF_ERROR(s.prepared());
    while (s.step() == SQLITE_ROW) open.emplace_back(s.integer(0), s.text(1));
  }
  if (open.empty()) return Status();
  KOPT_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  for (const auto& [id, record] : open) {
    Statement u(db_, "UPDATE evaluations SET may_ship=? WHERE id=?");
    Status st = u.prepared();
    if (st.ok()) {
      u.bind(static_cast<int64_t>(shipping_decision(record) == 1)).bind(id);
      st = u.done();
    }
    if (!st.ok()) {
      exec("ROLLBACK");
      return st;
    }
  }
  return exec("COMMIT");
}

Status Database::find_evaluation(const std::string& key, const std::string& shape,
                                 const std::string& device, std::optional<EvaluationRecord>* out) {
  out->reset();
  Statement s(
      db_, (std::string("SELECT ") + kEvaluationColumns +
            " FROM evaluations WHERE candidate_key=? AND shape=? AND device=? ORDER BY id LIMIT 1")
               .c_str());
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(key).bind(shape).bind(device);
  if (s.step() == SQLITE_ROW) *out = read_evaluation(s);
  return Status();
}

Status Database::evaluations_of(int64_t candidate_id, std::vector<EvaluationRecord>* out) {
  return collect(db_,
                 std::string("SELECT ") + kEvaluationColumns +
                     " FROM evaluations WHERE candidate_id=? ORDER BY id",
                 candidate_id, read_evaluation_row, out);
}

Status Database::update_evaluation_record(int64_t evaluation_id, const std::string& record_json) {
  const int ship = shipping_decision(record_json);
  if (ship < 0)
    return Status::error("an evaluation is stored as its result's JSON (with a verdict)");
  Statement s(db_, "UPDATE evaluations SET record=?, may_ship=? WHERE id=?");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(record_json).bind(static_cast<int64_t>(ship)).bind(evaluation_id);
  KOPT_RETURN_IF_ERROR(s.done());
  if (sqlite3_changes(db_) != 1)
    return Status::error("no evaluation " + std::to_string(evaluation_id));
  return Status();
}

Status Database::add_attempt(AttemptRecord* a) {
  a->created_at = now_utc();
  Statement s(
      db_,
      "INSERT INTO attempts(run_id, proposer, model, kind, message, prompt, answer, created_at) "
      "VALUES(?,?,?,?,?,?,?,?)");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(a->run_id)
      .bind(a->proposer)
      .bind(a->model)
      .bind(a->kind)
      .bind(a->message)
      .bind(a->prompt)
      .bind(a->answer)
      .bind(a->created_at);
  KOPT_RETURN_IF_ERROR(s.done());
  a->id = sqlite3_last_insert_rowid(db_);
  return Status();
}

Status Database::add_profile(ProfileRecord* p) {
  p->created_at = now_utc();
  Statement s(db_,
              "INSERT INTO profiles(candidate_id, shape, device, tool, status, summary, json, "
              "created_at) VALUES(?,?,?,?,?,?,?,?)");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(p->candidate_id)
      .bind(p->shape)
      .bind(p->device)
      .bind(p->tool)
      .bind(p->status)
      .bind(p->summary)
      .bind(p->json)
      .bind(p->created_at);
  KOPT_RETURN_IF_ERROR(s.done());
  p->id = sqlite3_last_insert_rowid(db_);
  return Status();
}

Status Database::add_run_stage(const RunStageRecord& r) {
  Statement s(db_,
              "INSERT INTO run_stages(run_id, generation, stage, started_s, seconds, requests) "
              "VALUES(?,?,?,?,?,?)");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(r.run_id)
      .bind(r.generation)
      .bind(r.stage)
      .bind(r.started_s)
      .bind(r.seconds)
      .bind(r.requests);
  return s.done();
}

Status Database::run_stages(int64_t run_id, std::vector<RunStageRecord>* out) {
  out->clear();
  Statement s(db_,
              "SELECT run_id, generation, stage, started_s, seconds, requests FROM run_stages "
              "WHERE run_id=? ORDER BY id");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(run_id);
  while (s.step() == SQLITE_ROW)
    out->push_back(
        RunStageRecord{s.integer(0), s.integer(1), s.text(2), s.real(3), s.real(4), s.integer(5)});
  return Status();
}

Status Database::profiles_of(int64_t candidate_id, std::vector<ProfileRecord>* out) {
  out->clear();
  Statement s(db_,
              "SELECT id, candidate_id, shape, device, tool, status, summary, json, created_at "
              "FROM profiles WHERE candidate_id=? ORDER BY id");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(candidate_id);
  while (s.step() == SQLITE_ROW) {
    ProfileRecord p;
    p.id = s.integer(0);
    p.candidate_id = s.integer(1);
    p.shape = s.text(2);
    p.device = s.text(3);
    p.tool = s.text(4);
    p.status = s.text(5);
    p.summary = s.text(6);
    p.json = s.text(7);
    p.created_at = s.text(8);
    out->push_back(std::move(p));
  }
  return Status();
}

Status Database::best(const std::string& shape, const std::string& device, int limit,
                      std::vector<BestRow>* out) {
  out->clear();
  // Per shape, the fastest candidates that could ship; ties go to the older
  // one. A candidate measured more than once (a new best is re-measured)
  // counts with its slowest measurement, and not at all if one of its
  // measurements failed: one lucky or flaky run does not make a best.
  static const std::string sql =
      "SELECT e.id, e.candidate_id, e.run_id, e.candidate_key, e.shape, e.device, e.driver, "
      "e.compiler, e.flags, "
      "e.verdict, e.stage, e.message, e.log, e.dataset, e.first_bad_index, e.expected, e.got, "
      "e.max_abs_error, "
      "e.median_us, e.min_us, e.max_us, e.spread_pct, e.method, e.repetitions, e.gbps, "
      "e.fraction_of_read_bw, "
      "e.record, e.created_at, e.may_ship, c.id, c.run_id, c.key, c.name, c.source, "
      "c.params_json, "
      "c.parents, c.proposer, "
      "c.model, c.prompt, c.answer, c.generation, c.created_at FROM evaluations e JOIN candidates "
      "c ON "
      "c.id = e.candidate_id WHERE e.verdict = 'ok' AND e.median_us IS NOT NULL AND (?1 = '' OR "
      "e.shape = ?1) AND "
      "(?2 = '' OR e.device = ?2) AND e.may_ship = 1 AND NOT EXISTS (SELECT 1 FROM evaluations s "
      "WHERE s.candidate_id = e.candidate_id AND "
      "s.shape = e.shape AND s.device = e.device AND (s.verdict != 'ok' OR s.median_us > "
      "e.median_us OR (s.median_us = e.median_us AND s.id > e.id))) "
      "ORDER BY e.shape, e.median_us, e.id";
  Statement s(db_, sql.c_str());
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(shape).bind(device);
  std::string last_shape;
  int taken = 0;
  while (s.step() == SQLITE_ROW) {
    BestRow row;
    row.evaluation = read_evaluation(s);
    row.candidate = read_candidate(s, 29);
    if (row.evaluation.shape != last_shape) {
      last_shape = row.evaluation.shape;
      taken = 0;
    }
    if (taken++ < limit) out->push_back(std::move(row));
  }
  return Status();
}

Status Database::failed_evaluations(int64_t run_id, int limit, std::vector<EvaluationRecord>* out) {
  out->clear();
  Statement s(db_, (std::string("SELECT ") + kEvaluationColumns +
                    " FROM evaluations WHERE verdict NOT IN ('ok', 'unsupported_shape') AND (?1 = "
                    "0 OR run_id = ?1) "
                    "ORDER BY id DESC LIMIT ?2")
                       .c_str());
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(run_id).bind(static_cast<int64_t>(limit));
  while (s.step() == SQLITE_ROW) out->push_back(read_evaluation(s));
  return Status();
}

Status Database::attempts(int64_t run_id, int limit, std::vector<AttemptRecord>* out) {
  out->clear();
  Statement s(
      db_,
      "SELECT id, run_id, proposer, model, kind, message, prompt, answer, created_at FROM attempts "
      "WHERE (?1 = 0 OR run_id = ?1) ORDER BY id DESC LIMIT ?2");
  KOPT_RETURN_IF_ERROR(s.prepared());
  s.bind(run_id).bind(static_cast<int64_t>(limit));
  while (s.step() == SQLITE_ROW) {
    AttemptRecord a;
    a.id = s.integer(0);
    a.run_id = s.integer(1);
    a.proposer = s.text(2);
    a.model = s.text(3);
    a.kind = s.text(4);
    a.message = s.text(5);
    a.prompt = s.text(6);
    a.answer = s.text(7);
    a.created_at = s.text(8);
    out->push_back(a);
  }
  return Status();
}

Status Database::lineage(int64_t candidate_id, std::vector<CandidateRecord>* out) {
  out->clear();
  int64_t id = candidate_id;
  // Bounded walk: a corrupt parent link can never loop forever.
  for (int depth = 0; id > 0 && depth < 10000; ++depth) {
    CandidateRecord c;
    KOPT_RETURN_IF_ERROR(get_candidate(id, &c));
    out->push_back(c);
    id = c.parents.empty() ? 0 : c.parents.front();
  }
  return Status();
}

}  // namespace kopt
