// The real kopt binary run as a user runs it, for the command-line tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sandbox/contract/subprocess.h"
#include "tests/test_paths.h"

namespace kopt {
namespace test {

struct Outcome {
  int code;
  std::string output;
};

inline Outcome kopt_cli(const std::vector<std::string>& args, const std::string& env = "") {
  std::string cmd = env + " " + executable_dir() + "/kopt";
  for (const auto& a : args) cmd += " '" + a + "'";
  ProcessResult r;
  Status s = run_process({"/bin/sh", "-c", cmd}, 120, 1 << 20, &r);
  EXPECT_TRUE(s.ok()) << s.message();
  return {r.exit_code, r.output};
}

// A worker that claims a GPU and answers every evaluation "ok, 5 us".
inline std::string fake_worker() { return "KOPT_WORKER=" + write_fake_worker("worker.sh", ""); }

}  // namespace test
}  // namespace kopt
