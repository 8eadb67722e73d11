// `kopt export`: re-verifies each shape's best candidate on this GPU and
// writes it, with its launch code, as generated sources for the shipped
// library (kernels/), plus a dispatch table and a generic fallback.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sandbox/candidate.h"
#include "sandbox/status.h"

namespace kopt {

struct ExportCommand {
  std::string db_path = "kopt.db";
  std::string suite;
  std::vector<std::string> shapes;
  int64_t group = 64;
  std::string out_dir;
  bool fallbacks_only = false;  // write only the generic fallbacks (no GPU needed)
};
int run_export(const ExportCommand& cmd);

// What one generated source describes (exposed for tests).
struct ExportedKernel {
  std::string symbol;           // C identifier prefix, e.g. k7168x9216_g64 or generic_vec
  std::string header;           // provenance comment lines
  Candidate candidate;          // source, contract, parameter values
  int64_t K = 0, N = 0, G = 0;  // 0: generic (any shape the contract supports)
  // > 0: gfx906 needs this much scratch for the kernel, so the AMD build of
  // the library leaves it out of the table and takes the generic path there.
  int64_t gfx906_scratch_bytes = 0;
};

// The symbol (and file name stem) of a shape's tuned kernel: k7168x9216_g64.
std::string tuned_kernel_symbol(const Shape& shape);
// The candidate's source as embedded in a generated file, exactly as
// evaluated (what `kopt bench --tuned` times); an error where the file has
// no candidate-source section.
Status embedded_candidate_source(const std::string& generated, std::string* source);

// The generated HIP source: the kernels in their own namespace with renamed
// entry points, and host launch code evaluating the contract's expressions.
Status generate_kernel_source(const ExportedKernel& k, std::string* out);
// The dispatch table entries for the library.
std::string generate_dispatch(const std::vector<ExportedKernel>& tuned,
                              const std::vector<ExportedKernel>& generic);

}  // namespace kopt
