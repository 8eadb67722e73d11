#include "agent/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "agent/candidate_text.h"
#include "agent/svg_plot.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/problem.h"

namespace kopt {

namespace {

// Seconds since the epoch of a "YYYY-MM-DDTHH:MM:SSZ" stamp; 0 if malformed.
double seconds_of(const std::string& stamp) {
  std::tm tm{};
  if (std::sscanf(stamp.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

// One candidate of a chosen run, with its evaluation on the run's shape.
struct Row {
  CandidateRecord candidate;
  std::optional<EvaluationRecord> evaluation;
  bool verified() const {
    return evaluation && evaluation->verdict == "ok" && evaluation->median_us;
  }
  double us() const { return *evaluation->median_us; }
};

struct RunData {
  RunRecord run;
  std::vector<Row> rows;
};

std::string proposer_of(const CandidateRecord& c) {
  return c.proposer == "llm" && !c.model.empty() ? c.model : c.proposer;
}

double read_bandwidth_of(const EvaluationRecord& e) {
  return e.fraction_of_read_bw > 0 ? e.gbps / e.fraction_of_read_bw : 0;
}

const char* const kStyle = R"(
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1100px;
       padding: 16px; color: #111827; }
h1 { font-size: 1.6em; margin-bottom: 0; } h2 { margin-top: 2em; border-bottom: 1px solid #e5e7eb; }
.meta { color: #4b5563; } .note { color: #6b7280; font-size: .9em; }
table { border-collapse: collapse; width: 100%; margin: .6em 0; display: block; overflow-x: auto; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
th { background: #f9fafb; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, pre { font: 12.5px/1.35 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: #f9fafb; border: 1px solid #e5e7eb; padding: 8px; overflow-x: auto; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
svg.kopt-plot { max-width: 100%; height: auto; background: #fff; border: 1px solid #e5e7eb; }
svg .title { font-weight: 600; font-size: 14px; } svg .tick { font-size: 12px; fill: #374151; }
svg .label { font-size: 13px; fill: #111827; } svg .frame { fill: none; stroke: #9ca3af; }
details { margin: .4em 0; } summary { cursor: pointer; }
svg .grid { stroke: #f3f4f6; } svg .ref { stroke-dasharray: 6 4; stroke-width: 1.5; }
svg .line { fill: none; stroke-width: 2; }
.ok { color: #047857; } .bad { color: #b91c1c; }
)";

// The fastest verified seed of `shape` in these runs, or nullptr.
const Row* best_seed(const std::vector<RunData>& data, const std::string& shape) {
  const Row* seed = nullptr;
  for (const auto& d : data)
    if (d.run.shape == shape)
      for (const auto& row : d.rows)
        if (row.candidate.proposer == "seed" && row.verified() && (!seed || row.us() < seed->us()))
          seed = &row;
  return seed;
}

// What changed from `from` to `to`: the source diff, or the parameters where
// the sources are the same.
std::string change_between(const CandidateRecord& from, const CandidateRecord& to) {
  const std::string diff = unified_diff(from.source, to.source);
  return diff.empty() ? "(sources identical; parameters " + parameter_words(from) + " → " +
                            parameter_words(to) + ")"
                      : diff;
}

// Each shape's best kernel: its source and its diff to the fastest seed of
// the same runs, collapsed (a <details> element: no script needed).
std::string best_kernel_sources(const std::vector<RunData>& data,
                                const std::map<std::string, int64_t>& best_of_shape,
                                const std::map<int64_t, const Row*>& by_id) {
  if (best_of_shape.empty()) return "";
  std::string out = "<h3 id=\"best-sources\">The best kernels' sources</h3>\n";
  for (const auto& [shape, best_id] : best_of_shape) {
    const auto it = by_id.find(best_id);
    if (it == by_id.end()) continue;
    const CandidateRecord& best = it->second->candidate;
    const Row* seed = best_seed(data, shape);
    const std::string diff = !seed ? "(no verified seed in these runs)"
                             : seed->candidate.id == best.id
                                 ? "(the best kernel is this seed)"
                                 : change_between(seed->candidate, best);
    out += fmt::format(
        "<details class=\"best-source\" id=\"source-{0}\"><summary>{1}: #{0} {2} — source ({3} "
        "lines) and diff to the best seed{4}</summary>\n<pre>{5}</pre>\n<p class=\"note\">Diff "
        "to the best seed:</p>\n<pre>{6}</pre></details>\n",
        best.id, html_escape(shape), html_escape(best.name),
        std::count(best.source.begin(), best.source.end(), '\n'),
        seed ? fmt::format(" (#{} {})", seed->candidate.id, html_escape(seed->candidate.name)) : "",
        html_escape(best.source), html_escape(diff));
  }
  return out;
}

// The runs chosen (by run id or shape), each with its candidates and their
// evaluations on the run's shape.
Status load_runs(Database& db, const ReportOptions& options, std::vector<RunData>* data) {
  std::set<std::string> shape_filter;
  for (const auto& text : options.shapes) {
    Shape s;
    KOPT_RETURN_IF_ERROR(parse_shape(options.problem, text, {}, &s));
    shape_filter.insert(s.key());
  }
  std::vector<RunRecord> runs;
  KOPT_RETURN_IF_ERROR(db.list_runs(&runs));
  for (const auto& r : runs) {
    if (options.run_id && r.id != options.run_id) continue;
    if (!shape_filter.empty() && !shape_filter.count(r.shape)) continue;
    RunData d;
    d.run = r;
    std::vector<CandidateRecord> cs;
    KOPT_RETURN_IF_ERROR(db.candidates_of_run(r.id, &cs));
    for (auto& c : cs) {
      Row row;
      std::vector<EvaluationRecord> es;
      KOPT_RETURN_IF_ERROR(db.evaluations_of(c.id, &es));
      for (auto& e : es)
        if (e.shape == r.shape) row.evaluation = e;
      row.candidate = std::move(c);
      d.rows.push_back(std::move(row));
    }
    data->push_back(std::move(d));
  }
  if (options.run_id && data->empty())
    return Status::error("no run " + std::to_string(options.run_id) + " in the database");
  return Status();
}

// What every section reads: the chosen runs and their index (candidates by
// id, shapes and proposers in first-seen order, devices).
struct Report {
  std::vector<RunData> data;
  std::map<int64_t, const Row*> by_id;
  std::set<int64_t> chosen_runs;
  std::vector<std::string> shapes, proposers;
  std::set<std::string> devices;

  void index() {
    for (const auto& d : data) {
      chosen_runs.insert(d.run.id);
      if (std::find(shapes.begin(), shapes.end(), d.run.shape) == shapes.end())
        shapes.push_back(d.run.shape);
      for (const auto& row : d.rows) {
        by_id[row.candidate.id] = &row;
        const std::string p = proposer_of(row.candidate);
        if (std::find(proposers.begin(), proposers.end(), p) == proposers.end())
          proposers.push_back(p);
        if (row.evaluation && !row.evaluation->device.empty())
          devices.insert(row.evaluation->device);
      }
    }
  }
  std::string color_of(const std::string& p) const {
    const size_t i =
        static_cast<size_t>(std::find(proposers.begin(), proposers.end(), p) - proposers.begin());
    return proposer_color(p, i);
  }
};

std::string cand_link(int64_t id) { return fmt::format("<a href=\"#cand-{0}\">#{0}</a>", id); }

// The page's head, title line and table of contents.
std::string page_head(const Report& r, const ReportOptions& options) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>kopt report</title>\n<style>" +
      std::string(kStyle) + "</style></head><body>\n";
  std::string device_list;
  for (const auto& d : r.devices) device_list += (device_list.empty() ? "" : ", ") + d;
  out += fmt::format(
      "<h1>kopt report</h1>\n<p class=\"meta\">database <code>{}</code> · {} run(s) · {} shape(s) "
      "· device: {} · "
      "generated {}</p>\n",
      html_escape(options.db_label), r.data.size(), r.shapes.size(),
      html_escape(device_list.empty() ? "none" : device_list), html_escape(options.generated_at));
  out +=
      "<p><a href=\"#shapes\">Best per shape</a> · <a href=\"#progress\">Progress</a> · "
      "<a href=\"#bandwidth\">Bandwidth</a> · <a href=\"#lineage\">Lineage</a> · <a "
      "href=\"#failures\">Failures</a> · "
      "<a href=\"#models\">Proposers and models</a></p>\n";
  return out;
}

// Best per shape (the database's own notion of best within the chosen
// runs), against the best seed of the same runs; each shape's best kernel
// into `best_of_shape`.
Status best_per_shape_section(Database& db, const Report& r, std::string* html,
                              std::map<std::string, int64_t>* best_of_shape) {
  std::string out;
  out +=
      "<h2 id=\"shapes\">Best per shape</h2>\n<table class=\"best\"><tr><th>shape</th><th>best "
      "kernel</th>"
      "<th>µs</th><th>GB/s</th><th>% of read BW</th><th>best seed "
      "µs</th><th>gain</th><th>device</th></tr>\n";
  for (const auto& shape : r.shapes) {
    // The database's own notion of best (it leaves out kernels that spill or
    // need gfx906 scratch), within the chosen runs.
    std::vector<BestRow> all;
    KOPT_RETURN_IF_ERROR(db.best(shape, "", 100000, &all));
    const BestRow* best = nullptr;
    for (const auto& b : all)
      if (r.chosen_runs.count(b.candidate.run_id)) {
        best = &b;
        break;
      }
    const Row* seed = best_seed(r.data, shape);
    const std::optional<double> seed_us = seed ? std::optional<double>(seed->us()) : std::nullopt;
    if (!best) {
      out += fmt::format("<tr><td>{}</td><td colspan=\"7\">no verified candidate</td></tr>\n",
                         html_escape(shape));
      continue;
    }
    (*best_of_shape)[shape] = best->candidate.id;
    const auto& e = best->evaluation;
    out += fmt::format(
        "<tr><td>{}</td><td>{} <code>{}</code> {}</td><td class=\"num\">{:.2f}</td><td "
        "class=\"num\">{:.0f}</td>"
        "<td class=\"num\">{:.1f}%</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td>{}</td></tr>\n",
        html_escape(shape), cand_link(best->candidate.id), html_escape(best->candidate.name),
        html_escape(parameter_words(best->candidate)), *e.median_us, e.gbps,
        100 * e.fraction_of_read_bw, seed_us ? fmt::format("{:.2f}", *seed_us) : "—",
        seed_us ? fmt::format("{:.2f}×", *seed_us / *e.median_us) : "—", html_escape(e.device));
  }
  out +=
      "</table>\n<p class=\"note\">Peers (vendor BLAS, PyTorch) are measured by <code>kopt bench "
      "--baselines</code> and <code>scripts/peers.sh</code>; the database holds kopt's own "
      "candidates.</p>\n";
  out += best_kernel_sources(r.data, *best_of_shape, r.by_id);

  *html += out;
  return Status();
}

// Progress of each run: best so far and every verified candidate, by
// proposer, against the candidates' order and against wall time.
std::string progress_section(const Report& report) {
  std::string out;
  out += "<h2 id=\"progress\">Progress</h2>\n";
  for (const auto& d : report.data) {
    const RunRecord& r = d.run;
    int verified = 0;
    for (const auto& row : d.rows) verified += row.verified();
    out += fmt::format(
        "<h3 id=\"run-{0}\">Run {0} — {1}</h3>\n<p class=\"meta\">{2} · {3} candidates, {4} "
        "verified · proposers: {5} · "
        "{6:.0f} s · {7} tokens · cost ${8:.4f} · started {9}</p>\n",
        r.id, html_escape(r.shape), html_escape(r.status), d.rows.size(), verified,
        html_escape(r.proposers), r.elapsed_seconds, r.tokens_used, r.cost,
        html_escape(r.started_at));
    std::vector<PlotSeries> by_count, by_time;
    PlotSeries best_n{"best so far", "#111827", {}, true},
        best_t{"best so far", "#111827", {}, true};
    std::map<std::string, PlotSeries> per_n, per_t;
    const double t0 = d.rows.empty() ? 0 : seconds_of(d.rows.front().candidate.created_at);
    double best = 0;
    for (size_t i = 0; i < d.rows.size(); ++i) {
      const Row& row = d.rows[i];
      if (!row.verified()) continue;
      const double n = static_cast<double>(i + 1);
      const double t =
          row.evaluation->created_at.empty() ? 0 : seconds_of(row.evaluation->created_at) - t0;
      const std::string p = proposer_of(row.candidate);
      const std::string tip = fmt::format("#{} {} {} {:.2f} us", row.candidate.id,
                                          row.candidate.name, row.candidate.params_json, row.us());
      for (auto* m : {&per_n, &per_t}) {
        auto& s = (*m)[p];
        s.name = p;
        s.color = report.color_of(p);
      }
      per_n[p].points.push_back({n, row.us(), tip});
      per_t[p].points.push_back({t, row.us(), tip});
      if (best == 0 || row.us() < best) {
        best = row.us();
        best_n.points.push_back({n, best, tip});
        best_t.points.push_back({t, best, tip});
      }
    }
    // Carry the staircase to the last candidate and the run's end.
    if (!best_n.points.empty()) {
      best_n.points.push_back({static_cast<double>(d.rows.size()), best, "end"});
      best_t.points.push_back({std::max(best_t.points.back().x, r.elapsed_seconds), best, "end"});
    }
    by_count.push_back(best_n);
    by_time.push_back(best_t);
    for (auto& [p, s] : per_n) by_count.push_back(s);
    for (auto& [p, s] : per_t) by_time.push_back(s);
    PlotOptions po;
    po.title = "µs per call against candidates, run " + std::to_string(r.id);
    po.x_label = "candidate (in the order evaluated)";
    po.y_label = "median µs per call";
    po.integer_x = true;
    PlotOptions pt = po;
    pt.title = "µs per call against wall time, run " + std::to_string(r.id);
    pt.x_label = "seconds since the run started";
    pt.integer_x = false;
    pt.x_from_zero = true;
    out += "<div class=\"plots\">" + svg_plot(by_count, po) + svg_plot(by_time, pt) + "</div>\n";
  }

  return out;
}

// Every verified candidate against the measured read bandwidth.
std::string bandwidth_section(const Report& r) {
  std::string out;
  out += "<h2 id=\"bandwidth\">Bandwidth</h2>\n";
  {
    std::map<std::string, PlotSeries> per;
    double read_bw = 0;
    // With one shape every candidate moves the same bytes: spread them by
    // the order they were evaluated in instead.
    const bool one_shape = r.shapes.size() == 1;
    int order = 0;
    for (const auto& d : r.data) {
      Shape shape;
      const int64_t bytes = parse_shape_key(d.run.shape, &shape).ok() ? shape_bytes(shape) : 0;
      for (const auto& row : d.rows) {
        if (!row.verified() || bytes <= 0) continue;
        const std::string p = proposer_of(row.candidate);
        auto& s = per[p];
        s.name = p;
        s.color = r.color_of(p);
        const double x = one_shape ? ++order : static_cast<double>(bytes);
        s.points.push_back({x, row.evaluation->gbps,
                            fmt::format("#{} {} on {}: {:.0f} GB/s", row.candidate.id,
                                        row.candidate.name, d.run.shape, row.evaluation->gbps)});
        read_bw = std::max(read_bw, read_bandwidth_of(*row.evaluation));
      }
    }
    std::vector<PlotSeries> series;
    for (auto& [p, s] : per) series.push_back(s);
    PlotOptions o;
    o.title = "Achieved bandwidth of every verified candidate";
    o.x_label = one_shape
                    ? "verified candidate of " + *r.shapes.begin() + " (in the order evaluated)"
                    : "bytes moved per call (weights, scales, offsets, x, y)";
    o.y_label = "GB/s";
    o.log_x = !one_shape;
    o.integer_x = one_shape;
    if (read_bw > 0) {
      o.lines.push_back(
          {read_bw,
           fmt::format("measured read bandwidth {:.0f} GB/s (the floor: time = bytes / this)",
                       read_bw),
           "#b91c1c"});
      o.lines.push_back({0.6 * read_bw, "60% of it (kopt's target)", "#d97706"});
    }
    out += "<div class=\"plots\">" + svg_plot(series, o) + "</div>\n";
  }

  return out;
}

// The lineage of each shape's best kernel, with ideas, gains and diffs.
Status lineage_section(Database& db, const Report& r,
                       const std::map<std::string, int64_t>& best_of_shape, std::string* html) {
  std::string out;
  out += "<h2 id=\"lineage\">Lineage of the best kernels</h2>\n";
  std::string diffs;
  for (const auto& [shape, best_id] : best_of_shape) {
    std::vector<CandidateRecord> chain;
    KOPT_RETURN_IF_ERROR(db.lineage(best_id, &chain));
    std::reverse(chain.begin(), chain.end());  // the seed first
    out += fmt::format(
        "<h3>{}</h3>\n<table class=\"lineage\"><tr><th>step</th><th>candidate</th><th>proposer</th>"
        "<th>idea</th><th>µs</th><th>gain on its parent</th><th>diff</th></tr>\n",
        html_escape(shape));
    std::optional<double> parent_us;
    const CandidateRecord* parent = nullptr;
    for (size_t i = 0; i < chain.size(); ++i) {
      const CandidateRecord& c = chain[i];
      auto it = r.by_id.find(c.id);
      std::optional<double> us;
      if (it != r.by_id.end() && it->second->verified()) us = it->second->us();
      const std::string gain = us && parent_us ? fmt::format("{:.3f}×", *parent_us / *us) : "—";
      std::string diff_cell = "—";
      if (parent) {
        diff_cell = fmt::format("<a href=\"#diff-{}\">diff</a>", c.id);
        diffs += fmt::format(
            "<div class=\"diff\" id=\"diff-{0}\"><h4>#{1} → #{0} ({2} {3} → "
            "{4})</h4><pre>{5}</pre></div>\n",
            c.id, parent->id, html_escape(c.name), html_escape(parameter_words(*parent)),
            html_escape(parameter_words(c)), html_escape(change_between(*parent, c)));
      }
      out += fmt::format(
          "<tr id=\"cand-{0}\"><td class=\"num\">{1}</td><td>#{0} {2} "
          "<code>{3}</code></td><td>{4}</td><td>{5}</td>"
          "<td class=\"num\">{6}</td><td class=\"num\">{7}</td><td>{8}</td></tr>\n",
          c.id, i + 1, html_escape(c.name), html_escape(parameter_words(c)),
          html_escape(proposer_of(c)), html_escape(candidate_idea(c, parent)),
          us ? fmt::format("{:.2f}", *us) : "—", gain, diff_cell);
      parent_us = us;
      parent = &chain[i];
    }
    out += "</table>\n";
  }
  if (!diffs.empty()) out += "<h3 id=\"diffs\">Diffs against the parent</h3>\n" + diffs;

  *html += out;
  return Status();
}

// Failures by verdict, then attempts that produced no candidate (into
// `by_kind`, which the proposers' table counts too).
Status failures_section(Database& db, const Report& r, std::string* html,
                        std::map<std::string, std::vector<AttemptRecord>>* by_kind_out) {
  std::string out;
  out += "<h2 id=\"failures\">Failures</h2>\n";
  std::map<std::string, std::vector<const Row*>> by_verdict;
  for (const auto& d : r.data)
    for (const auto& row : d.rows)
      if (row.evaluation && row.evaluation->verdict != "ok")
        by_verdict[row.evaluation->verdict].push_back(&row);
  out +=
      "<table class=\"failures\"><tr><th>verdict</th><th>count</th><th>examples (newest "
      "first)</th></tr>\n";
  for (auto& [verdict, rows] : by_verdict) {
    std::string examples;
    for (size_t i = rows.size(); i-- > 0 && rows.size() - i <= 3;) {
      const Row& row = *rows[i];
      examples += fmt::format(
          "<div>#{} {} <code>{}</code> at {}: {}</div>", row.candidate.id,
          html_escape(row.candidate.name), html_escape(parameter_words(row.candidate)),
          html_escape(row.evaluation->stage), html_escape(row.evaluation->message.substr(0, 300)));
    }
    out += fmt::format("<tr><td class=\"bad\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                       html_escape(verdict), rows.size(), examples);
  }
  if (by_verdict.empty()) out += "<tr><td colspan=\"3\">no failed evaluation</td></tr>\n";
  out += "</table>\n";
  std::map<std::string, std::vector<AttemptRecord>> by_kind;
  for (int64_t run : r.chosen_runs) {
    std::vector<AttemptRecord> attempts;
    KOPT_RETURN_IF_ERROR(db.attempts(run, 1000, &attempts));
    for (auto& a : attempts) by_kind[a.kind].push_back(std::move(a));
  }
  out +=
      "<h3>Attempts without a candidate</h3>\n<table "
      "class=\"attempts\"><tr><th>kind</th><th>count</th>"
      "<th>examples (newest first)</th></tr>\n";
  for (const auto& [kind, attempts] : by_kind) {
    std::string examples;
    for (size_t i = 0; i < attempts.size() && i < 3; ++i)
      examples += fmt::format("<div>{}{}: {}</div>", html_escape(attempts[i].proposer),
                              attempts[i].model.empty() ? "" : ":" + html_escape(attempts[i].model),
                              html_escape(attempts[i].message.substr(0, 300)));
    out += fmt::format("<tr><td class=\"bad\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                       html_escape(kind), attempts.size(), examples);
  }
  if (by_kind.empty()) out += "<tr><td colspan=\"3\">none</td></tr>\n";
  out += "</table>\n";

  *html += out;
  *by_kind_out = std::move(by_kind);
  return Status();
}

// Proposers: what each produced; tokens and cost per run; the page's end.
std::string proposers_section(const Report& r,
                              const std::map<std::string, std::vector<AttemptRecord>>& by_kind) {
  std::string out;
  out +=
      "<h2 id=\"models\">Proposers and models</h2>\n<table "
      "class=\"proposers\"><tr><th>proposer</th>"
      "<th>candidates</th><th>verified</th><th>best µs</th><th>attempts without a "
      "candidate</th></tr>\n";
  for (const auto& p : r.proposers) {
    int count = 0, ok = 0, failed_attempts = 0;
    std::optional<double> best;
    for (const auto& d : r.data)
      for (const auto& row : d.rows)
        if (proposer_of(row.candidate) == p) {
          ++count;
          if (row.verified()) ++ok, best = std::min(best.value_or(1e300), row.us());
        }
    for (const auto& [kind, attempts] : by_kind)
      for (const auto& a : attempts)
        if ((a.model.empty() ? a.proposer : a.model) == p || a.proposer == p) ++failed_attempts;
    out += fmt::format(
        "<tr><td><span style=\"color:{}\">■</span> {}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        r.color_of(p), html_escape(p), count, ok, best ? fmt::format("{:.2f}", *best) : "—",
        failed_attempts);
  }
  out +=
      "</table>\n<table "
      "class=\"cost\"><tr><th>run</th><th>shape</th><th>tokens</th><th>cost (US$)</th></tr>\n";
  for (const auto& d : r.data)
    out += fmt::format(
        "<tr><td><a href=\"#run-{0}\">{0}</a></td><td>{1}</td><td class=\"num\">{2}</td>"
        "<td class=\"num\">{3:.4f}</td></tr>\n",
        d.run.id, html_escape(d.run.shape), d.run.tokens_used, d.run.cost);
  out +=
      "</table>\n<p class=\"note\">Cost in US dollars from each model's "
      "<code>price_per_million_input</code> and <code>price_per_million_output</code> in the "
      "config (0 where none is set; the mutator costs nothing).</p>\n</body></html>\n";
  return out;
}

}  // namespace

Status build_report(Database& db, const ReportOptions& options, std::string* html) {
  Report r;
  KOPT_RETURN_IF_ERROR(load_runs(db, options, &r.data));
  r.index();
  std::string out = page_head(r, options);
  std::map<std::string, int64_t> best_of_shape;
  KOPT_RETURN_IF_ERROR(best_per_shape_section(db, r, &out, &best_of_shape));
  out += progress_section(r);
  out += bandwidth_section(r);
  KOPT_RETURN_IF_ERROR(lineage_section(db, r, best_of_shape, &out));
  std::map<std::string, std::vector<AttemptRecord>> by_kind;
  KOPT_RETURN_IF_ERROR(failures_section(db, r, &out, &by_kind));
  out += proposers_section(r, by_kind);
  *html = std::move(out);
  return Status();
}

}  // namespace kopt
