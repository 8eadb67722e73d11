#include "sandbox/contract/amd_offline.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sandbox/contract/report_numbers.h"
#include "sandbox/contract/static_checks.h"
#include "sandbox/contract/subprocess.h"

namespace kopt {

namespace {
bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A private scratch directory, removed with everything in it.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/kopt-amd-XXXXXX";
    if (mkdtemp(tmpl)) path = tmpl;
  }
  ~TempDir() {
    if (path.empty()) return;
    for (const char* f : {"/k.hip", "/k.s"}) unlink((path + f).c_str());
    rmdir(path.c_str());
  }
};
}  // namespace

AmdToolchain AmdToolchain::find() {
  AmdToolchain t;
  const char* env = std::getenv("KOPT_AMD_CLANG");
  t.clang = find_program(env ? env : "clang++-15");
  const char* libs = std::getenv("KOPT_AMD_DEVICE_LIBS");
  t.device_libs = libs ? libs : "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";
  t.rocm_path = "/usr";
  if (!exists(t.device_libs) || !exists("/usr/include/hip/hip_runtime.h")) t.clang.clear();
  return t;
}

void parse_amdgpu_resources(const std::string& s, TargetResources* out) {
  // "; Key: 123" comment lines of the assembler output, read without a
  // regular expression (linear, bounded stack, whatever the text holds).
  auto scan = [&s](const std::string& key, bool take_max, int* value) {
    bool first = true;
    for (size_t at = s.find(key + ":"); at != std::string::npos; at = s.find(key + ":", at + 1)) {
      size_t before = at;
      while (before > 0 && (s[before - 1] == ' ' || s[before - 1] == '\t')) --before;
      if (before == 0 || s[before - 1] != ';') continue;
      size_t digits = at + key.size() + 1;
      while (digits < s.size() && (s[digits] == ' ' || s[digits] == '\t')) ++digits;
      size_t end = 0;
      const int v = report_numbers::number_at(s, digits, &end);
      if (v < 0) continue;
      if (first || (take_max ? v > *value : v < *value)) *value = v;
      first = false;
    }
  };
  scan("NumVgprs", true, &out->registers);
  scan("NumSgprs", true, &out->scalar_registers);
  scan("ScratchSize", true, &out->spill_bytes);
  scan("Occupancy", false, &out->occupancy);
}

Status check_gfx906(const AmdToolchain& tc, const std::string& full_source,
                    const std::vector<std::string>& defines, double timeout_s,
                    TargetResources* out) {
  *out = TargetResources();
  if (!tc.available()) {
    out->note =
        "not checked: no clang++-15 with ROCm device libraries here; run `kopt check-amd` on a "
        "machine that has them";
    return Status();
  }
  TempDir dir;
  if (dir.path.empty()) return Status::error("cannot create a temporary directory");
  {
    std::ofstream f(dir.path + "/k.hip", std::ios::binary);
    f << full_source;
  }
  std::vector<std::string> argv = {tc.clang,
                                   "-x",
                                   "hip",
                                   "--offload-arch=gfx906",
                                   "--cuda-device-only",
                                   "-O3",
                                   "-S",
                                   "-std=c++17",
                                   "-DKOPT_WARP_SIZE=64",
                                   "--rocm-path=" + tc.rocm_path,
                                   "--rocm-device-lib-path=" + tc.device_libs,
                                   "-Wno-unused-command-line-argument",
                                   dir.path + "/k.hip",
                                   "-o",
                                   dir.path + "/k.s"};
  argv.insert(argv.end() - 4, defines.begin(), defines.end());
  ProcessResult r;
  KOPT_RETURN_IF_ERROR(run_process(argv, timeout_s, 64 * 1024, &r));
  out->checked = true;
  out->log = r.output;
  out->toolchain = "clang++-15 (ROCm device libs " + tc.device_libs + ")";
  if (r.timed_out) {
    out->note =
        "gfx906 compile timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s";
    return Status();
  }
  if (r.exit_code != 0) {
    out->note = "does not compile for gfx906";
    return Status();
  }
  std::string assembly = read_file(dir.path + "/k.s");
  out->compiled = true;
  parse_amdgpu_resources(assembly, out);
  Status matrix = check_compiled_code(assembly);
  if (!matrix.ok()) {
    out->compiled = false;
    out->note = matrix.message();
  }
  return Status();
}

}  // namespace kopt
