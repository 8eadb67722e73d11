#include "tests/test_paths.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sandbox/subprocess.h"
#include "sandbox/worker_client.h"

namespace kopt::test {

std::string source_dir() {
  // KOPT_SOURCE_DIR first; then the folder above the test binary when it is
  // a source tree (a build folder inside the repository, or binaries
  // carried to another machine beside a copy of it); then the source tree
  // this build was configured from, wherever the build folder is.
  if (const char* env = std::getenv("KOPT_SOURCE_DIR")) return env;
  const std::string above = executable_dir() + "/..";
  if (std::ifstream(above + "/sandbox/prelude.hip").good()) return above;
  return KOPT_TEST_SOURCE_DIR;
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

}  // namespace kopt::test
