// Turns a model's answer into a candidate source: a whole kernel in a fenced
// code block (the last one with a contract, where the answer gives several),
// SEARCH/REPLACE edits of the parent (an elision marker in SEARCH skips
// unchanged lines), a unified diff of the parent, or a tool call written as
// the answer's text. Anything else is a malformed answer, reported with a
// reason that names what to change, and never fatal.
#pragma once

#include <string>

#include "sandbox/contract/status.h"

namespace kopt {

// `parent` is the source the edits apply to. On success `source` is the new
// candidate; `kind` says how it was read: "full", "edits", "diff",
// "full+contract-block", "full+parent-contract", "tool-call" or
// "tool-call+<kind of its source field>"; "+host-code-dropped" when the
// answer was a complete program whose host code (main, allocations, the
// launch, includes) was left out.
Status parse_model_answer(const std::string& answer, const std::string& parent, std::string* source,
                          std::string* kind);

}  // namespace kopt
