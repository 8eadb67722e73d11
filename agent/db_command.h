// `kopt db`: the database browser (runs, candidates, best, lineage, diffs,
// failures, a run's timeline), printed for people: tables sized to their contents.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kopt {

class Database;

struct DbCommand {
  std::string db_path = "kopt.db";
  std::string action;  // runs | list | show | best | lineage | diff | failures | timeline
  std::vector<int64_t> ids;
  std::string problem;  // of --shape (empty: the default problem)
  std::string shape;
  int64_t run = 0;
  int limit = 20;
  bool full = false;  // show: whole prompt and answer
};
int run_db(const DbCommand& cmd);

// The best candidates of `shape` (a key; empty: every shape), and the
// lineage of one candidate: kopt db best and kopt db lineage (kopt demo
// prints them after its run).
int db_best(Database& db, const std::string& shape, int limit);
int db_lineage(Database& db, int64_t id);

}  // namespace kopt
