// The schema's migrations, in order (db/migrations.h).
#include "db/migrations.h"

#include <iterator>

#include "db/database.h"

namespace kopt {

namespace {

// Migrations, in order: entry i brings the schema from version i to i + 1.
// Append only; never edit a released step.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  shape TEXT NOT NULL,
  config_json TEXT NOT NULL,
  proposers TEXT NOT NULL,
  budget_candidates INTEGER NOT NULL,
  budget_seconds REAL NOT NULL,
  budget_tokens INTEGER NOT NULL,
  status TEXT NOT NULL,
  started_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  elapsed_seconds REAL NOT NULL DEFAULT 0,
  tokens_used INTEGER NOT NULL DEFAULT 0,
  cost REAL NOT NULL DEFAULT 0,
  seed INTEGER NOT NULL);
CREATE TABLE candidates(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  key TEXT NOT NULL,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  params_json TEXT NOT NULL,
  parents TEXT NOT NULL,
  proposer TEXT NOT NULL,
  model TEXT NOT NULL,
  prompt TEXT NOT NULL,
  answer TEXT NOT NULL,
  generation INTEGER NOT NULL,
  created_at TEXT NOT NULL);
CREATE INDEX candidates_run ON candidates(run_id);
CREATE INDEX candidates_key ON candidates(key);
CREATE TABLE evaluations(
  id INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  run_id INTEGER NOT NULL,
  candidate_key TEXT NOT NULL,
  shape TEXT NOT NULL,
  device TEXT NOT NULL,
  driver TEXT NOT NULL,
  compiler TEXT NOT NULL,
  flags TEXT NOT NULL,
  verdict TEXT NOT NULL,
  stage TEXT NOT NULL,
  message TEXT NOT NULL,
  log TEXT NOT NULL,
  dataset TEXT NOT NULL,
  first_bad_index INTEGER NOT NULL,
  expected REAL NOT NULL,
  got REAL NOT NULL,
  max_abs_error REAL NOT NULL,
  median_us REAL,
  min_us REAL NOT NULL,
  max_us REAL NOT NULL,
  spread_pct REAL NOT NULL,
  method TEXT NOT NULL,
  repetitions INTEGER NOT NULL,
  gbps REAL NOT NULL,
  fraction_of_read_bw REAL NOT NULL,
  details_json TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE INDEX evaluations_lookup ON evaluations(candidate_key, shape, device);
CREATE INDEX evaluations_best ON evaluations(shape, verdict, median_us);
CREATE INDEX evaluations_candidate ON evaluations(candidate_id);
CREATE TABLE attempts(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  proposer TEXT NOT NULL,
  model TEXT NOT NULL,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  prompt TEXT NOT NULL,
  answer TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE INDEX attempts_run ON attempts(run_id);
)sql",
    // 1 -> 2: hardware-counter profiles of the candidates the search builds on.
    R"sql(
CREATE TABLE profiles(
  id INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  shape TEXT NOT NULL,
  device TEXT NOT NULL,
  tool TEXT NOT NULL,
  status TEXT NOT NULL,
  summary TEXT NOT NULL,
  json TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE INDEX profiles_candidate ON profiles(candidate_id);
)sql",
    // 2 -> 3: problems are plug-ins; a shape is stored as its key
    // "problem:shape". Every shape before this version was a W4A16 GEMV one.
    R"sql(
UPDATE runs SET shape = 'w4a16_gemv:' || shape WHERE instr(shape, ':') = 0;
UPDATE evaluations SET shape = 'w4a16_gemv:' || shape WHERE instr(shape, ':') = 0;
UPDATE profiles SET shape = 'w4a16_gemv:' || shape WHERE instr(shape, ':') = 0;
)sql",  // 3 -> 4: one evaluation record. An evaluation is stored whole, as the
    // sandbox's JSON of its result (sandbox/contract/evaluation.h), with what is
    // queried as columns generated from it; may_ship holds the answer of
    // kopt::may_ship (NULL: not yet decided; filled in on open).
    R"sql(
CREATE TABLE evaluations_v4(
  id INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  run_id INTEGER NOT NULL,
  candidate_key TEXT NOT NULL,
  record TEXT NOT NULL CHECK (json_valid(record)),
  may_ship INTEGER,
  created_at TEXT NOT NULL,
  shape TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.shape'), '')) VIRTUAL,
  device TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.device.name'), '')) VIRTUAL,
  driver TEXT GENERATED ALWAYS AS
    (CAST(COALESCE(json_extract(record, '$.device.driver_version'), 0) AS TEXT)) VIRTUAL,
  compiler TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.device.compiler'), ''))
    VIRTUAL,
  flags TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.compile_flags'), '')) VIRTUAL,
  verdict TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.verdict'), '')) VIRTUAL,
  stage TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.stage'), '')) VIRTUAL,
  message TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.message'), '')) VIRTUAL,
  log TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.log'), '')) VIRTUAL,
  dataset TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.dataset'), '')) VIRTUAL,
  first_bad_index INTEGER GENERATED ALWAYS AS
    (COALESCE(json_extract(record, '$.first_bad_index'), -1)) VIRTUAL,
  expected REAL GENERATED ALWAYS AS (json_extract(record, '$.expected')) VIRTUAL,
  got REAL GENERATED ALWAYS AS (json_extract(record, '$.got')) VIRTUAL,
  max_abs_error REAL GENERATED ALWAYS AS (json_extract(record, '$.max_abs_error')) VIRTUAL,
  median_us REAL GENERATED ALWAYS AS (json_extract(record, '$.timing.median_us')) VIRTUAL,
  min_us REAL GENERATED ALWAYS AS (json_extract(record, '$.timing.min_us')) VIRTUAL,
  max_us REAL GENERATED ALWAYS AS (json_extract(record, '$.timing.max_us')) VIRTUAL,
  spread_pct REAL GENERATED ALWAYS AS (json_extract(record, '$.timing.spread_pct')) VIRTUAL,
  method TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.timing.method'), '')) VIRTUAL,
  repetitions INTEGER GENERATED ALWAYS AS
    (COALESCE(json_extract(record, '$.timing.repetitions'), 0)) VIRTUAL,
  gbps REAL GENERATED ALWAYS AS (json_extract(record, '$.timing.gbps')) VIRTUAL,
  fraction_of_read_bw REAL GENERATED ALWAYS AS
    (json_extract(record, '$.timing.fraction_of_read_bw')) VIRTUAL);
INSERT INTO evaluations_v4(id, candidate_id, run_id, candidate_key, record, may_ship, created_at)
SELECT id, candidate_id, run_id, candidate_key,
  CASE WHEN median_us IS NULL THEN base ELSE json_set(base,
    '$.timing.median_us', median_us, '$.timing.min_us', min_us, '$.timing.max_us', max_us,
    '$.timing.spread_pct', spread_pct, '$.timing.method', method,
    '$.timing.repetitions', repetitions, '$.timing.gbps', gbps,
    '$.timing.fraction_of_read_bw', fraction_of_read_bw) END,
  NULL, created_at
FROM (SELECT *, json_set(CASE WHEN json_valid(details_json) AND json_type(details_json) = 'object'
                              THEN details_json ELSE '{}' END,
    '$.shape', shape, '$.verdict', verdict, '$.stage', stage, '$.message', message,
    '$.log', log, '$.dataset', dataset, '$.first_bad_index', first_bad_index,
    '$.expected', expected, '$.got', got, '$.max_abs_error', max_abs_error,
    '$.compile_flags', flags, '$.device.name', device,
    '$.device.driver_version', CAST(driver AS INTEGER), '$.device.compiler', compiler) AS base
  FROM evaluations);
DROP TABLE evaluations;
ALTER TABLE evaluations_v4 RENAME TO evaluations;
CREATE INDEX evaluations_lookup ON evaluations(candidate_key, shape, device);
CREATE INDEX evaluations_best ON evaluations(shape, verdict, median_us);
CREATE INDEX evaluations_candidate ON evaluations(candidate_id);
)sql",
    // 4 -> 5: the orchestrator's own stages of a run (proposing, the
    // evaluation rounds, re-measurement, profiling...), for its timeline.
    R"sql(
CREATE TABLE run_stages(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  generation INTEGER NOT NULL,
  stage TEXT NOT NULL,
  started_s REAL NOT NULL,
  seconds REAL NOT NULL,
  requests INTEGER NOT NULL);
CREATE INDEX run_stages_run ON run_stages(run_id);
)sql",
};

static_assert(std::size(kMigrations) == kSchemaVersion, "one migration per schema version");

}  // namespace

const char* schema_migration(int from_version) { return kMigrations[from_version]; }

}  // namespace kopt
