// What a kernel needs on one target architecture, as a compiler or the
// loaded module reports it. Its own header because every target's check
// fills one: the GPU that measured it (the loaded module), gfx906 (the
// offline AMD check), sm_90 without a GPU (the ptxas report).
#pragma once

#include <string>

namespace kopt {

// EvalResult keeps one per target, by name.
struct TargetResources {
  bool checked = false;      // the compile for this target ran (false: `note` says why not)
  bool compiled = false;     // the source builds for it
  std::string note;          // why not checked, or the compile error summary
  std::string log;           // compiler output (capped)
  int registers = 0;         // per thread, worst kernel (NVIDIA registers, AMD VGPRs)
  int scalar_registers = 0;  // AMD SGPRs, worst kernel
  int spill_bytes = 0;       // local memory (NVIDIA) or scratch (AMD), worst kernel
  int shared_bytes = 0;      // static shared memory, worst kernel
  int occupancy = 0;         // waves per SIMD, lowest kernel (AMD)
  std::string toolchain;     // the compiler's version line
};

}  // namespace kopt
