// Fakes for the agent's seams: an evaluator with a deterministic time model
// and a loopback HTTP server that replays recorded model answers.
#pragma once

#include <httplib.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "agent/loop.h"
#include "sandbox/contract/candidate.h"

namespace kopt::test {

// Time model: 5 µs plus 0.1 µs for every step a parameter sits away from the
// last value of its list, so the defaults are not optimal and the mutator
// has something to find. A source with FAST_KERNEL takes 1 µs; one with
// BROKEN_KERNEL is a wrong result.
class FakeEvaluator : public Evaluator {
 public:
  int calls = 0;
  int delay_ms = 0;
  EvalResult evaluate(const EvalRequest& req) override {
    ++calls;
    if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    EvalResult r;
    r.shape = req.shape.key();
    r.device = device_info();
    if (!req.candidate || !req.candidate->ok()) {
      r.verdict = Verdict::kContractError;
      r.message = req.candidate ? req.candidate->status.message() : "no candidate";
      r.stage = "contract";
      return r;
    }
    const Candidate& c = req.candidate->candidate;
    if (c.source.find("BROKEN_KERNEL") != std::string::npos) {
      r.verdict = Verdict::kWrongResult;
      r.stage = "verify random #1";
      r.message = "random #1: 256 element(s) outside tolerance";
      r.first_bad_index = 0;
      r.expected = 1.5;
      r.got = -3;
      r.log = "fake log";
      return r;
    }
    double us = 5.0;
    for (const auto& p : c.spec.params) {
      auto it = std::find(p.values.begin(), p.values.end(), c.params.at(p.name));
      us += 0.1 * static_cast<double>(p.values.end() - 1 - it);
    }
    if (c.source.find("FAST_KERNEL") != std::string::npos) us = 1.0;
    r.verdict = Verdict::kOk;
    r.stage = "time batch 2";
    Timing t;
    t.method = "fake";
    t.median_us = t.min_us = t.max_us = us;
    t.bytes = shape_bytes(req.shape);
    t.gbps = static_cast<double>(t.bytes) / (us * 1e3);
    t.fraction_of_read_bw = t.gbps / 1000.0;
    t.repetitions = 16;
    r.timing = t;
    return r;
  }
  Status device(DeviceInfo* out) override {
    *out = device_info();
    return Status();
  }
  static DeviceInfo device_info() {
    DeviceInfo d;
    d.name = "Fake GPU";
    d.read_bandwidth_gbps = 1000;
    d.compiler = "fake";
    return d;
  }
};

struct ScriptedReply {
  ScriptedReply(int status_code = 200, std::string body_text = "", int delay = 0,
                std::string retry = "")
      : status(status_code),
        body(std::move(body_text)),
        delay_ms(delay),
        retry_after(std::move(retry)) {}
  int status;
  std::string body;
  int delay_ms;
  std::string retry_after;
};

// The built-in mutator alone, weight 1.
inline std::vector<WeightedProposer> mutator_only() {
  std::vector<WeightedProposer> p;
  p.push_back({std::make_unique<ParameterMutator>(), 1.0});
  return p;
}

// OpenAI-style body for a text answer.
inline std::string chat_body(const std::string& text, const std::string& finish = "stop") {
  nlohmann::json j{
      {"choices",
       {{{"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", finish}}}},
      {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 50}}}};
  return j.dump();
}

// A real HTTP server on 127.0.0.1 replaying replies in order (the last one
// repeats). Records the request bodies it received.
class ReplayServer {
 public:
  explicit ReplayServer(std::deque<ScriptedReply> replies) : replies_(std::move(replies)) {
    server_.Post("/v1/chat/completions",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   ScriptedReply r;
                   {
                     std::lock_guard<std::mutex> lock(mu_);
                     requests_.push_back(req.body);
                     r = replies_.front();
                     if (replies_.size() > 1) replies_.pop_front();
                   }
                   if (r.delay_ms)
                     std::this_thread::sleep_for(std::chrono::milliseconds(r.delay_ms));
                   res.status = r.status;
                   if (!r.retry_after.empty()) res.set_header("Retry-After", r.retry_after);
                   res.set_content(r.body, "application/json");
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~ReplayServer() {
    server_.stop();
    thread_.join();
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  size_t request_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_.size();
  }
  std::string request(size_t i) {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_.at(i);
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::deque<ScriptedReply> replies_;
  std::vector<std::string> requests_;
};

}  // namespace kopt::test
