#include "agent/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sandbox/contract/evaluation.h"

namespace kopt {

Status build_timeline(Database& db, int64_t run_id, Timeline* out) {
  *out = Timeline();
  RunRecord run;
  KOPT_RETURN_IF_ERROR(db.get_run(run_id, &run));
  out->wall_s = run.elapsed_seconds;
  std::vector<RunStageRecord> stages;
  KOPT_RETURN_IF_ERROR(db.run_stages(run_id, &stages));
  for (const RunStageRecord& s : stages) {
    StageTotal& total = out->loop_stages[s.stage];
    ++total.count;
    total.seconds += s.seconds;
    total.requests += s.requests;
    if (s.stage == "re-measure") out->remeasure_rounds.push_back(s.requests);
  }
  std::vector<CandidateRecord> candidates;
  KOPT_RETURN_IF_ERROR(db.candidates_of_run(run_id, &candidates));
  for (const CandidateRecord& c : candidates) {
    std::vector<EvaluationRecord> evaluations;
    KOPT_RETURN_IF_ERROR(db.evaluations_of(c.id, &evaluations));
    for (const EvaluationRecord& e : evaluations) {
      if (e.run_id != run_id || e.stage == "reused") continue;
      const EvalResult r =
          eval_result_from_json(nlohmann::json::parse(e.record_json, nullptr, false));
      if (r.seconds <= 0) continue;  // recorded before timelines were
      ++out->evaluations;
      out->evaluation_s += r.seconds;
      if (e.stage != "re-measured") ++out->candidates;
      if (r.worker >= 0) {
        if (out->worker_busy_s.size() <= static_cast<size_t>(r.worker))
          out->worker_busy_s.resize(static_cast<size_t>(r.worker) + 1, 0.0);
        out->worker_busy_s[static_cast<size_t>(r.worker)] += r.seconds;
      }
      for (const auto& st : r.stage_seconds) {
        // "verify random #1" and "time batch 2" are one stage each.
        const std::string name = st.stage.substr(0, st.stage.find(' '));
        StageTotal& total = out->worker_stages[name];
        ++total.count;
        total.seconds += st.seconds;
      }
    }
  }
  return Status();
}

namespace {

double seconds_of(const Timeline& t, const char* stage) {
  auto it = t.loop_stages.find(stage);
  return it == t.loop_stages.end() ? 0.0 : it->second.seconds;
}

}  // namespace

Simulated simulate_workers(const Timeline& t, int workers, int batch) {
  Simulated s;
  s.workers = std::max(1, workers);
  if (t.candidates == 0) return s;
  const double n = s.workers, candidates = static_cast<double>(t.candidates);
  const double evaluation = t.evaluation_s / static_cast<double>(t.evaluations);
  const double remeasured = static_cast<double>(t.evaluations - t.candidates);
  // The orchestrator's own work, per candidate. A profile of a new best
  // runs beside the evaluations on one worker's GPU (in line on one
  // worker): GPU time shared by the workers.
  const double serial = (seconds_of(t, "propose") + seconds_of(t, "propose-repair")) / candidates;
  const double profiles = seconds_of(t, "profile");
  // Barrier: generations of max(batch, workers); each waits for its slowest
  // round (ceil(size / workers) evaluations back to back on some worker),
  // and the recorded re-measurement rounds for theirs.
  const double generation = std::max<double>(batch, n);
  const double generations = std::ceil(candidates / generation);
  double remeasure_rounds = 0;
  for (int64_t k : t.remeasure_rounds) remeasure_rounds += std::ceil(static_cast<double>(k) / n);
  s.barrier_s = generations * (generation * serial + std::ceil(generation / n) * evaluation) +
                remeasure_rounds * evaluation + profiles / n;
  // Streaming: the slower of the orchestrator (then the last evaluation
  // still runs) and the workers.
  s.streaming_s = std::max(candidates * serial + evaluation,
                           ((candidates + remeasured) * evaluation + profiles) / n);
  s.barrier_per_minute = 60.0 * candidates / s.barrier_s;
  s.streaming_per_minute = 60.0 * candidates / s.streaming_s;
  return s;
}

std::string format_timeline(const Timeline& t, const std::vector<int>& workers, int batch) {
  std::string out = fmt::format("wall {:.1f} s, {} evaluations ({} first measurements)\n", t.wall_s,
                                t.evaluations, t.candidates);
  out += "orchestrator stages:\n";
  for (const auto& [name, s] : t.loop_stages)
    out += fmt::format("  {:<15} {:>5} x  {:8.2f} s  {:5.1f}% of the run{}\n", name, s.count,
                       s.seconds, t.wall_s > 0 ? 100.0 * s.seconds / t.wall_s : 0.0,
                       s.requests ? fmt::format("  ({} requests)", s.requests) : std::string());
  out += "worker stages (summed over workers):\n";
  for (const auto& [name, s] : t.worker_stages)
    out += fmt::format("  {:<15} {:>5} x  {:8.2f} s  mean {:.3f} s\n", name, s.count, s.seconds,
                       s.seconds / static_cast<double>(std::max<int64_t>(1, s.count)));
  for (size_t w = 0; w < t.worker_busy_s.size(); ++w)
    out += fmt::format("worker {}: busy {:.1f} s ({:.0f}% of the run)\n", w, t.worker_busy_s[w],
                       t.wall_s > 0 ? 100.0 * t.worker_busy_s[w] / t.wall_s : 0.0);
  if (t.candidates == 0) return out + "no timed evaluations: nothing to simulate\n";
  out += "simulated from these means (candidates per minute, speed-up over one worker):\n";
  const Simulated one = simulate_workers(t, 1, batch);
  for (int n : workers) {
    const Simulated s = simulate_workers(t, n, batch);
    out += fmt::format(
        "  {:>3} worker(s): generation barrier {:7.1f} ({:.2f}x), streaming {:7.1f} ({:.2f}x)\n", n,
        s.barrier_per_minute, s.barrier_per_minute / one.barrier_per_minute, s.streaming_per_minute,
        s.streaming_per_minute / one.barrier_per_minute);
  }
  return out;
}

}  // namespace kopt
