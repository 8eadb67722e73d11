// Where tests find the source tree and the worker, wherever the build folder
// was carried: the test binary sits in <repo>/<build>/.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "db/database.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/contract/problem.h"
#include "sandbox/contract/protocol.h"

namespace kopt::test {

// The W4A16 GEMV problem, and one of its seeds (every test binary registers
// the built-in problems before its tests run).
const Problem& w4a16_problem();
const Seed& w4a16_seed(const std::string& name);

// An evaluation as the loop stores it: the record of a result with this
// verdict ("ok", "wrong_result"...), shape key, device and, when timed, median
// time, with `extra` merged into the record (e.g. {"amd": {...}}).
EvaluationRecord evaluation_of(const CandidateRecord& c, const std::string& shape_key,
                               const std::string& device, const std::string& verdict,
                               std::optional<double> median_us,
                               const nlohmann::json& extra = nlohmann::json::object());

std::string source_dir();
std::string read_source_file(const std::string& relative_path);
// A fresh path under /tmp unique to this process (and, for SQLite, its
// -wal and -shm companions removed).
std::string temp_path(const std::string& name);

// Writes an executable fake worker (a shell script speaking the worker
// protocol on fd 3) that claims a GPU and answers every evaluation "ok,
// 5 us". `device_fields` are JSON members (shell-expanded) added to the
// device it reports and to every result's device; `prelude` is shell run
// first. Returns its path.
std::string write_fake_worker(const std::string& name, const std::string& device_fields,
                              const std::string& prelude = "");
// The GPU tests run only where a worker reports a device; the reason otherwise.
// KOPT_REQUIRE_GPU=1: the GPU tests fail, not skip, when no GPU answers.
bool gpu_required();
bool gpu_available(std::string* why);

// What every GPU test evaluates with: a worker with a 10 s run limit and no
// gfx906 check, and one verification round with a fixed input seed.
SandboxOptions gpu_test_options(double compile_s = 60);
EvalRequest gpu_test_request(const std::string& source, const Shape& shape, bool time,
                             uint64_t seed);

}  // namespace kopt::test
