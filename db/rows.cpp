// Database rows <-> records (internal to kopt_db): the column lists the
// queries select and the readers of one row.
#include "db/rows.h"

#include <sstream>

namespace kopt {

std::string join_ids(const std::vector<int64_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s;
}

std::vector<int64_t> split_ids(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(std::stoll(item));
  return out;
}

const char* const kRunColumns =
    "id, shape, config_json, proposers, budget_candidates, budget_seconds, budget_tokens, status, "
    "started_at, "
    "updated_at, elapsed_seconds, tokens_used, cost, seed";
RunRecord read_run(const Statement& s) {
  RunRecord r;
  r.id = s.integer(0);
  r.shape = s.text(1);
  r.config_json = s.text(2);
  r.proposers = s.text(3);
  r.budget_candidates = s.integer(4);
  r.budget_seconds = s.real(5);
  r.budget_tokens = s.integer(6);
  r.status = s.text(7);
  r.started_at = s.text(8);
  r.updated_at = s.text(9);
  r.elapsed_seconds = s.real(10);
  r.tokens_used = s.integer(11);
  r.cost = s.real(12);
  r.seed = static_cast<uint64_t>(s.integer(13));
  return r;
}

const char* const kCandidateColumns =
    "id, run_id, key, name, source, params_json, parents, proposer, model, prompt, answer, "
    "generation, created_at";
CandidateRecord read_candidate(const Statement& s, int offset) {
  CandidateRecord c;
  c.id = s.integer(offset + 0);
  c.run_id = s.integer(offset + 1);
  c.key = s.text(offset + 2);
  c.name = s.text(offset + 3);
  c.source = s.text(offset + 4);
  c.params_json = s.text(offset + 5);
  c.parents = split_ids(s.text(offset + 6));
  c.proposer = s.text(offset + 7);
  c.model = s.text(offset + 8);
  c.prompt = s.text(offset + 9);
  c.answer = s.text(offset + 10);
  c.generation = s.integer(offset + 11);
  c.created_at = s.text(offset + 12);
  // A stored candidate enters this process here.
  c.parsed = enter_candidate(c.source, params_from_json(c.params_json));
  return c;
}

const char* const kEvaluationColumns =
    "id, candidate_id, run_id, candidate_key, shape, device, driver, compiler, flags, verdict, "
    "stage, message, log, "
    "dataset, first_bad_index, expected, got, max_abs_error, median_us, min_us, max_us, "
    "spread_pct, method, "
    "repetitions, gbps, fraction_of_read_bw, record, created_at, may_ship";
EvaluationRecord read_evaluation(const Statement& s, int o) {
  EvaluationRecord e;
  e.id = s.integer(o + 0);
  e.candidate_id = s.integer(o + 1);
  e.run_id = s.integer(o + 2);
  e.candidate_key = s.text(o + 3);
  e.shape = s.text(o + 4);
  e.device = s.text(o + 5);
  e.driver = s.text(o + 6);
  e.compiler = s.text(o + 7);
  e.flags = s.text(o + 8);
  e.verdict = s.text(o + 9);
  e.stage = s.text(o + 10);
  e.message = s.text(o + 11);
  e.log = s.text(o + 12);
  e.dataset = s.text(o + 13);
  e.first_bad_index = s.integer(o + 14);
  e.expected = s.real(o + 15);
  e.got = s.real(o + 16);
  e.max_abs_error = s.real(o + 17);
  if (!s.is_null(o + 18)) e.median_us = s.real(o + 18);
  e.min_us = s.real(o + 19);
  e.max_us = s.real(o + 20);
  e.spread_pct = s.real(o + 21);
  e.method = s.text(o + 22);
  e.repetitions = s.integer(o + 23);
  e.gbps = s.real(o + 24);
  e.fraction_of_read_bw = s.real(o + 25);
  e.record_json = s.text(o + 26);
  e.created_at = s.text(o + 27);
  e.may_ship = s.integer(o + 28) == 1;
  return e;
}

}  // namespace kopt
