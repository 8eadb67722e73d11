// The problems kopt ships, registered with the sandbox core. Each executable
// calls this once at start; a new problem is one folder here and one line
// in registry.cpp.
#pragma once

namespace kopt {

// Registers every built-in problem (the first is the default); repeat calls
// do nothing.
void register_builtin_problems();

}  // namespace kopt
