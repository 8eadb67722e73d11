// `kopt report`: one self-contained HTML file over the candidate database —
// best per shape, progress of each run by proposer, a bandwidth plot of every
// verified candidate, the lineage of the best kernel with each step's idea,
// gain and diff, failures by verdict, model tokens and cost. Plots are
// inline SVG (agent/svg_plot.h); nothing is fetched, nothing runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
#include "sandbox/contract/status.h"

namespace kopt {

struct ReportOptions {
  std::string db_label;             // how the header names the database
  int64_t run_id = 0;               // 0: every run
  std::vector<std::string> shapes;  // shape texts; empty: every shape
  std::string generated_at;         // shown in the header
  std::string problem;              // of the shape texts (empty: the default problem)
};

Status build_report(Database& db, const ReportOptions& options, std::string* html);

}  // namespace kopt
