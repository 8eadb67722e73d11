// The loop's evaluation rounds: a batch of candidates to the workers
// together, the re-measurement of contenders before one leads, the profile
// of a new best, each result recorded in order, and the run's stage
// timeline.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "agent/loop.h"

namespace kopt {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

EvaluationRecord to_evaluation_record(const EvalResult& r, int64_t candidate_id, int64_t run_id,
                                      const std::string& key) {
  // The result is stored whole; the database derives every other field.
  EvaluationRecord e;
  e.candidate_id = candidate_id;
  e.run_id = run_id;
  e.candidate_key = key;
  e.record_json = to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return e;
}

Status OptimizationLoop::profile(const CandidateRecord& c) {
  ProfileResult result;
  Status s = profiler_->profile(c.source, params_from_json(c.params_json), shape_, &result);
  ProfileRecord p;
  p.candidate_id = c.id;
  p.shape = shape_.key();
  p.device = device_.name;
  p.tool = s.ok() ? result.tool : "";
  p.status = s.ok() ? "ok" : "failed";
  p.summary = s.ok() ? roofline_line(result) : s.message();
  p.json = s.ok() ? profile_to_json(result) : "{}";
  return db_->add_profile(&p);
}

Status OptimizationLoop::stage_done(int64_t run_id, const char* stage, Clock::time_point began,
                                    int64_t requests) {
  RunStageRecord r;
  r.run_id = run_id;
  r.generation = generations_;
  r.stage = stage;
  r.started_s = std::chrono::duration<double>(began - run_started_).count();
  r.seconds = std::chrono::duration<double>(Clock::now() - began).count();
  r.requests = requests;
  return db_->add_run_stage(r);
}

Status OptimizationLoop::evaluate_batch(RunRecord* run, const std::vector<CandidateRecord*>& batch,
                                        std::vector<bool>* led) {
  led->assign(batch.size(), false);
  // Identical source and parameters measured before on this device and
  // shape are not measured again; the others go to the workers together.
  std::vector<std::optional<EvaluationRecord>> previous(batch.size());
  std::vector<EvalRequest> requests;
  for (size_t i = 0; i < batch.size(); ++i) {
    KOPT_RETURN_IF_ERROR(
        db_->find_evaluation(batch[i]->key, shape_.key(), device_.name, &previous[i]));
    if (previous[i]) continue;
    EvalRequest req;
    req.source = batch[i]->source;
    req.params = params_from_json(batch[i]->params_json);
    req.shape = shape_;
    req.seed = measure_rng_.next();
    req.trials = options_.trials;
    requests.push_back(req);
  }
  const auto evaluate_began = Clock::now();
  const std::vector<EvalResult> results =
      requests.empty() ? std::vector<EvalResult>() : evaluator_->evaluate_many(requests);
  if (!requests.empty())
    KOPT_RETURN_IF_ERROR(
        stage_done(run->id, "evaluate", evaluate_began, static_cast<int64_t>(requests.size())));
  for (const EvalResult& r : results)
    if (r.verdict == Verdict::kNoDevice) {
      stop_reason_ = "no device: " + r.message;
      return Status::error(stop_reason_);
    }

  // Noise decides many "bests": before a candidate leads it is measured
  // again (fresh inputs, new order), and Database::best ranks a candidate by
  // the slower of its measurements, so one lucky run does not make a best.
  // The batch's contenders (faster than the incumbent at their first
  // measurement) are measured again fastest first, as many at once as there
  // are workers, until no contender left could beat the best confirmed so
  // far; that one leads. So every candidate that could rank first has two
  // measurements, one worker re-measures no more than it must, and several
  // workers re-measure in parallel rounds.
  std::vector<BestRow> incumbent;
  KOPT_RETURN_IF_ERROR(db_->best(shape_.key(), device_.name, 1, &incumbent));
  double bar = incumbent.empty() ? std::numeric_limits<double>::infinity()
                                 : *incumbent[0].evaluation.median_us;
  std::vector<size_t> contenders;  // indices into results, fastest first
  for (size_t r = 0; r < results.size() && options_.remeasure_new_bests; ++r)
    if (results[r].ok() && results[r].timing && results[r].timing->median_us < bar)
      contenders.push_back(r);
  std::sort(contenders.begin(), contenders.end(), [&](size_t a, size_t b) {
    return results[a].timing->median_us < results[b].timing->median_us;
  });
  std::vector<std::optional<EvalResult>> again(results.size());
  std::optional<size_t> leader;  // index into results
  const size_t round = static_cast<size_t>(std::max(1, evaluator_->parallelism()));
  for (size_t next = 0; next < contenders.size();) {
    std::vector<size_t> these;
    while (next < contenders.size() && these.size() < round &&
           results[contenders[next]].timing->median_us < bar)
      these.push_back(contenders[next++]);
    if (these.empty()) break;  // the rest cannot beat the confirmed best
    std::vector<EvalRequest> again_requests;
    for (size_t r : these) {
      again_requests.push_back(requests[r]);
      again_requests.back().seed = measure_rng_.next();
    }
    const auto remeasure_began = Clock::now();
    std::vector<EvalResult> measured = evaluator_->evaluate_many(again_requests);
    KOPT_RETURN_IF_ERROR(stage_done(run->id, "re-measure", remeasure_began,
                                    static_cast<int64_t>(again_requests.size())));
    for (size_t k = 0; k < these.size(); ++k) {
      const EvalResult& second = measured[k];
      const double slower =
          second.ok() && second.timing
              ? std::max(second.timing->median_us, results[these[k]].timing->median_us)
              : std::numeric_limits<double>::infinity();
      if (slower < bar) {
        bar = slower;
        leader = these[k];
      }
      again[these[k]] = std::move(measured[k]);
    }
  }

  // Recorded in order.
  size_t next_result = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    CandidateRecord* c = batch[i];
    EvaluationRecord e;
    if (previous[i]) {
      // The same code evaluated before: its record again, said so.
      EvalResult reused =
          eval_result_from_json(nlohmann::json::parse(previous[i]->record_json, nullptr, false));
      reused.stage = "reused";
      reused.message = "identical to candidate " + std::to_string(previous[i]->candidate_id) +
                       ": " + previous[i]->message;
      e = to_evaluation_record(reused, c->id, run->id, c->key);
    } else {
      const size_t r = next_result++;
      const EvalResult& result = results[r];
      e = to_evaluation_record(result, c->id, run->id, c->key);
      if (again[r]) {
        KOPT_RETURN_IF_ERROR(db_->add_evaluation(&e));
        EvalResult second = *again[r];
        second.stage = "re-measured";
        second.message = fmt::format(
            "re-measurement of a new best (first {:.2f} us, {}): {}", result.timing->median_us,
            incumbent.empty()
                ? std::string("the first verified candidate")
                : fmt::format("incumbent candidate {} at {:.2f} us", incumbent[0].candidate.id,
                              *incumbent[0].evaluation.median_us),
            second.message);
        e = to_evaluation_record(second, c->id, run->id, c->key);
        (*led)[i] = leader == r;
        if (leader == r && profiler_) {
          const auto profile_began = Clock::now();
          KOPT_RETURN_IF_ERROR(profile(*c));
          KOPT_RETURN_IF_ERROR(stage_done(run->id, "profile", profile_began, 0));
        }
      }
    }
    KOPT_RETURN_IF_ERROR(db_->add_evaluation(&e));
    ++evaluated_;
    last_line_ = fmt::format("{} {} {}{}", c->name, c->params_json, e.verdict,
                             e.median_us ? fmt::format(" {:.2f} us", *e.median_us) : "");
    if (after_record_) KOPT_RETURN_IF_ERROR(after_record_());
  }
  return Status();
}

}  // namespace kopt
