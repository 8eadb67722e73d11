// Static checks on a candidate, before anything runs: source rules (no host
// code, includes, or inline assembly outside an allow-list) and a scan of the
// compiled code for tensor/matrix-core instructions, which the target card
// does not have.
#pragma once

#include <string>
#include <vector>

#include "sandbox/contract/status.h"

namespace kopt {

constexpr size_t kMaxSourceBytes = 256 * 1024;

// Checks the candidate's own text (without the prelude). On success fills
// `cleaned` with the source to compile: includes the prelude already provides
// (hip_runtime.h, hip_fp16.h, cuda_fp16.h, ...) are commented out. The error
// message says which rule was broken and where.
Status check_source(const std::string& source, const std::vector<std::string>& kernels,
                    std::string* cleaned);

// Scans PTX (NVIDIA) or AMDGPU assembly text for matrix-core instructions
// (mma, wmma, wgmma, tcgen05; v_mfma, v_wmma, v_smfmac). Returns an error
// naming the first one found.
Status check_no_matrix_instructions(const std::string& assembly);

// The rules decided on what the compiler produced (PTX, AMDGPU assembly),
// whatever the source looked like: no matrix instruction and no L2 residency
// control (evict_last, createpolicy, cache_hint, ...) anywhere.
Status check_compiled_code(const std::string& assembly);

// The inline-assembly mnemonics a candidate may use (prefix match).
const std::vector<std::string>& allowed_asm_prefixes();

// The markers of L2 residency control (evict_last, createpolicy, ...),
// refused in inline assembly and anywhere in the compiled code.
const std::vector<std::string>& residency_control_markers();

}  // namespace kopt
