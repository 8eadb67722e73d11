#include "sandbox/contract/evaluation.h"

#include <cmath>

#include "sandbox/contract/json_fields.h"

namespace kopt {

using nlohmann::json;

namespace {
struct VerdictName {
  Verdict verdict;
  const char* name;
};
const VerdictName kVerdicts[] = {
    {Verdict::kOk, "ok"},
    {Verdict::kContractError, "contract_error"},
    {Verdict::kUnsupportedShape, "unsupported_shape"},
    {Verdict::kStaticRejected, "static_rejected"},
    {Verdict::kCompileError, "compile_error"},
    {Verdict::kLaunchError, "launch_error"},
    {Verdict::kTimeout, "timeout"},
    {Verdict::kCrash, "crash"},
    {Verdict::kMemoryLimit, "memory_limit"},
    {Verdict::kNotWritten, "not_written"},
    {Verdict::kWrongResult, "wrong_result"},
    {Verdict::kGuardViolation, "guard_violation"},
    {Verdict::kInputModified, "input_modified"},
    {Verdict::kNondeterministic, "nondeterministic"},
    {Verdict::kZeroVariance, "zero_variance"},
    {Verdict::kImpossibleSpeed, "impossible_speed"},
    {Verdict::kNoDevice, "no_device"},
    {Verdict::kInternalError, "internal_error"},
};

}  // namespace

const char* verdict_name(Verdict v) {
  for (const auto& e : kVerdicts)
    if (e.verdict == v) return e.name;
  return "internal_error";
}

bool parse_verdict(const std::string& name, Verdict* out) {
  for (const auto& e : kVerdicts)
    if (name == e.name) {
      *out = e.verdict;
      return true;
    }
  return false;
}

json to_json(const DeviceInfo& d) {
  return json{{"name", d.name},
              {"platform", d.platform},
              {"arch", d.arch},
              {"driver_version", d.driver_version},
              {"runtime_version", d.runtime_version},
              {"compiler", d.compiler},
              {"multiprocessors", d.multiprocessors},
              {"l2_bytes", d.l2_bytes},
              {"warp_size", d.warp_size},
              {"clock_khz", d.clock_khz},
              {"memory_clock_khz", d.memory_clock_khz},
              {"total_memory", d.total_memory},
              {"max_shared_bytes", d.max_shared_bytes},
              {"max_threads_per_block", d.max_threads_per_block},
              {"read_bandwidth_gbps", d.read_bandwidth_gbps},
              {"peak_bandwidth_gbps", d.peak_bandwidth_gbps},
              {"host", d.host},
              {"visible_devices", d.visible_devices},
              {"slurm_step", d.slurm_step},
              {"device_count", d.device_count}};
}

DeviceInfo device_info_from_json(const json& j) {
  DeviceInfo d;
  d.name = get_or<std::string>(j, "name", "");
  d.platform = get_or<std::string>(j, "platform", "");
  d.arch = get_or<std::string>(j, "arch", "");
  d.driver_version = get_or(j, "driver_version", 0);
  d.runtime_version = get_or(j, "runtime_version", 0);
  d.compiler = get_or<std::string>(j, "compiler", "");
  d.multiprocessors = get_or(j, "multiprocessors", 0);
  d.l2_bytes = get_or<int64_t>(j, "l2_bytes", 0);
  d.warp_size = get_or(j, "warp_size", 0);
  d.clock_khz = get_or(j, "clock_khz", 0);
  d.memory_clock_khz = get_or(j, "memory_clock_khz", 0);
  d.total_memory = get_or<int64_t>(j, "total_memory", 0);
  d.max_shared_bytes = get_or<int64_t>(j, "max_shared_bytes", 0);
  d.max_threads_per_block = get_or(j, "max_threads_per_block", 0);
  d.read_bandwidth_gbps = get_or(j, "read_bandwidth_gbps", 0.0);
  d.peak_bandwidth_gbps = get_or(j, "peak_bandwidth_gbps", 0.0);
  d.host = get_or<std::string>(j, "host", "");
  d.visible_devices = get_or<std::string>(j, "visible_devices", "");
  d.slurm_step = get_or<std::string>(j, "slurm_step", "");
  d.device_count = get_or(j, "device_count", 0);
  return d;
}

std::string where_it_ran(const DeviceInfo& d) {
  std::string where = d.host;
  auto add = [&where](const std::string& part) { where += (where.empty() ? "" : " ") + part; };
  if (!d.visible_devices.empty()) add("GPU " + d.visible_devices);
  if (!d.slurm_step.empty()) add("(Slurm step " + d.slurm_step + ")");
  return where;
}

DeviceLimits limits_of(const DeviceInfo& d) {
  DeviceLimits l;
  if (d.warp_size > 0) l.warp = d.warp_size;
  if (d.multiprocessors > 0) l.sms = d.multiprocessors;
  if (d.max_threads_per_block > 0) l.max_threads_per_block = d.max_threads_per_block;
  if (d.max_shared_bytes > 0) l.max_shared_bytes = d.max_shared_bytes;
  return l;
}

bool may_ship(const EvalResult& r) {
  if (r.verdict != Verdict::kOk || !r.timing) return false;
  for (const auto& [name, t] : r.targets) {
    if (t.checked && !t.compiled) return false;  // a shipped kernel builds for every target checked
    if (name == measured_target(r) && name != kOfflineTarget && t.spill_bytes > 0)
      return false;  // spills on the GPU that measured it
  }
  return true;
}

std::string measured_target(const EvalResult& r) {
  return r.device.arch.empty() ? "device" : r.device.arch;
}

json to_json(const Timing& t) {
  return json{{"method", t.method},
              {"median_us", t.median_us},
              {"min_us", t.min_us},
              {"max_us", t.max_us},
              {"spread_pct", t.spread_pct},
              {"repetitions", t.repetitions},
              {"calls_per_repetition", t.calls_per_repetition},
              {"weight_copies", t.weight_copies},
              {"working_set_bytes", t.working_set_bytes},
              {"bytes", t.bytes},
              {"gbps", t.gbps},
              {"fraction_of_read_bw", t.fraction_of_read_bw}};
}

Timing timing_from_json(const json& j) {
  Timing t;
  t.method = get_or<std::string>(j, "method", "");
  t.median_us = get_or(j, "median_us", 0.0);
  t.min_us = get_or(j, "min_us", 0.0);
  t.max_us = get_or(j, "max_us", 0.0);
  t.spread_pct = get_or(j, "spread_pct", 0.0);
  t.repetitions = get_or(j, "repetitions", 0);
  t.calls_per_repetition = get_or(j, "calls_per_repetition", 0);
  t.weight_copies = get_or(j, "weight_copies", 0);
  t.working_set_bytes = get_or<int64_t>(j, "working_set_bytes", 0);
  t.bytes = get_or<int64_t>(j, "bytes", 0);
  t.gbps = get_or(j, "gbps", 0.0);
  t.fraction_of_read_bw = get_or(j, "fraction_of_read_bw", 0.0);
  return t;
}

json to_json(const TargetResources& a) {
  return json{{"checked", a.checked},
              {"compiled", a.compiled},
              {"note", a.note},
              {"log", a.log},
              {"registers", a.registers},
              {"scalar_registers", a.scalar_registers},
              {"spill_bytes", a.spill_bytes},
              {"shared_bytes", a.shared_bytes},
              {"occupancy", a.occupancy},
              {"toolchain", a.toolchain}};
}

TargetResources target_resources_from_json(const json& j) {
  TargetResources a;
  a.checked = get_or(j, "checked", false);
  a.compiled = get_or(j, "compiled", false);
  a.note = get_or<std::string>(j, "note", "");
  a.log = get_or<std::string>(j, "log", "");
  a.registers = get_or(j, "registers", get_or(j, "vgprs", 0));  // vgprs: before targets
  a.scalar_registers = get_or(j, "scalar_registers", get_or(j, "sgprs", 0));
  a.spill_bytes = get_or(j, "spill_bytes", get_or(j, "scratch_bytes", get_or(j, "local_bytes", 0)));
  a.shared_bytes = get_or(j, "shared_bytes", get_or(j, "static_shared_bytes", 0));
  a.occupancy = get_or(j, "occupancy", 0);
  a.toolchain = get_or<std::string>(j, "toolchain", "");
  return a;
}

json to_json(const EvalResult& r) {
  json j{{"verdict", verdict_name(r.verdict)},
         {"message", r.message},
         {"stage", r.stage},
         {"log", r.log},
         {"shape", r.shape},
         {"candidate_key", r.candidate_key},
         {"dataset", r.dataset},
         {"first_bad_index", r.first_bad_index},
         {"expected", r.expected},
         {"got", r.got},
         {"max_abs_error", r.max_abs_error},
         {"device", to_json(r.device)},
         {"compile_flags", r.compile_flags}};
  if (r.timing) j["timing"] = to_json(*r.timing);
  json targets = json::object();
  for (const auto& [name, t] : r.targets) targets[name] = to_json(t);
  j["targets"] = targets;
  if (r.worker >= 0 || r.seconds > 0) {
    json stages = json::array();
    for (const auto& st : r.stage_seconds) stages.push_back({st.stage, st.seconds});
    j["timeline"] = {{"worker", r.worker},
                     {"started_s", r.started_s},
                     {"seconds", r.seconds},
                     {"stages", stages}};
  }
  return j;
}

EvalResult eval_result_from_json(const json& j) {
  EvalResult r;
  if (!j.is_object()) {
    r.message = "malformed evaluation result (not an object)";
    return r;
  }
  if (!parse_verdict(get_or<std::string>(j, "verdict", ""), &r.verdict)) {
    r.verdict = Verdict::kInternalError;
    r.message = "malformed evaluation result (unknown verdict)";
    return r;
  }
  r.message = get_or<std::string>(j, "message", "");
  r.stage = get_or<std::string>(j, "stage", "");
  r.log = get_or<std::string>(j, "log", "");
  r.shape = get_or<std::string>(j, "shape", "");
  r.candidate_key = get_or<std::string>(j, "candidate_key", "");
  r.dataset = get_or<std::string>(j, "dataset", "");
  r.first_bad_index = get_or<int64_t>(j, "first_bad_index", -1);
  // JSON has no NaN: a NaN (the poison a kernel left) travels as null.
  auto number_or_nan = [&](const char* key) {
    return j.contains(key) && j[key].is_null() ? std::nan("") : get_or(j, key, 0.0);
  };
  r.expected = number_or_nan("expected");
  r.got = number_or_nan("got");
  r.max_abs_error = get_or(j, "max_abs_error", 0.0);
  if (j.contains("timing") && j["timing"].is_object()) r.timing = timing_from_json(j["timing"]);
  if (j.contains("device")) r.device = device_info_from_json(j["device"]);
  if (j.contains("targets") && j["targets"].is_object()) {
    for (const auto& [name, t] : j["targets"].items())
      if (t.is_object()) r.targets[name] = target_resources_from_json(t);
  } else {
    // Records from before targets were a map: one field per vendor.
    if (j.contains("nvidia") && j["nvidia"].is_object()) {
      TargetResources t = target_resources_from_json(j["nvidia"]);
      t.compiled = t.checked;  // resources were read from the loaded module
      r.targets[measured_target(r)] = t;
    }
    if (j.contains("amd") && j["amd"].is_object())
      r.targets[kOfflineTarget] = target_resources_from_json(j["amd"]);
  }
  r.compile_flags = get_or<std::string>(j, "compile_flags", "");
  if (j.contains("timeline") && j["timeline"].is_object()) {
    const json& t = j["timeline"];
    r.worker = get_or(t, "worker", -1);
    r.started_s = get_or(t, "started_s", 0.0);
    r.seconds = get_or(t, "seconds", 0.0);
    if (t.contains("stages") && t["stages"].is_array())
      for (const json& st : t["stages"])
        if (st.is_array() && st.size() == 2 && st[0].is_string() && st[1].is_number())
          r.stage_seconds.push_back({st[0].get<std::string>(), st[1].get<double>()});
  }
  return r;
}

}  // namespace kopt
