#include "agent/config.h"

#include <toml++/toml.h>

#include <cstdlib>
#include <fstream>

namespace kopt {

Status parse_duration(const std::string& text, double* seconds) {
  if (text.empty()) return Status::error("empty duration");
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return Status::error("malformed duration '" + text + "' (e.g. 90s, 30m, 2h)");
  }
  std::string unit = text.substr(used);
  double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (scale < 0 || v < 0) return Status::error("malformed duration '" + text + "' (e.g. 90s, 30m, 2h)");
  *seconds = v * scale;
  return Status();
}

Status load_config(const std::string& path, bool required, Config* out) {
  std::ifstream probe(path);
  if (!probe) return required ? Status::error("cannot read config " + path) : Status();
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return Status::error("config " + path + " line " + std::to_string(e.source().begin.line) + ": " +
                         std::string(e.description()));
  }
  Config c = *out;
  auto bad = [&](const std::string& key) { return Status::error("config " + path + ": bad value for " + key); };
  if (auto run = t["run"].as_table()) {
    c.budget = (*run)["budget"].value_or(c.budget);
    if (auto time = (*run)["time"].value<std::string>()) {
      if (!parse_duration(*time, &c.time_s).ok()) return bad("run.time");
    }
    c.tokens = (*run)["tokens"].value_or(c.tokens);
    c.trials = static_cast<int>((*run)["trials"].value_or(int64_t{c.trials}));
    c.seed = static_cast<uint64_t>((*run)["seed"].value_or(int64_t{0}));
    c.batch = static_cast<int>((*run)["batch"].value_or(int64_t{c.batch}));
    c.database = (*run)["database"].value_or(c.database);
  }
  if (auto sb = t["sandbox"].as_table()) {
    c.compile_timeout_s = (*sb)["compile_timeout_s"].value_or(c.compile_timeout_s);
    c.run_timeout_s = (*sb)["run_timeout_s"].value_or(c.run_timeout_s);
    c.memory_limit_mb = (*sb)["memory_limit_mb"].value_or(c.memory_limit_mb);
    c.amd_check = (*sb)["amd_check"].value_or(c.amd_check);
  }
  if (auto m = t["mutator"].as_table()) c.mutator_weight = (*m)["weight"].value_or(c.mutator_weight);
  if (auto models = t["models"].as_array()) {
    for (const auto& node : *models) {
      const toml::table* mt = node.as_table();
      if (!mt) return bad("models");
      ModelConfig m;
      m.name = (*mt)["name"].value_or(std::string());
      m.base_url = (*mt)["base_url"].value_or(std::string());
      m.model = (*mt)["model"].value_or(m.name);
      m.api_key_env = (*mt)["api_key_env"].value_or(m.api_key_env);
      m.weight = (*mt)["weight"].value_or(m.weight);
      m.temperature = (*mt)["temperature"].value_or(m.temperature);
      m.max_tokens = (*mt)["max_tokens"].value_or(m.max_tokens);
      m.timeout_s = (*mt)["timeout_s"].value_or(m.timeout_s);
      m.retries = static_cast<int>((*mt)["retries"].value_or(int64_t{m.retries}));
      m.price_per_million_input = (*mt)["price_per_million_input"].value_or(0.0);
      m.price_per_million_output = (*mt)["price_per_million_output"].value_or(0.0);
      if (m.name.empty() || m.base_url.empty()) return bad("models (each needs name and base_url)");
      c.models.push_back(m);
    }
  }
  if (c.budget < 1 || c.trials < 1 || c.trials > 100 || c.batch < 1 || c.batch > 64 || c.time_s < 0 ||
      c.compile_timeout_s <= 0 || c.run_timeout_s <= 0 || c.memory_limit_mb < 64 || c.mutator_weight < 0)
    return Status::error("config " + path + ": a value is out of range (budget >= 1, 1 <= trials <= 100, 1 <= batch <= 64, positive limits)");
  *out = c;
  return Status();
}

void apply_environment(Config* c) {
  const char* url = std::getenv("KOPT_MODEL_BASE_URL");
  const char* model = std::getenv("KOPT_MODEL");
  if (!url || !*url) return;
  if (c->models.empty()) c->models.push_back(ModelConfig{});
  ModelConfig& m = c->models.front();
  m.base_url = url;
  if (model && *model) m.model = model;
  if (m.name.empty()) m.name = m.model.empty() ? "env" : m.model;
}

}  // namespace kopt
