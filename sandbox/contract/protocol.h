// The orchestrator <-> worker protocol: one JSON object per line.
//
// Requests (worker stdin):
//   {"id": 1, "op": "eval", "protocol": 2, "source": "...", "params": {...}, "shape": {"problem":
//   "w4a16_gemv", "vars": {"K":..,"N":..,"G":..}},
//    "seed": 7, "trials": 2, "time": true, "time_batches": 2, "repetitions": 8}
//   (or "baseline": "vendor-blas-fp16" instead of "source": a built-in peer)
//   {"id": 2, "op": "device", "measure_bandwidth": true}
//   {"id": 3, "op": "ping"}
// Events (worker fd 3), any number of "stage" events, then one final event:
//   {"id": 1, "event": "stage", "stage": "compile"}
//   {"id": 1, "event": "result", "result": {...EvalResult...}}
//   {"id": 2, "event": "device", "device": {...}, "protocol": 2} | {"id": 2, "event": "device",
//   "error": "..."}
//   {"id": 3, "event": "pong", "protocol": 2}
//   {"id": 0, "event": "error", "message": "..."}   (malformed request)
// The worker's stdout/stderr carry only free text (candidate printf output),
// which the orchestrator caps and keeps as the log.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/problem.h"
#include "sandbox/contract/status.h"

namespace kopt {

constexpr size_t kMaxMessageBytes = 32 * 1024 * 1024;

// The version of this protocol. kopt and kopt-worker of different builds
// can meet (a stale worker beside a new kopt, a cluster's older install):
// an eval request and the device and pong replies carry it, and either side
// refuses the other's version with a message saying so. 2: shapes are
// {"problem", "vars"} (1: {"K", "N", "G"}, no version field).
constexpr int kProtocolVersion = 2;

// The built-in baseline: the vendor's fp16 GEMV (cuBLAS) on weights
// dequantised to fp16 at load time.
inline constexpr const char* kVendorBlasBaseline = "vendor-blas-fp16";
// Not a GEMV: kopt's kernel that only reads a call's weights and x, timed
// with the same protocol (sandbox/worker/verification.h read_only_screen).
inline constexpr const char* kReadOnlyBaseline = "read-only";

struct EvalRequest {
  // The candidate (its source and the values as given travel; the worker
  // enters them when it reads the request); null for a baseline.
  CandidateRef candidate;
  // Non-empty: evaluate this built-in baseline (kVendorBlasBaseline) instead
  // of a source; verified and timed the same way.
  std::string baseline;
  Shape shape;
  uint64_t seed = 1;  // every trial and timing batch derives its own seed from this
  int trials = 2;     // rounds over all datasets
  bool time = true;
  int time_batches = 2;  // x is regenerated and outputs re-checked between batches
  int repetitions = 8;   // event-timed replays per batch
  double working_set_l2_multiple = 4.0;
};

// A shape on the wire: {"problem": id, "vars": {name: value}}.
nlohmann::json shape_json(const Shape& shape);
Status shape_from_json(const nlohmann::json& j, Shape* out);

nlohmann::json to_json(const EvalRequest& r);
Status eval_request_from_json(const nlohmann::json& j, EvalRequest* out);

// One line to one JSON object: rejects invalid JSON, non-objects, over-long lines.
Status parse_message(const std::string& line, nlohmann::json* out);

}  // namespace kopt
