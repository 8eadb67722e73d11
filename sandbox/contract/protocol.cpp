#include "sandbox/contract/protocol.h"

namespace kopt {

using nlohmann::json;

json shape_json(const Shape& shape) {
  json vars = json::object();
  for (const auto& [k, v] : shape.vars) vars[k] = v;
  return json{{"problem", shape.problem}, {"vars", vars}};
}

Status shape_from_json(const json& j, Shape* out) {
  Shape s;
  try {
    s.problem = j.at("problem").get<std::string>();
    const json& vars = j.at("vars");
    if (!vars.is_object()) return Status::error("malformed shape: \"vars\" is not an object");
    for (auto it = vars.begin(); it != vars.end(); ++it)
      s.vars[it.key()] = it.value().get<int64_t>();
  } catch (const json::exception& e) {
    return Status::error(std::string("malformed shape: ") + e.what());
  }
  *out = std::move(s);
  return Status();
}

json to_json(const EvalRequest& r) {
  json params = json::object();
  if (r.candidate)
    for (const auto& [k, v] : r.candidate->asked) params[k] = v;
  return json{{"op", "eval"},
              {"protocol", kProtocolVersion},
              {"source", r.candidate ? r.candidate->source() : std::string()},
              {"baseline", r.baseline},
              {"params", params},
              {"shape", shape_json(r.shape)},
              {"seed", r.seed},
              {"trials", r.trials},
              {"time", r.time},
              {"time_batches", r.time_batches},
              {"repetitions", r.repetitions},
              {"working_set_l2_multiple", r.working_set_l2_multiple}};
}

Status eval_request_from_json(const json& j, EvalRequest* out) {
  EvalRequest r;
  const int version =
      j.contains("protocol") && j["protocol"].is_number_integer() ? j["protocol"].get<int>() : 1;
  if (version != kProtocolVersion)
    return Status::error("eval request of protocol version " + std::to_string(version) +
                         "; this kopt-worker speaks version " + std::to_string(kProtocolVersion) +
                         " (kopt and kopt-worker come from different builds)");
  try {
    r.baseline = j.value("baseline", std::string());
    const std::string source =
        r.baseline.empty() ? j.at("source").get<std::string>() : j.value("source", std::string());
    std::map<std::string, int64_t> params;
    if (j.contains("params"))
      for (auto it = j["params"].begin(); it != j["params"].end(); ++it)
        params[it.key()] = it.value().get<int64_t>();
    // The candidate enters the worker here.
    if (r.baseline.empty()) r.candidate = enter_candidate(source, params);
    KOPT_RETURN_IF_ERROR(shape_from_json(j.at("shape"), &r.shape));
    r.seed = j.value("seed", uint64_t{1});
    r.trials = j.value("trials", 2);
    r.time = j.value("time", true);
    r.time_batches = j.value("time_batches", 2);
    r.repetitions = j.value("repetitions", 8);
    r.working_set_l2_multiple = j.value("working_set_l2_multiple", 4.0);
  } catch (const json::exception& e) {
    return Status::error(std::string("malformed eval request: ") + e.what());
  }
  if (r.trials < 1 || r.trials > 100 || r.time_batches < 1 || r.time_batches > 100 ||
      r.repetitions < 1 || r.repetitions > 10000 || r.working_set_l2_multiple < 1 ||
      r.working_set_l2_multiple > 64)
    return Status::error(
        "malformed eval request: trials, batches, repetitions or working set out of range");
  KOPT_RETURN_IF_ERROR(validate_shape(r.shape));
  *out = std::move(r);
  return Status();
}

Status parse_message(const std::string& line, json* out) {
  if (line.size() > kMaxMessageBytes) return Status::error("message longer than the limit");
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::error("message is not valid JSON: " + line.substr(0, 120));
  if (!j.is_object()) return Status::error("message is not a JSON object: " + line.substr(0, 120));
  *out = std::move(j);
  return Status();
}

}  // namespace kopt
