// NVIDIA's assembler report (ptxas -v, through NVRTC's --ptxas-options) read
// into a target's resources: what a machine without a GPU can say about a
// candidate's registers and spills on the tuning target, which on a GPU
// the loaded module's attributes give.
#pragma once

#include <string>

#include "sandbox/contract/target_resources.h"

namespace kopt {

// Reads every function's "Used N registers", "N bytes stack frame" (local
// memory a thread, spills included: what the driver's local-size attribute
// gives) and "N bytes smem" lines of `log`; keeps the worst of each in
// `out`. Lines it does not know are skipped; `out` keeps its values where
// the log has none.
void parse_ptxas_resources(const std::string& log, TargetResources* out);

}  // namespace kopt
