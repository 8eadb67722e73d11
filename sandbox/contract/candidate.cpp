#include "sandbox/contract/candidate.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

namespace kopt {

// Ordered: a contract's named values ("let") are evaluated in the order
// they are written.
using json = nlohmann::ordered_json;

namespace {

constexpr size_t kMaxLaunches = 8;
constexpr size_t kMaxParams = 16;
constexpr size_t kMaxLets = 16;
constexpr int64_t kMaxGridDim = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxBufferBytes = int64_t{8} << 30;

bool valid_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A name kopt gives every contract (WARP, SMS) or its builds (KOPT_*).
bool kopt_given_name(const std::string& s) {
  return s == "WARP" || s == "SMS" || s.rfind("KOPT_", 0) == 0;
}

// A named value's name: upper case, digits and '_' (so it cannot be one of
// the lower-case names of the launch code `kopt export` writes), not a name
// kopt gives.
bool valid_let_name(const std::string& s) {
  if (!valid_identifier(s) || !std::isupper(static_cast<unsigned char>(s[0]))) return false;
  if (kopt_given_name(s)) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

// An expression field may be a JSON string or integer; it is parsed here,
// once (a syntax error is the contract's error).
Status read_expression(const json& j, const std::string& what, Expression* out) {
  std::string text;
  if (j.is_string())
    text = j.get<std::string>();
  else if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t{INT64_MAX})
    return Status::error(what + " is larger than a 64-bit integer");
  else if (j.is_number_integer())
    text = std::to_string(j.get<int64_t>());
  else
    return Status::error(what + " must be an expression string or an integer");
  if (Status s = Expression::parse(text, out); !s.ok())
    return Status::error(what + ": " + s.message());
  return Status();
}

Status read_dims(const json& j, const std::string& what, std::array<Expression, 3>* out) {
  *out = {Expression::constant(1), Expression::constant(1), Expression::constant(1)};
  if (!j.is_array()) return read_expression(j, what, &(*out)[0]);
  if (j.empty() || j.size() > 3) return Status::error(what + " must have 1 to 3 dimensions");
  for (size_t i = 0; i < j.size(); ++i)
    KOPT_RETURN_IF_ERROR(read_expression(j[i], what, &(*out)[i]));
  return Status();
}

Status read_launch(const json& j, const std::string& what, LaunchSpec* out) {
  if (!j.is_object()) return Status::error(what + " must be an object");
  if (!j.contains("kernel") || !j["kernel"].is_string() || !valid_identifier(j["kernel"]))
    return Status::error(what + ".kernel must name an extern \"C\" kernel");
  out->kernel = j["kernel"];
  if (!j.contains("grid") || !j.contains("block"))
    return Status::error(what + " needs \"grid\" and \"block\"");
  KOPT_RETURN_IF_ERROR(read_dims(j["grid"], what + ".grid", &out->grid));
  KOPT_RETURN_IF_ERROR(read_dims(j["block"], what + ".block", &out->block));
  if (j.contains("shared_bytes"))
    KOPT_RETURN_IF_ERROR(
        read_expression(j["shared_bytes"], what + ".shared_bytes", &out->shared_bytes));
  return Status();
}

Status parse_spec(const json& j, CandidateSpec* spec) {
  if (!j.is_object()) return Status::error("the kopt: block must be a JSON object");
  static const char* known[] = {
      "name",         "description",     "let",      "launches", "relayout",
      "packed_bytes", "workspace_bytes", "requires", "params",   "nondeterministic"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(std::begin(known), std::end(known), it.key()) == std::end(known))
      return Status::error("unknown contract field \"" + it.key() + "\"");
  // Every field is type-checked: a contract comes from a model, and a wrong
  // type must be a contract_error the model can act on, never an exception.
  for (const char* key : {"name", "description"}) {
    if (j.contains(key) && !j[key].is_string())
      return Status::error(std::string("\"") + key + "\" must be a string, not " +
                           j[key].type_name());
  }
  spec->name = j.contains("name") ? j["name"].get<std::string>() : "unnamed";
  spec->description = j.contains("description") ? j["description"].get<std::string>() : "";
  if (spec->name.size() > 200 || spec->description.size() > 4000)
    return Status::error("\"name\" (200 characters) or \"description\" (4000) is too long");
  if (j.contains("let")) {
    if (!j["let"].is_object())
      return Status::error("\"let\" must be an object of named expressions");
    if (j["let"].size() > kMaxLets)
      return Status::error("at most " + std::to_string(kMaxLets) + " named values in \"let\"");
    for (auto it = j["let"].begin(); it != j["let"].end(); ++it) {
      NamedValue v;
      v.name = it.key();
      if (!valid_let_name(v.name))
        return Status::error("named value \"" + v.name +
                             "\" must be upper case, digits and '_' (not WARP, SMS or KOPT_...)");
      KOPT_RETURN_IF_ERROR(read_expression(it.value(), "let." + v.name, &v.value));
      spec->lets.push_back(v);
    }
  }
  if (!j.contains("launches") || !j["launches"].is_array() || j["launches"].empty())
    return Status::error("contract needs a non-empty \"launches\" array");
  if (j["launches"].size() > kMaxLaunches)
    return Status::error("at most " + std::to_string(kMaxLaunches) + " launches per call");
  for (size_t i = 0; i < j["launches"].size(); ++i) {
    LaunchSpec l;
    KOPT_RETURN_IF_ERROR(read_launch(j["launches"][i], "launches[" + std::to_string(i) + "]", &l));
    spec->launches.push_back(l);
  }
  if (j.contains("relayout")) {
    LaunchSpec l;
    KOPT_RETURN_IF_ERROR(read_launch(j["relayout"], "relayout", &l));
    spec->relayout = l;
    if (!j.contains("packed_bytes")) return Status::error("a relayout needs \"packed_bytes\"");
  }
  if (j.contains("packed_bytes"))
    KOPT_RETURN_IF_ERROR(read_expression(j["packed_bytes"], "packed_bytes", &spec->packed_bytes));
  if (j.contains("workspace_bytes"))
    KOPT_RETURN_IF_ERROR(
        read_expression(j["workspace_bytes"], "workspace_bytes", &spec->workspace_bytes));
  if (j.contains("requires")) {
    if (!j["requires"].is_array())
      return Status::error("\"requires\" must be an array of expressions");
    for (const auto& r : j["requires"]) {
      Expression e;
      KOPT_RETURN_IF_ERROR(read_expression(r, "requires", &e));
      spec->requires_.push_back(e);
    }
  }
  if (j.contains("params")) {
    if (!j["params"].is_object()) return Status::error("\"params\" must be an object");
    if (j["params"].size() > kMaxParams) return Status::error("at most 16 parameters");
    for (auto it = j["params"].begin(); it != j["params"].end(); ++it) {
      TunableParam p;
      p.name = it.key();
      if (!valid_identifier(p.name) || p.name == "K" || p.name == "N" || p.name == "G" ||
          kopt_given_name(p.name))
        return Status::error("parameter name \"" + p.name + "\" is not allowed");
      const json& v = it.value();
      if (!v.is_object() || !v.contains("values") || !v["values"].is_array() || v["values"].empty())
        return Status::error("parameter " + p.name + " needs a non-empty \"values\" array");
      if (v["values"].size() > 256)
        return Status::error("parameter " + p.name + ": at most 256 values");
      for (const auto& x : v["values"]) {
        if (!x.is_number_integer() ||
            (x.is_number_unsigned() && x.get<uint64_t>() > uint64_t{INT64_MAX}))
          return Status::error("parameter " + p.name + ": values must be 64-bit integers");
        p.values.push_back(x.get<int64_t>());
      }
      if (v.contains("default") && !v["default"].is_number_integer())
        return Status::error("parameter " + p.name + ": \"default\" must be an integer");
      p.default_value = v.contains("default") ? v["default"].get<int64_t>() : p.values.front();
      if (std::find(p.values.begin(), p.values.end(), p.default_value) == p.values.end())
        return Status::error("parameter " + p.name + ": default is not among its values");
      spec->params.push_back(p);
    }
  }
  for (const auto& v : spec->lets)
    for (const auto& p : spec->params)
      if (v.name == p.name)
        return Status::error("\"" + v.name + "\" is both a parameter and a named value");
  auto names_no_let = [&](const Expression& r) {
    const std::set<std::string> names = r.names();
    return std::none_of(spec->lets.begin(), spec->lets.end(),
                        [&](const NamedValue& v) { return names.count(v.name) > 0; });
  };
  spec->requires_before_lets = static_cast<size_t>(
      std::stable_partition(spec->requires_.begin(), spec->requires_.end(), names_no_let) -
      spec->requires_.begin());
  if (j.contains("nondeterministic")) {
    if (!j["nondeterministic"].is_boolean())
      return Status::error("\"nondeterministic\" must be true or false");
    spec->nondeterministic = j["nondeterministic"];
  }
  return Status();
}

Status resolve(const Expression& expr, const Variables& vars, const std::string& what, int64_t lo,
               int64_t hi, int64_t* out) {
  KOPT_RETURN_IF_ERROR(expr.evaluate(vars, out));
  if (*out < lo || *out > hi)
    return Status::error(what + " = " + std::to_string(*out) + " (from '" + expr.text() +
                         "') is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return Status();
}

Status resolve_launch(const LaunchSpec& spec, const Variables& vars, const DeviceLimits& limits,
                      ResolvedLaunch* out) {
  out->kernel = spec.kernel;
  int64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    int64_t g, b;
    KOPT_RETURN_IF_ERROR(
        resolve(spec.grid[d], vars, spec.kernel + " grid", 1, d == 0 ? kMaxGridDim : 65535, &g));
    KOPT_RETURN_IF_ERROR(
        resolve(spec.block[d], vars, spec.kernel + " block", 1, limits.max_threads_per_block, &b));
    out->grid[d] = static_cast<uint32_t>(g);
    out->block[d] = static_cast<uint32_t>(b);
    threads *= b;
  }
  if (threads > limits.max_threads_per_block)
    return Status::error(spec.kernel + ": " + std::to_string(threads) +
                         " threads per block exceeds " +
                         std::to_string(limits.max_threads_per_block));
  int64_t shared;
  KOPT_RETURN_IF_ERROR(resolve(spec.shared_bytes, vars, spec.kernel + " shared_bytes", 0,
                               limits.max_shared_bytes, &shared));
  out->shared_bytes = static_cast<uint32_t>(shared);
  return Status();
}

using Macros = std::vector<std::pair<std::string, int64_t>>;

std::vector<std::string> as_options(const Macros& macros) {
  std::vector<std::string> out;
  for (const auto& [name, value] : macros) out.push_back("-D" + name + "=" + std::to_string(value));
  return out;
}

Macros parameter_macros(const Candidate& c) { return Macros(c.params.begin(), c.params.end()); }

Macros shape_macros(const Shape& shape) {
  Macros out;
  for (const auto& [name, value] : shape.vars) out.emplace_back("KOPT_SHAPE_" + name, value);
  return out;
}

// Every declared parameter's default, then `overrides` (each declared and
// among its values).
Status choose_params(const CandidateSpec& spec, const std::map<std::string, int64_t>& overrides,
                     std::map<std::string, int64_t>* out) {
  std::map<std::string, int64_t> params;
  for (const auto& p : spec.params) params[p.name] = p.default_value;
  for (const auto& [override_name, value] : overrides) {
    const std::string& name =
        override_name;  // a lambda may not capture a structured binding (C++17)
    auto it = std::find_if(spec.params.begin(), spec.params.end(),
                           [&](const TunableParam& p) { return p.name == name; });
    if (it == spec.params.end()) return Status::error("parameter " + name + " is not declared");
    if (std::find(it->values.begin(), it->values.end(), value) == it->values.end())
      return Status::error("parameter " + name + " = " + std::to_string(value) +
                           " is not among its values");
    params[name] = value;
  }
  *out = std::move(params);
  return Status();
}

}  // namespace

Status parse_candidate(const std::string& source, const std::map<std::string, int64_t>& overrides,
                       Candidate* out) {
  const std::string marker = "/* kopt:";
  size_t start = source.find(marker);
  if (start == std::string::npos)
    return Status::error(
        "no contract block: the source must contain a comment starting '/* kopt:'");
  size_t end = source.find("*/", start);
  if (end == std::string::npos) return Status::error("the '/* kopt:' comment is not closed");
  std::string text = source.substr(start + marker.size(), end - start - marker.size());
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (j.is_discarded()) return Status::error("the kopt: block is not valid JSON");
  Candidate c;
  c.source = source;
  try {
    KOPT_RETURN_IF_ERROR(parse_spec(j, &c.spec));
  } catch (const json::exception& e) {
    // The checks above should leave nothing to throw; if one slipped, the
    // contract is still only wrong, never a crash.
    return Status::error(std::string("the kopt: block has a field of the wrong type: ") + e.what());
  }
  KOPT_RETURN_IF_ERROR(choose_params(c.spec, overrides, &c.params));
  *out = std::move(c);
  return Status();
}

namespace {

// Parsed contracts by source text: those entered since the memo was last
// emptied (it is emptied whole when it holds kKept sources).
class ContractMemo {
 public:
  std::shared_ptr<const CandidateValue> find_or_parse(const std::string& source) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = parsed_.find(source);
    if (it != parsed_.end()) return it->second;
    auto value = std::make_shared<CandidateValue>();
    value->contract = parse_candidate(source, {}, &value->candidate);
    value->candidate.source = source;
    value->status = value->contract;
    // Bounded: a long run of model answers enters thousands of sources.
    if (parsed_.size() >= kKept) parsed_.clear();
    parsed_.emplace(source, value);
    return value;
  }

 private:
  static constexpr size_t kKept = 256;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const CandidateValue>> parsed_;
};

}  // namespace

CandidateRef enter_candidate(const std::string& source,
                             const std::map<std::string, int64_t>& values) {
  static ContractMemo memo;
  return with_values(*memo.find_or_parse(source), values);
}

CandidateRef seed_candidate(const Seed& seed, const std::map<std::string, int64_t>& values) {
  return enter_candidate(seed.source, values);
}

CandidateRef with_values(const CandidateValue& from, const std::map<std::string, int64_t>& values) {
  auto value = std::make_shared<CandidateValue>();
  value->contract = from.contract;
  value->asked = values;
  if (from.contract.ok()) {
    value->status = with_params(from.candidate, values, &value->candidate);
    if (!value->status.ok()) value->candidate.spec = from.candidate.spec;
  } else {
    value->status = from.contract;
  }
  value->candidate.source = from.candidate.source;
  if (value->status.ok()) {
    value->key = candidate_key(value->candidate);
  } else {
    Candidate raw;
    raw.source = from.candidate.source;
    value->key = candidate_key(raw);
  }
  return value;
}

std::map<std::string, int64_t> params_from_json(const std::string& text) {
  std::map<std::string, int64_t> out;
  json j = json::parse(text, nullptr, false);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.value().is_number_integer()) out[it.key()] = it.value().get<int64_t>();
  return out;
}

std::string params_to_json(const std::map<std::string, int64_t>& params) {
  json j = json::object();
  for (const auto& [k, v] : params) j[k] = v;
  return j.dump();
}

Status with_params(const Candidate& parsed, const std::map<std::string, int64_t>& overrides,
                   Candidate* out) {
  std::map<std::string, int64_t> params;
  KOPT_RETURN_IF_ERROR(choose_params(parsed.spec, overrides, &params));
  out->source = parsed.source;
  out->spec = parsed.spec;
  out->params = std::move(params);
  return Status();
}

std::string contract_json(const CandidateSpec& spec) {
  json j;
  j["name"] = spec.name;
  for (const auto& v : spec.lets) j["let"][v.name] = v.value.text();
  auto texts = [](const std::array<Expression, 3>& d) {
    return json{d[0].text(), d[1].text(), d[2].text()};
  };
  auto launch = [&](const LaunchSpec& l) {
    return json{{"kernel", l.kernel},
                {"grid", texts(l.grid)},
                {"block", texts(l.block)},
                {"shared_bytes", l.shared_bytes.text()}};
  };
  for (const auto& l : spec.launches) j["launches"].push_back(launch(l));
  if (spec.relayout) j["relayout"] = launch(*spec.relayout);
  j["packed_bytes"] = spec.packed_bytes.text();
  j["workspace_bytes"] = spec.workspace_bytes.text();
  j["requires"] = json::array();
  for (const auto& r : spec.requires_) j["requires"].push_back(r.text());
  for (const auto& p : spec.params)
    j["params"][p.name] = {{"values", p.values}, {"default", p.default_value}};
  j["nondeterministic"] = spec.nondeterministic;
  return j.dump(2);
}

Status plan_launches(const Candidate& c, const Shape& shape, const DeviceLimits& limits,
                     LaunchPlan* plan) {
  *plan = LaunchPlan();
  Variables vars = {{"WARP", limits.warp}, {"SMS", limits.sms}};
  for (const auto& [name, value] : shape.vars) vars[name] = value;
  for (const auto& [name, value] : c.params) vars[name] = value;
  // The requirements that name no named value, then the named values in
  // order, then the requirements that name them (CandidateSpec::lets).
  // `holds` false: the shape is unsupported, the plan says which failed.
  using Requirement = std::vector<Expression>::const_iterator;
  auto check = [&](Requirement from, Requirement to, bool* holds) {
    *holds = true;
    for (Requirement r = from; r != to && *holds; ++r) {
      int64_t v;
      KOPT_RETURN_IF_ERROR(r->evaluate(vars, &v));
      *holds = v != 0;
      if (!*holds) {
        plan->supported = false;
        plan->unsupported_reason =
            "shape " + shape.name() + " fails requirement '" + r->text() + "'";
      }
    }
    return Status();
  };
  const auto& requirements = c.spec.requires_;
  const Requirement after_lets = requirements.begin() + c.spec.requires_before_lets;
  bool holds;
  KOPT_RETURN_IF_ERROR(check(requirements.begin(), after_lets, &holds));
  if (!holds) return Status();
  for (const auto& v : c.spec.lets) {
    if (vars.count(v.name))
      return Status::error("named value " + v.name + " has the name of a variable of " +
                           shape.name());
    int64_t value;
    KOPT_RETURN_IF_ERROR(v.value.evaluate(vars, &value));
    vars[v.name] = value;
  }
  KOPT_RETURN_IF_ERROR(check(after_lets, requirements.end(), &holds));
  if (!holds) return Status();
  for (const auto& l : c.spec.launches) {
    ResolvedLaunch r;
    KOPT_RETURN_IF_ERROR(resolve_launch(l, vars, limits, &r));
    plan->launches.push_back(r);
  }
  if (c.spec.relayout) {
    ResolvedLaunch r;
    KOPT_RETURN_IF_ERROR(resolve_launch(*c.spec.relayout, vars, limits, &r));
    plan->relayout = r;
    KOPT_RETURN_IF_ERROR(resolve(c.spec.packed_bytes, vars, "packed_bytes", 1, kMaxBufferBytes,
                                 &plan->packed_bytes));
  }
  KOPT_RETURN_IF_ERROR(resolve(c.spec.workspace_bytes, vars, "workspace_bytes", 0, kMaxBufferBytes,
                               &plan->workspace_bytes));
  return Status();
}

std::vector<std::string> parameter_defines(const Candidate& c) {
  return as_options(parameter_macros(c));
}

std::vector<std::string> shape_defines(const Shape& shape) {
  return as_options(shape_macros(shape));
}

std::vector<std::pair<std::string, int64_t>> build_macros(const Candidate& c, const Shape& shape) {
  Macros out = parameter_macros(c);
  for (auto& m : shape_macros(shape)) out.push_back(std::move(m));
  return out;
}

std::vector<std::string> build_defines(const Candidate& c, const Shape& shape) {
  return as_options(build_macros(c, shape));
}

std::string candidate_key(const Candidate& c) {
  // FNV-1a over the source and the parameter values: stable across builds.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const std::string& s) {
    for (unsigned char ch : s) {
      h ^= ch;
      h *= 1099511628211ull;
    }
  };
  mix(c.source);
  for (const auto& d : parameter_defines(c)) mix("\n" + d);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string normalized_source(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  bool pending_space = false;
  auto emit = [&](char c) {
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
    out += c;
  };
  for (size_t i = 0; i < source.size(); ++i) {
    const char c = source[i], next = i + 1 < source.size() ? source[i + 1] : '\0';
    if (c == '/' && next == '/') {
      while (i < source.size() && source[i] != '\n') ++i;
      pending_space = true;
    } else if (c == '/' && next == '*') {
      const size_t end = source.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? source.size() : end + 2;
      if (source.compare(i, 8, "/* kopt:") == 0)
        for (size_t j = i; j < stop; ++j) emit(source[j]);  // the contract stays, verbatim
      i = stop - 1;
      pending_space = true;
    } else if (c == '"' || c == '\'') {
      emit(c);
      for (++i; i < source.size() && source[i] != c; ++i) {
        out += source[i];
        if (source[i] == '\\' && i + 1 < source.size()) out += source[++i];
      }
      if (i < source.size()) out += c;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      pending_space = true;
    } else {
      emit(c);
    }
  }
  return out;
}

}  // namespace kopt
