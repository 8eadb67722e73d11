// The loop's evaluation rounds: a batch of candidates to the workers
// together, the re-measurement of contenders before one leads, the profile
// of a new best, each result recorded in order, and the run's stage
// timeline.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

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

void Evaluator::evaluate_stream(const NextRequest& next, const RequestDone& done,
                                const std::map<int, std::function<bool()>>& lent) {
  for (const auto& [worker, back] : lent)
    while (!back()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const size_t round = static_cast<size_t>(std::max(1, parallelism()));
  for (;;) {
    std::vector<EvalRequest> requests;
    std::vector<size_t> tags;
    EvalRequest request;
    size_t tag = 0;
    while (requests.size() < round && next(&request, &tag)) {
      requests.push_back(request);
      tags.push_back(tag);
    }
    if (requests.empty()) return;
    std::vector<EvalResult> results = evaluate_many(requests);
    for (size_t i = 0; i < results.size(); ++i) done(tags[i], std::move(results[i]));
  }
}

namespace {

ProfileRecord to_profile_record(const CandidateRecord& c, const std::string& shape,
                                const std::string& device, const Status& s,
                                const ProfileResult& result) {
  ProfileRecord p;
  p.candidate_id = c.id;
  p.shape = shape;
  p.device = device;
  p.tool = s.ok() ? result.tool : "";
  p.status = s.ok() ? "ok" : "failed";
  p.summary = s.ok() ? roofline_line(result) : s.message();
  p.json = s.ok() ? profile_to_json(result) : "{}";
  return p;
}

}  // namespace

Status OptimizationLoop::profile(int64_t run_id, const CandidateRecord& c) {
  KOPT_RETURN_IF_ERROR(collect_profile(run_id, /*wait=*/true));
  const auto began = Clock::now();
  // The last worker's GPU, while the others go on evaluating.
  const int worker = evaluator_->parallelism() - 1;
  const int gpu = worker > 0 ? evaluator_->gpu_of(worker) : -1;
  ProfileInFlight f;
  f.candidate = c;
  f.worker = worker;
  f.began = began;
  // Without a GPU of its own the profile runs now, in line (deferred, then
  // collected at once); either way it is recorded by collect_profile.
  f.outcome = std::async(gpu < 0 ? std::launch::deferred : std::launch::async,
                         [profiler = profiler_, c, shape = shape_, gpu] {
                           ProfileOutcome o;
                           o.status = profiler->profile(*c.parsed, shape, gpu, &o.result);
                           o.ended = Clock::now();
                           return o;
                         });
  profiling_ = std::move(f);
  return gpu < 0 ? collect_profile(run_id, /*wait=*/true) : Status();
}

Status OptimizationLoop::collect_profile(int64_t run_id, bool wait) {
  if (!profiling_ ||
      (!wait && profiling_->outcome.wait_for(std::chrono::seconds(0)) != std::future_status::ready))
    return Status();
  ProfileOutcome o = profiling_->outcome.get();
  ProfileInFlight f = std::move(*profiling_);
  profiling_.reset();
  ProfileRecord p = to_profile_record(f.candidate, shape_.key(), device_.name, o.status, o.result);
  KOPT_RETURN_IF_ERROR(db_->add_profile(&p));
  return stage_done(run_id, "profile", f.began, 0, o.ended);
}

std::map<int, std::function<bool()>> OptimizationLoop::lent_workers() {
  std::map<int, std::function<bool()>> lent;
  if (profiling_)
    lent[profiling_->worker] = [f = &profiling_->outcome] {
      return f->wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
  return lent;
}

Status OptimizationLoop::stage_done(int64_t run_id, const char* stage, Clock::time_point began,
                                    int64_t requests, Clock::time_point ended) {
  RunStageRecord r;
  r.run_id = run_id;
  r.generation = generations_;
  r.stage = stage;
  r.started_s = std::chrono::duration<double>(began - run_started_).count();
  r.seconds = std::chrono::duration<double>(ended - began).count();
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
    req.candidate = batch[i]->parsed;
    req.shape = shape_;
    req.seed = measure_rng_.next();
    req.trials = options_.trials;
    requests.push_back(req);
  }

  // Noise decides many "bests": before a candidate leads it is measured
  // again (fresh inputs, new order), and Database::best ranks a candidate by
  // the slower of its measurements, so one lucky run does not make a best.
  // The first measurements go to the workers first, each taken by whichever
  // worker is free; then the contenders (faster than the incumbent at their
  // first measurement) are measured again, fastest first, each as soon as a
  // worker is free, until no contender left could beat the best confirmed
  // so far; that one leads. So every candidate that could rank first has two
  // measurements, one worker re-measures no more than it must, and no worker
  // waits for a round of others to end.
  std::vector<BestRow> incumbent;
  KOPT_RETURN_IF_ERROR(db_->best(shape_.key(), device_.name, 1, &incumbent));
  double bar = incumbent.empty() ? std::numeric_limits<double>::infinity()
                                 : *incumbent[0].evaluation.median_us;
  std::vector<EvalResult> results(requests.size());
  std::vector<std::optional<EvalResult>> again(requests.size());
  std::vector<size_t> contenders;  // indices into results, not yet measured again
  std::optional<size_t> leader;    // index into results
  std::string no_device;
  size_t next_first = 0;
  int64_t remeasured = 0;
  Clock::time_point remeasure_began;  // the first re-measurement's dispatch
  // A re-measurement's tag is its first measurement's index plus this.
  const size_t remeasure_tag = requests.size();
  auto next = [&](EvalRequest* request, size_t* tag) {
    if (!no_device.empty()) return false;
    if (next_first < requests.size()) {
      *tag = next_first;
      *request = requests[next_first++];
      return true;
    }
    contenders.erase(std::remove_if(contenders.begin(), contenders.end(),
                                    [&](size_t r) { return results[r].timing->median_us >= bar; }),
                     contenders.end());
    if (contenders.empty()) return false;
    auto fastest = std::min_element(contenders.begin(), contenders.end(), [&](size_t a, size_t b) {
      return results[a].timing->median_us < results[b].timing->median_us;
    });
    *tag = remeasure_tag + *fastest;
    *request = requests[*fastest];
    request->seed = measure_rng_.next();
    contenders.erase(fastest);
    if (remeasured++ == 0) remeasure_began = Clock::now();
    return true;
  };
  auto done = [&](size_t tag, EvalResult result) {
    if (result.verdict == Verdict::kNoDevice) no_device = result.message;
    if (tag < remeasure_tag) {
      if (options_.remeasure_new_bests && result.ok() && result.timing &&
          result.timing->median_us < bar)
        contenders.push_back(tag);
      results[tag] = std::move(result);
      return;
    }
    const size_t r = tag - remeasure_tag;
    const double slower = result.ok() && result.timing
                              ? std::max(result.timing->median_us, results[r].timing->median_us)
                              : std::numeric_limits<double>::infinity();
    if (slower < bar) {
      bar = slower;
      leader = r;
    }
    again[r] = std::move(result);
  };
  KOPT_RETURN_IF_ERROR(collect_profile(run->id, /*wait=*/false));
  const auto evaluate_began = Clock::now();
  if (!requests.empty()) {
    evaluator_->evaluate_stream(next, done, lent_workers());
    KOPT_RETURN_IF_ERROR(
        stage_done(run->id, "evaluate", evaluate_began, static_cast<int64_t>(requests.size())));
    // From the first re-measurement to the end: it overlaps the last first
    // measurements where several workers stream.
    if (remeasured > 0)
      KOPT_RETURN_IF_ERROR(stage_done(run->id, "re-measure", remeasure_began, remeasured));
  }
  if (!no_device.empty()) {
    stop_reason_ = "no device: " + no_device;
    return Status::no_device(stop_reason_);
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
        if (leader == r && profiler_) KOPT_RETURN_IF_ERROR(profile(run->id, *c));
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
