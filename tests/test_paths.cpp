#include "tests/test_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "problems/registry.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/client/worker_client.h"
#include "sandbox/contract/subprocess.h"

namespace kopt::test {

namespace {
// Before any test: the problems, as kopt and kopt-worker register them.
const bool kProblemsRegistered = (register_builtin_problems(), true);
}  // namespace

const Problem& w4a16_problem() {
  (void)kProblemsRegistered;
  return *find_problem(w4a16::kId);
}

const Seed& w4a16_seed(const std::string& name) {
  const Seed* seed = find_seed(w4a16_problem(), name);
  if (!seed) std::abort();  // a test names a seed that does not exist
  return *seed;
}

std::string source_dir() {
  // KOPT_SOURCE_DIR first; then the folder above the test binary when it is
  // a source tree (a build folder inside the repository, or binaries
  // carried to another machine beside a copy of it); then the source tree
  // this build was configured from, wherever the build folder is.
  if (const char* env = std::getenv("KOPT_SOURCE_DIR")) return env;
  const std::string above = executable_dir() + "/..";
  if (std::ifstream(above + "/sandbox/contract/prelude.hip").good()) return above;
  return KOPT_TEST_SOURCE_DIR;
}

std::string write_fake_worker(const std::string& name, const std::string& device_fields,
                              const std::string& prelude) {
  std::string script = R"(#!/bin/sh
name="Fake GPU"
PRELUDE
while read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"op":"device"'*) echo "{\"id\":$id,\"event\":\"device\",\"device\":{\"name\":\"$name\"FIELDS,\"read_bandwidth_gbps\":1000},\"protocol\":2}" >&3 ;;
    *) echo "{\"id\":$id,\"event\":\"result\",\"result\":{\"verdict\":\"ok\",\"shape\":\"w4a16_gemv:5120x256\",\"device\":{\"name\":\"$name\"FIELDS},\"timing\":{\"median_us\":5.0,\"gbps\":100,\"fraction_of_read_bw\":0.1,\"method\":\"fake\"}}}" >&3 ;;
  esac
done
)";
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = script.find(from); at != std::string::npos;
         at = script.find(from, at + to.size()))
      script.replace(at, from.size(), to);
  };
  replace_all("PRELUDE", prelude);
  replace_all("FIELDS", device_fields);
  const std::string path = temp_path(name);
  std::ofstream(path) << script;
  chmod(path.c_str(), 0755);
  return path;
}

EvaluationRecord evaluation_of(const CandidateRecord& c, const std::string& shape_key,
                               const std::string& device, const std::string& verdict,
                               std::optional<double> median_us, const nlohmann::json& extra) {
  nlohmann::json r = {{"verdict", verdict}, {"shape", shape_key}, {"device", {{"name", device}}}};
  if (median_us) r["timing"] = {{"median_us", *median_us}, {"method", "test"}};
  r.merge_patch(extra);
  EvaluationRecord e;
  e.candidate_id = c.id;
  e.run_id = c.run_id;
  e.candidate_key = c.key;
  e.record_json = r.dump();
  return e;
}

std::string read_source_file(const std::string& relative_path) {
  std::ifstream f(source_dir() + "/" + relative_path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string temp_path(const std::string& name) {
  std::string path = "/tmp/kopt_test_" + std::to_string(getpid()) + "_" + name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return path;
}

bool gpu_available(std::string* why) {
  static int cached = -1;
  static std::string reason;
  if (cached < 0) {
    WorkerClient client(default_worker_command());
    DeviceInfo d;
    Status s = client.device_info(false, &d);
    cached = s.ok() ? 1 : 0;
    reason = s.message();
  }
  *why = reason;
  return cached == 1;
}

bool gpu_required() {
  const char* required = std::getenv("KOPT_REQUIRE_GPU");
  return required && std::string(required) == "1";
}

SandboxOptions gpu_test_options(double compile_s) {
  SandboxOptions o;
  o.limits.run_s = 10;
  o.limits.compile_s = compile_s;
  o.amd_check = false;
  return o;
}

EvalRequest gpu_test_request(const std::string& source, const Shape& shape, bool time,
                             uint64_t seed) {
  EvalRequest r;
  r.candidate = enter_candidate(source, {});
  r.shape = shape;
  r.seed = seed;
  r.trials = 1;
  r.time = time;
  return r;
}

}  // namespace kopt::test
