// Database rows <-> records (internal to kopt_db).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/statement.h"

namespace kopt {

// Candidate ids as stored ("3,7") and back.
std::string join_ids(const std::vector<int64_t>& ids);
std::vector<int64_t> split_ids(const std::string& s);

// The columns each reader expects, in order, for SELECT lists.
extern const char* const kRunColumns;
extern const char* const kCandidateColumns;
extern const char* const kEvaluationColumns;

RunRecord read_run(const Statement& s);
// From column `offset` on (a join selects several records in one row).
CandidateRecord read_candidate(const Statement& s, int offset = 0);
EvaluationRecord read_evaluation(const Statement& s, int offset = 0);

}  // namespace kopt
