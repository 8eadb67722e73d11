#include "agent/config.h"

#include <toml++/toml.h>

#include <cstdint>
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
  if (scale < 0 || v < 0)
    return Status::error("malformed duration '" + text + "' (e.g. 90s, 30m, 2h)");
  *seconds = v * scale;
  return Status();
}

namespace {

// Reads a table strictly: an unknown key (a typo such as "budgte") or a value
// of the wrong type is an error naming the key and its line, never ignored.
class StrictTable {
 public:
  StrictTable(const std::string& path, const toml::table& table, std::string name)
      : path_(path), table_(table), name_(std::move(name)) {}

  Status check_keys(std::initializer_list<const char*> known) const {
    for (const auto& [key, node] : table_) {
      bool ok = false;
      std::string list;
      for (const char* k : known) {
        ok = ok || key.str() == k;
        list += (list.empty() ? "" : ", ") + std::string(k);
      }
      if (!ok)
        return error(node, "unknown key '" + qualified(std::string(key.str())) +
                               "' (known keys: " + list + ")");
    }
    return Status();
  }
  Status read(const char* key, int64_t* out) const {
    const toml::node* n = table_.get(key);
    if (!n) return Status();
    if (auto v = n->value_exact<int64_t>()) return (*out = *v, Status());
    return type_error(*n, key, "an integer");
  }
  Status read(const char* key, int* out) const {
    int64_t v = *out;
    KOPT_RETURN_IF_ERROR(read(key, &v));
    if (v < INT32_MIN || v > INT32_MAX)
      return error(*table_.get(key), qualified(key) + " is out of range");
    *out = static_cast<int>(v);
    return Status();
  }
  Status read(const char* key, double* out) const {
    const toml::node* n = table_.get(key);
    if (!n) return Status();
    if (auto v = n->value_exact<double>()) return (*out = *v, Status());
    if (auto v = n->value_exact<int64_t>()) return (*out = static_cast<double>(*v), Status());
    return type_error(*n, key, "a number");
  }
  Status read(const char* key, bool* out) const {
    const toml::node* n = table_.get(key);
    if (!n) return Status();
    if (auto v = n->value_exact<bool>()) return (*out = *v, Status());
    return type_error(*n, key, "true or false");
  }
  Status read(const char* key, std::string* out) const {
    const toml::node* n = table_.get(key);
    if (!n) return Status();
    if (auto v = n->value_exact<std::string>()) return (*out = *v, Status());
    return type_error(*n, key, "a string");
  }
  Status error(const toml::node& n, const std::string& what) const {
    return Status::error("config " + path_ + " line " + std::to_string(n.source().begin.line) +
                         ": " + what);
  }

 private:
  std::string qualified(const std::string& key) const {
    return name_.empty() ? key : name_ + "." + key;
  }
  Status type_error(const toml::node& n, const char* key, const char* wanted) const {
    return error(n, qualified(key) + " must be " + wanted + ", not " + std::string(type_name(n)));
  }
  static const char* type_name(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::string:
        return "a string";
      case toml::node_type::integer:
        return "an integer";
      case toml::node_type::floating_point:
        return "a number with a fraction";
      case toml::node_type::boolean:
        return "a boolean";
      case toml::node_type::table:
        return "a table";
      case toml::node_type::array:
        return "an array";
      default:
        return "a date or time";
    }
  }
  const std::string& path_;
  const toml::table& table_;
  std::string name_;
};

// [run]: budgets, the search's knobs, the database.
Status read_run_section(const std::string& path, const toml::table& table, Config* c) {
  const StrictTable run(path, table, "run");
  KOPT_RETURN_IF_ERROR(
      run.check_keys({"budget", "time", "tokens", "trials", "seed", "batch", "database",
                      "unreachable_limit", "niche_every", "bandit", "repair_turns", "transfers"}));
  std::string time;
  int64_t seed = 0;
  KOPT_RETURN_IF_ERROR(run.read("budget", &c->budget));
  KOPT_RETURN_IF_ERROR(run.read("time", &time));
  if (!time.empty() && !parse_duration(time, &c->time_s).ok())
    return run.error(*table.get("time"),
                     "run.time: malformed duration '" + time + "' (e.g. 90s, 30m, 2h)");
  KOPT_RETURN_IF_ERROR(run.read("tokens", &c->tokens));
  KOPT_RETURN_IF_ERROR(run.read("trials", &c->trials));
  KOPT_RETURN_IF_ERROR(run.read("seed", &seed));
  c->seed = static_cast<uint64_t>(seed);
  KOPT_RETURN_IF_ERROR(run.read("batch", &c->batch));
  KOPT_RETURN_IF_ERROR(run.read("database", &c->database));
  KOPT_RETURN_IF_ERROR(run.read("unreachable_limit", &c->unreachable_limit));
  KOPT_RETURN_IF_ERROR(run.read("niche_every", &c->niche_every));
  KOPT_RETURN_IF_ERROR(run.read("bandit", &c->bandit));
  KOPT_RETURN_IF_ERROR(run.read("repair_turns", &c->repair_turns));
  KOPT_RETURN_IF_ERROR(run.read("transfers", &c->transfers));
  if (c->transfers < 0 || c->transfers > 64)
    return run.error(*table.get("transfers"), "run.transfers must be between 0 and 64");
  return Status();
}

// [sandbox]: the worker's limits and the gfx906 check.
Status read_sandbox_section(const std::string& path, const toml::table& table, Config* c) {
  const StrictTable sb(path, table, "sandbox");
  KOPT_RETURN_IF_ERROR(
      sb.check_keys({"compile_timeout_s", "run_timeout_s", "memory_limit_mb", "amd_check"}));
  KOPT_RETURN_IF_ERROR(sb.read("compile_timeout_s", &c->compile_timeout_s));
  KOPT_RETURN_IF_ERROR(sb.read("run_timeout_s", &c->run_timeout_s));
  KOPT_RETURN_IF_ERROR(sb.read("memory_limit_mb", &c->memory_limit_mb));
  KOPT_RETURN_IF_ERROR(sb.read("amd_check", &c->amd_check));
  return Status();
}

// [workers]: GPUs, a launcher (Slurm) and how many.
Status read_workers_section(const std::string& path, const toml::table& table, Config* c) {
  const StrictTable w(path, table, "workers");
  KOPT_RETURN_IF_ERROR(w.check_keys({"gpus", "command", "count"}));
  KOPT_RETURN_IF_ERROR(w.read("gpus", &c->worker_gpus));
  KOPT_RETURN_IF_ERROR(w.read("command", &c->worker_launcher));
  KOPT_RETURN_IF_ERROR(w.read("count", &c->worker_count));
  if (c->worker_count < 1 || c->worker_count > 1024)
    return w.error(*table.get("count"), "workers.count must be between 1 and 1024");
  if (!c->worker_launcher.empty() && c->worker_launcher.find("{worker}") == std::string::npos)
    return w.error(*table.get("command"),
                   "workers.command must contain {worker} (where kopt-worker goes)");
  if (!c->worker_launcher.empty() && !c->worker_gpus.empty())
    return w.error(*table.get("gpus"),
                   "workers.gpus and workers.command exclude each other (a launcher such as "
                   "srun gives each worker its GPU)");
  return Status();
}

// [mutator]: its weight among the proposers.
Status read_mutator_section(const std::string& path, const toml::table& table, Config* c) {
  const StrictTable m(path, table, "mutator");
  KOPT_RETURN_IF_ERROR(m.check_keys({"weight"}));
  KOPT_RETURN_IF_ERROR(m.read("weight", &c->mutator_weight));
  return Status();
}

// [profiler]: on or off, its command and time limit.
Status read_profiler_section(const std::string& path, const toml::table& table, Config* c) {
  const StrictTable pr(path, table, "profiler");
  KOPT_RETURN_IF_ERROR(pr.check_keys({"enabled", "command", "time_limit_s"}));
  KOPT_RETURN_IF_ERROR(pr.read("enabled", &c->profiler_enabled));
  KOPT_RETURN_IF_ERROR(pr.read("command", &c->profiler_command));
  KOPT_RETURN_IF_ERROR(pr.read("time_limit_s", &c->profiler_time_limit_s));
  return Status();
}

// [[models]]: each endpoint the runs may ask, by name.
Status read_models(const std::string& path, const StrictTable& top, const toml::node& n,
                   Config* c) {
  const toml::array* models = n.as_array();
  if (!models) return top.error(n, "models must be an array of tables ([[models]])");
  for (const auto& node : *models) {
    const toml::table* mt = node.as_table();
    if (!mt) return top.error(node, "each entry of models must be a table ([[models]])");
    const StrictTable mr(path, *mt, "models");
    KOPT_RETURN_IF_ERROR(mr.check_keys({"name", "base_url", "model", "api_key_env", "weight",
                                        "temperature", "max_tokens", "timeout_s", "retries",
                                        "price_per_million_input", "price_per_million_output"}));
    ModelConfig m;
    KOPT_RETURN_IF_ERROR(mr.read("name", &m.name));
    KOPT_RETURN_IF_ERROR(mr.read("base_url", &m.base_url));
    m.model = m.name;
    KOPT_RETURN_IF_ERROR(mr.read("model", &m.model));
    KOPT_RETURN_IF_ERROR(mr.read("api_key_env", &m.api_key_env));
    KOPT_RETURN_IF_ERROR(mr.read("weight", &m.weight));
    KOPT_RETURN_IF_ERROR(mr.read("temperature", &m.temperature));
    KOPT_RETURN_IF_ERROR(mr.read("max_tokens", &m.max_tokens));
    KOPT_RETURN_IF_ERROR(mr.read("timeout_s", &m.timeout_s));
    KOPT_RETURN_IF_ERROR(mr.read("retries", &m.retries));
    KOPT_RETURN_IF_ERROR(mr.read("price_per_million_input", &m.price_per_million_input));
    KOPT_RETURN_IF_ERROR(mr.read("price_per_million_output", &m.price_per_million_output));
    if (m.name.empty() || m.base_url.empty())
      return top.error(node, "each [[models]] entry needs a name and a base_url");
    c->models.push_back(m);
  }
  return Status();
}

}  // namespace

Status load_config(const std::string& path, bool required, Config* out) {
  std::ifstream probe(path);
  if (!probe) return required ? Status::error("cannot read config " + path) : Status();
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return Status::error("config " + path + " line " + std::to_string(e.source().begin.line) +
                         ": " + std::string(e.description()));
  }
  Config c = *out;
  const StrictTable top(path, t, "");
  KOPT_RETURN_IF_ERROR(
      top.check_keys({"run", "sandbox", "workers", "mutator", "profiler", "models"}));
  auto section = [&](const char* name, const toml::table** table) -> Status {
    *table = nullptr;
    const toml::node* n = t.get(name);
    if (!n) return Status();
    if (!(*table = n->as_table()))
      return top.error(*n, std::string(name) + " must be a table ([" + name + "])");
    return Status();
  };
  const toml::table* table = nullptr;
  KOPT_RETURN_IF_ERROR(section("run", &table));
  if (table) KOPT_RETURN_IF_ERROR(read_run_section(path, *table, &c));
  KOPT_RETURN_IF_ERROR(section("sandbox", &table));
  if (table) KOPT_RETURN_IF_ERROR(read_sandbox_section(path, *table, &c));
  KOPT_RETURN_IF_ERROR(section("workers", &table));
  if (table) KOPT_RETURN_IF_ERROR(read_workers_section(path, *table, &c));
  KOPT_RETURN_IF_ERROR(section("mutator", &table));
  if (table) KOPT_RETURN_IF_ERROR(read_mutator_section(path, *table, &c));
  KOPT_RETURN_IF_ERROR(section("profiler", &table));
  if (table) KOPT_RETURN_IF_ERROR(read_profiler_section(path, *table, &c));
  if (const toml::node* n = t.get("models")) KOPT_RETURN_IF_ERROR(read_models(path, top, *n, &c));
  if (c.budget < 1 || c.trials < 1 || c.trials > 100 || c.batch < 1 || c.batch > 64 ||
      c.time_s < 0 || c.compile_timeout_s <= 0 || c.run_timeout_s <= 0 || c.memory_limit_mb < 64 ||
      c.mutator_weight < 0)
    return Status::error("config " + path +
                         ": a value is out of range (budget >= 1, 1 <= trials <= 100, 1 <= batch "
                         "<= 64, positive limits)");
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
