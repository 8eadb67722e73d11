#include "sandbox/client/worker_pool.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace kopt {

WorkerPool::WorkerPool(const std::vector<SandboxOptions>& workers) {
  for (const auto& options : workers) sandboxes_.push_back(std::make_unique<Sandbox>(options));
}

Status WorkerPool::devices(bool measure_bandwidth, std::vector<DeviceInfo>* out) {
  out->assign(sandboxes_.size(), DeviceInfo());
  std::vector<Status> status(sandboxes_.size());
  // Started together: a worker's start (driver, bandwidth probe) takes seconds.
  std::vector<std::thread> threads;
  for (size_t i = 0; i < sandboxes_.size(); ++i)
    threads.emplace_back(
        [&, i] { status[i] = sandboxes_[i]->device_info(measure_bandwidth, &(*out)[i]); });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < status.size(); ++i)
    if (!status[i].ok()) return status[i].with_context("worker " + std::to_string(i) + ": ");
  for (size_t i = 1; i < out->size(); ++i)
    if ((*out)[i].name != (*out)[0].name)
      return Status::error("workers 0 and " + std::to_string(i) + " have different GPU models (" +
                           (*out)[0].name + ", " + (*out)[i].name +
                           "): timings are compared within one model; give one run GPUs of one "
                           "model (--gpus)");
  return Status();
}

std::vector<EvalResult> WorkerPool::evaluate_all(const std::vector<EvalRequest>& requests) {
  std::vector<EvalResult> results(requests.size());
  size_t next = 0;
  evaluate_stream(
      [&](EvalRequest* request, size_t* tag) {
        if (next >= requests.size()) return false;
        *tag = next;
        *request = requests[next++];
        return true;
      },
      [&](size_t tag, EvalResult result) { results[tag] = std::move(result); }, {});
  return results;
}

void WorkerPool::evaluate_stream(const NextRequest& next, const RequestDone& done,
                                 const std::map<int, std::function<bool()>>& lent) {
  std::mutex mutex;
  std::condition_variable changed;
  size_t in_flight = 0;
  bool finished = false;  // nothing left and nothing in flight: every worker leaves
  auto work = [&](size_t w) {
    std::unique_lock<std::mutex> lock(mutex);
    if (auto gpu = lent.find(static_cast<int>(w)); gpu != lent.end())
      // Polled: the borrower does not know this stream to wake it.
      while (!finished && !gpu->second()) changed.wait_for(lock, std::chrono::milliseconds(20));
    for (;;) {
      EvalRequest request;
      size_t tag = 0;
      if (!finished && next(&request, &tag)) {
        ++in_flight;
        lock.unlock();
        EvalResult result = evaluate_on(w, request);
        lock.lock();
        done(tag, std::move(result));
        --in_flight;
        changed.notify_all();
        continue;
      }
      if (in_flight == 0) {
        finished = true;
        changed.notify_all();
        return;
      }
      changed.wait(lock);
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 0; w < sandboxes_.size(); ++w) threads.emplace_back(work, w);
  for (auto& t : threads) t.join();
}

EvalResult WorkerPool::evaluate(const EvalRequest& request) {
  return evaluate_on(next_single_++ % sandboxes_.size(), request);
}

EvalResult WorkerPool::evaluate_on(size_t w, const EvalRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  EvalResult r = sandboxes_[w]->evaluate(request);
  r.worker = static_cast<int>(w);
  r.started_s = std::chrono::duration<double>(started - created_).count();
  return r;
}

std::vector<std::vector<std::string>> per_gpu_worker_commands(
    const std::vector<std::string>& worker, const std::vector<int>& gpus) {
  std::vector<std::vector<std::string>> commands;
  for (int gpu : gpus) {
    std::vector<std::string> c = {"/usr/bin/env", "CUDA_VISIBLE_DEVICES=" + std::to_string(gpu),
                                  "HIP_VISIBLE_DEVICES=" + std::to_string(gpu)};
    c.insert(c.end(), worker.begin(), worker.end());
    commands.push_back(c);
  }
  return commands;
}

Status parse_gpu_list(const std::string& text, int available, std::vector<int>* out) {
  out->clear();
  if (text == "all") {
    if (available < 1) return Status::error("--gpus all: no GPU found");
    for (int i = 0; i < available; ++i) out->push_back(i);
    return Status();
  }
  std::set<int> seen;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.empty() || item.size() > 4 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      return Status::error("--gpus takes 'all' or GPU indices such as 0,1; not '" + text + "'");
    const int gpu = std::stoi(item);
    if (available > 0 && gpu >= available)
      return Status::error("--gpus: there is no GPU " + item + " (this machine has " +
                           std::to_string(available) + ")");
    if (!seen.insert(gpu).second) return Status::error("--gpus names GPU " + item + " twice");
    out->push_back(gpu);
    at = comma + 1;
  }
  return Status();
}

}  // namespace kopt
