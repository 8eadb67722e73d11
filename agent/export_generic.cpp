// `kopt export`, the generic variants: their measurements on probe shapes
// (GENERIC.json), the rule's leave-one-out check, and the measuring itself.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "agent/commands.h"
#include "agent/export.h"
#include "db/database.h"
#include "sandbox/client/sandbox.h"

namespace kopt {

Status read_generic_measurements(const Problem& problem, const std::string& path,
                                 GenericMeasurements* out) {
  std::string text;
  KOPT_RETURN_IF_ERROR(read_text_file(path, &text));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("probes") || !j["probes"].is_array())
    return Status::error(path + " is not a generic-measurement file (no \"probes\" list)");
  *out = GenericMeasurements();
  out->device = j.value("device", "");
  out->arch = j.value("arch", "");
  out->date = j.value("date", "");
  for (const auto& p : j["probes"]) {
    Shape shape;
    if (!p.is_object() || !p.contains("shape") || !p["shape"].is_string() ||
        !problem.parse_shape(p["shape"].get<std::string>(), {}, &shape).ok() || !p.contains("us") ||
        !p["us"].is_object())
      return Status::error(path + ": a probe without a valid shape and \"us\" object");
    auto& row = out->us[shape.name()];
    if (row.empty()) out->order.push_back(shape);
    for (const auto& [variant, us] : p["us"].items())
      row[variant] = us.is_number() ? us.get<double>() : 0.0;
  }
  return Status();
}

nlohmann::json generic_measurements_json(const GenericMeasurements& m) {
  nlohmann::json probes = nlohmann::json::array();
  for (const Shape& s : m.order) {
    const auto it = m.us.find(s.name());
    probes.push_back(
        {{"shape", s.name()},
         {"us", it == m.us.end() ? nlohmann::json::object() : nlohmann::json(it->second)}});
  }
  return {{"device", m.device},
          {"arch", m.arch},
          {"date", m.date},
          {"note",
           "Median µs of each generic variant on each probe shape (0: the variant does not run "
           "the shape, or failed verification there), measured by kopt export --measure-generic."},
          {"probes", probes}};
}

std::vector<KoptGenericProbe> generic_probes(const LibrarySpec& library,
                                             const GenericMeasurements& m) {
  std::vector<KoptGenericProbe> probes;
  const auto& variants = library.generic_variants;
  for (const Shape& s : m.order) {
    KoptGenericProbe p{s.var(library.rule_variables[0]), s.var(library.rule_variables[1]), {}};
    const auto& row = m.us.at(s.name());
    for (size_t v = 0; v < variants.size() && v < KOPT_MAX_GENERIC_VARIANTS; ++v) {
      const auto it = row.find(variants[v].symbol);
      p.us[v] = it == row.end() ? 0.f : static_cast<float>(it->second);
    }
    probes.push_back(p);
  }
  return probes;
}

std::vector<RuleCheck> leave_one_out(const LibrarySpec& library, const GenericMeasurements& m) {
  const auto probes = generic_probes(library, m);
  const auto& variants = library.generic_variants;
  const int count = static_cast<int>(std::min<size_t>(variants.size(), KOPT_MAX_GENERIC_VARIANTS));
  std::vector<RuleCheck> checks;
  for (size_t i = 0; i < probes.size(); ++i) {
    const KoptGenericProbe& p = probes[i];
    bool supported[KOPT_MAX_GENERIC_VARIANTS] = {};
    int fastest = -1;
    for (int v = 0; v < count; ++v) {
      supported[v] = p.us[v] > 0;  // what ran there is what supports the shape
      if (supported[v] && (fastest < 0 || p.us[v] < p.us[fastest])) fastest = v;
    }
    if (fastest < 0) continue;
    const int chosen = kopt_choose_generic(p.x, p.y, probes.data(), static_cast<int>(probes.size()),
                                           count, supported, 4, static_cast<int>(i));
    checks.push_back({m.order[i].name(), variants[chosen].symbol, variants[fastest].symbol,
                      p.us[chosen] / p.us[fastest]});
  }
  return checks;
}

Status measure_generic(const Problem& problem, Sandbox& sandbox, const DeviceInfo& device,
                       const std::vector<Shape>& shapes, GenericMeasurements* m,
                       const std::function<Status()>& save) {
  if (!m->device.empty() && m->device != device.name) {
    fmt::print(stderr, "generic measurements in the folder are from {}; measuring again on {}\n",
               m->device, device.name);
    *m = GenericMeasurements();
  }
  m->device = device.name;
  m->arch = device.arch;
  for (const Shape& shape : shapes) {
    auto& row = m->us[shape.name()];
    if (std::find(m->order.begin(), m->order.end(), shape) == m->order.end())
      m->order.push_back(shape);
    std::string line;
    for (const auto& v : problem.library().generic_variants) {
      if (row.count(v.symbol)) continue;
      const Seed* seed = find_seed(problem, v.seed);
      if (!seed) return Status::error("generic variant " + v.symbol + ": no seed " + v.seed);
      EvalRequest req;
      req.candidate = seed_candidate(*seed, v.params);
      req.shape = shape;
      req.seed = fresh_seed(std::nullopt);
      req.trials = 1;
      const EvalResult r = sandbox.evaluate(req);
      row[v.symbol] = r.ok() && r.timing ? r.timing->median_us : 0.0;
      line += r.ok() && r.timing
                  ? fmt::format(" {} {:.2f}", v.symbol.substr(8), r.timing->median_us)
                  : fmt::format(" {} {}", v.symbol.substr(8), verdict_name(r.verdict));
      if (!r.ok() && r.verdict != Verdict::kUnsupportedShape)
        fmt::print(stderr, "{}: {} failed: {}: {}\n", shape.name(), v.symbol,
                   verdict_name(r.verdict), r.message);
    }
    m->date = now_utc();
    if (!line.empty()) fmt::print("{}:{}\n", shape.name(), line);
    std::fflush(stdout);  // progress shows even when the measurement is cut off
    KOPT_RETURN_IF_ERROR(save());
  }
  return Status();
}

}  // namespace kopt
