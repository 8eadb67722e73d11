#include "agent/db_command.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "agent/candidate_text.h"
#include "agent/commands.h"
#include "agent/loop.h"
#include "agent/table.h"
#include "agent/timeline.h"
#include "db/database.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/evaluation.h"

namespace kopt {

namespace {

// `lead` then `text` wrapped at 120 columns, continuation lines indented
// under the text (line breaks in `text` become spaces).
void print_wrapped(const std::string& lead, std::string text) {
  for (char& ch : text)
    if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
  const size_t indent = std::min<size_t>(lead.size(), 60);
  const std::vector<std::string> lines = wrap_words(text, 120 - indent);
  for (size_t i = 0; i < lines.size(); ++i)
    fmt::print("{}{}\n", i == 0 ? lead : std::string(indent, ' '), lines[i]);
}

std::string verdict_summary(const std::vector<EvaluationRecord>& evals) {
  if (evals.empty()) return "not evaluated";
  const auto& e = evals.back();
  return e.median_us ? fmt::format("{} {:.2f} us ({:.1f}%)", e.verdict, *e.median_us,
                                   100 * e.fraction_of_read_bw)
                     : e.verdict;
}

int db_runs(Database& db) {
  std::vector<RunRecord> runs;
  Status s = db.list_runs(&runs);
  if (!s.ok()) return command_error("db", s.message(), kExitInternal);
  if (runs.empty()) {
    fmt::print("no runs recorded in this database\n");
    return kExitOk;
  }
  Table t;
  t.column("id", Table::Align::kRight)
      .column("shape")
      .column("status")
      .column("candidates", Table::Align::kRight)
      .column("best µs", Table::Align::kRight)
      .column("started")
      .column("proposers", Table::Align::kLeft, /*wraps=*/true);
  for (const auto& r : runs) {
    std::vector<CandidateRecord> cs;
    db.candidates_of_run(r.id, &cs);
    std::vector<BestRow> best;
    db.best(r.shape, "", 1, &best);
    t.row({std::to_string(r.id), r.shape, r.status, std::to_string(cs.size()),
           best.empty() ? "-" : fmt::format("{:.2f}", *best[0].evaluation.median_us), r.started_at,
           r.proposers});
  }
  fmt::print("{}", t.render());
  return kExitOk;
}

int db_list(Database& db, int64_t run_id) {
  if (run_id == 0) {
    std::vector<RunRecord> runs;
    db.list_runs(&runs);
    if (runs.empty()) {
      fmt::print("no runs recorded in this database\n");
      return kExitOk;
    }
    run_id = runs.back().id;
  }
  std::vector<CandidateRecord> cs;
  Status s = db.candidates_of_run(run_id, &cs);
  if (!s.ok()) return command_error("db", s.message(), kExitInternal);
  Table t;
  t.column("id", Table::Align::kRight)
      .column("name")
      .column("proposer")
      .column("parameters", Table::Align::kLeft, /*wraps=*/true)
      .column("result");
  for (const auto& c : cs) {
    std::vector<EvaluationRecord> evals;
    db.evaluations_of(c.id, &evals);
    t.row({std::to_string(c.id), c.name, c.proposer, parameter_words(c), verdict_summary(evals)});
  }
  fmt::print("run {}\n{}", run_id, t.render());
  return kExitOk;
}

int db_show(Database& db, int64_t id, bool full) {
  CandidateRecord c;
  Status s = db.get_candidate(id, &c);
  if (!s.ok()) return command_error("db", s.message(), kExitUsage);
  std::string parents;
  for (auto p : c.parents) parents += (parents.empty() ? "" : ", ") + std::to_string(p);
  fmt::print(
      "candidate {} (run {}, generation {})\nname: {}\nproposer: {}{}\nparents: {}\nparams: "
      "{}\nkey: {}\ncreated: {}\n",
      c.id, c.run_id, c.generation, c.name, c.proposer, c.model.empty() ? "" : " (" + c.model + ")",
      parents.empty() ? "none" : parents, parameter_words(c), c.key, c.created_at);
  CandidateRecord parent;
  const bool has_parent = !c.parents.empty() && db.get_candidate(c.parents[0], &parent).ok();
  fmt::print("idea: {}\n", candidate_idea(c, has_parent ? &parent : nullptr));
  std::vector<EvaluationRecord> evals;
  db.evaluations_of(c.id, &evals);
  for (const auto& e : evals) {
    // Where it ran: host, the GPUs its worker was given, the Slurm step.
    const nlohmann::json details = nlohmann::json::parse(e.record_json, nullptr, false);
    const DeviceInfo where = device_info_from_json(
        details.is_object() && details.contains("device") ? details["device"] : nlohmann::json());
    const std::string ran = where_it_ran(where);
    const std::string place = ran.empty() ? "" : ", on " + ran;
    fmt::print("\nevaluation {} on {} ({}, driver {}, {}{}): {} at stage {}\n  {}\n", e.id, e.shape,
               e.device, e.driver, e.compiler, place, e.verdict, e.stage, e.message);
    if (e.median_us)
      fmt::print(
          "  {:.2f} us median (min {:.2f}, max {:.2f}, spread {:.1f}%, {} reps, {}), {:.0f} GB/s, "
          "{:.1f}% of read BW\n",
          *e.median_us, e.min_us, e.max_us, e.spread_pct, e.repetitions, e.method, e.gbps,
          100 * e.fraction_of_read_bw);
    if (e.first_bad_index >= 0)
      fmt::print("  first wrong index {} ({}): expected {:.6g}, got {:.6g}\n", e.first_bad_index,
                 e.dataset, e.expected, e.got);
    // The full record, indented for reading (--full: all of it).
    const std::string pretty = details.is_discarded() ? e.record_json : details.dump(2);
    std::string shown = full || pretty.size() <= 2000 ? pretty : pretty.substr(0, 2000);
    if (shown.size() < pretty.size()) shown += "\n  [... --full for all]";
    fmt::print("  flags: {}\n  details:\n{}\n", e.flags, shown);
    if (!e.log.empty())
      fmt::print("  log:\n{}\n", e.log.substr(0, full ? std::string::npos : 2000));
  }
  std::vector<ProfileRecord> profiles;
  db.profiles_of(c.id, &profiles);
  for (const auto& p : profiles)
    fmt::print("\nprofile {} on {} ({}, {}): {}{}\n", p.id, p.shape, p.device,
               p.tool.empty() ? "profiler" : p.tool,
               p.status == "ok" ? "" : "not profiled: ", p.summary);
  fmt::print("\nsource:\n{}\n", c.source);
  if (!c.prompt.empty())
    fmt::print("\nprompt:\n{}\n",
               full ? c.prompt : c.prompt.substr(0, 1500) + "\n[... --full for all]");
  if (!c.answer.empty())
    fmt::print("\nmodel answer:\n{}\n", full ? c.answer : c.answer.substr(0, 3000));
  return kExitOk;
}

int db_diff(Database& db, int64_t a, int64_t b) {
  CandidateRecord ca, cb;
  Status s = db.get_candidate(a, &ca);
  if (s.ok()) s = db.get_candidate(b, &cb);
  if (!s.ok()) return command_error("db", s.message(), kExitUsage);
  fmt::print("--- candidate {} ({} {})\n+++ candidate {} ({} {})\n", a, ca.name,
             parameter_words(ca), b, cb.name, parameter_words(cb));
  const std::string diff = unified_diff(ca.source, cb.source);
  fmt::print("{}", diff.empty() ? "(sources identical)\n" : diff);
  return kExitOk;
}

int db_failures(Database& db, int64_t run, int limit) {
  std::vector<EvaluationRecord> evals;
  std::vector<AttemptRecord> attempts;
  Status s = db.failed_evaluations(run, limit, &evals);
  if (s.ok()) s = db.attempts(run, limit, &attempts);
  if (!s.ok()) return command_error("db", s.message(), kExitInternal);
  fmt::print("failed evaluations ({}):\n", evals.size());
  for (const auto& e : evals) {
    print_wrapped(fmt::format("  candidate {} on {}: {} at stage {} — ", e.candidate_id, e.shape,
                              e.verdict, e.stage),
                  e.message);
    if (e.first_bad_index >= 0)
      fmt::print("    first wrong index {} ({}): expected {:.6g}, got {:.6g}\n", e.first_bad_index,
                 e.dataset, e.expected, e.got);
    if (!e.log.empty()) print_wrapped("    log: ", e.log.substr(0, 800));
  }
  fmt::print("attempts without a candidate ({}):\n", attempts.size());
  for (const auto& a : attempts) {
    print_wrapped(fmt::format("  #{} run {} {}{}: {} — ", a.id, a.run_id, a.proposer,
                              a.model.empty() ? "" : ":" + a.model, a.kind),
                  a.message);
    if (!a.answer.empty()) print_wrapped("    answer: ", a.answer.substr(0, 300));
  }
  return kExitOk;
}

}  // namespace

int db_best(Database& db, const std::string& shape, int limit) {
  std::vector<BestRow> rows;
  Status s = db.best(shape, "", limit, &rows);
  if (!s.ok()) return command_error("db", s.message(), kExitInternal);
  if (rows.empty()) {
    fmt::print("no verified candidate{}\n", shape.empty() ? std::string() : " for " + shape);
    return kExitOk;
  }
  // One device line when every row ran on the same device, else a column.
  bool one_device = true;
  for (const auto& r : rows)
    one_device = one_device && r.evaluation.device == rows[0].evaluation.device;
  Table t;
  t.column("shape")
      .column("cand", Table::Align::kRight)
      .column("run", Table::Align::kRight)
      .column("name")
      .column("parameters", Table::Align::kLeft, /*wraps=*/true)
      .column("µs", Table::Align::kRight)
      .column("GB/s", Table::Align::kRight)
      .column("% BW", Table::Align::kRight);
  if (!one_device) t.column("device");
  for (const auto& r : rows) {
    std::vector<std::string> cells = {
        r.evaluation.shape,
        std::to_string(r.candidate.id),
        std::to_string(r.candidate.run_id),
        r.candidate.name,
        parameter_words(r.candidate),
        fmt::format("{:.2f}", *r.evaluation.median_us),
        fmt::format("{:.0f}", r.evaluation.gbps),
        fmt::format("{:.1f}%", 100 * r.evaluation.fraction_of_read_bw)};
    if (!one_device) cells.push_back(r.evaluation.device);
    t.row(std::move(cells));
  }
  if (one_device) fmt::print("device: {}\n", rows[0].evaluation.device);
  fmt::print("{}", t.render());
  return kExitOk;
}

int db_lineage(Database& db, int64_t id) {
  std::vector<CandidateRecord> chain;
  Status s = db.lineage(id, &chain);
  if (!s.ok()) return command_error("db", s.message(), kExitUsage);
  std::string home_shape;  // the shape of the first entry's last evaluation
  for (size_t i = 0; i < chain.size(); ++i) {
    std::vector<EvaluationRecord> evals;
    db.evaluations_of(chain[i].id, &evals);
    std::string summary = verdict_summary(evals);
    if (!evals.empty()) {
      // A chain crosses shapes at a transfer: say where a step was measured.
      if (i == 0) home_shape = evals.back().shape;
      if (evals.back().shape != home_shape) summary += " on " + evals.back().shape;
    }
    const std::string indent(2 * i, ' ');
    fmt::print("{}{}{} {} [{}] {}\n", indent, i ? "<- " : "", chain[i].id, chain[i].name,
               chain[i].proposer, summary);
    print_wrapped(indent + "   parameters: ", parameter_words(chain[i]));
    // The chain runs newest first: a step's parent is the next entry.
    print_wrapped(indent + "   idea: ",
                  candidate_idea(chain[i], i + 1 < chain.size() ? &chain[i + 1] : nullptr));
  }
  return kExitOk;
}

int run_db(const DbCommand& cmd) {
  std::unique_ptr<Database> db;
  Status s = Database::open_existing(cmd.db_path, &db);
  if (!s.ok()) return command_error("db", s.message(), kExitUsage);
  auto need = [&](size_t n) { return cmd.ids.size() >= n; };
  if (cmd.action == "runs") return db_runs(*db);
  if (cmd.action == "list") return db_list(*db, cmd.run);
  if (cmd.action == "best") {
    Shape shape;
    if (!cmd.shape.empty() &&
        !(s = parse_shape(cmd.problem, cmd.shape, shape_defaults(64), &shape)).ok())
      return command_error("db", s.message(), kExitUsage);
    return db_best(*db, cmd.shape.empty() ? "" : shape.key(), cmd.limit);
  }
  if (cmd.action == "failures") return db_failures(*db, cmd.run, cmd.limit);
  if (cmd.action == "show" && need(1)) return db_show(*db, cmd.ids[0], cmd.full);
  if (cmd.action == "lineage" && need(1)) return db_lineage(*db, cmd.ids[0]);
  if (cmd.action == "diff" && need(2)) return db_diff(*db, cmd.ids[0], cmd.ids[1]);
  if (cmd.action == "timeline" && need(1)) {
    Timeline t;
    if (!(s = build_timeline(*db, cmd.ids[0], &t)).ok())
      return command_error("db", s.message(), kExitUsage);
    fmt::print("{}", format_timeline(t, {1, 2, 4, 8, 16, 64}, LoopOptions().batch));
    return kExitOk;
  }
  return command_error(
      "db",
      "usage: kopt db runs | list [--run ID] | show ID | best [--shape S [--problem P]] | "
      "lineage ID | "
      "diff A B | failures [--run ID] | timeline RUN",
      kExitUsage);
}

}  // namespace kopt
