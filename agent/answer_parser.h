// Turns a model's answer into a candidate source: a whole kernel in a fenced
// code block, or SEARCH/REPLACE edits of the parent. Anything else is a
// malformed answer, reported with a reason and never fatal.
#pragma once

#include <string>

#include "sandbox/status.h"

namespace kopt {

// `parent` is the source the edits apply to. On success `source` is the new
// candidate; `kind` says "full" or "edits".
Status parse_model_answer(const std::string& answer, const std::string& parent, std::string* source,
                          std::string* kind);

}  // namespace kopt
