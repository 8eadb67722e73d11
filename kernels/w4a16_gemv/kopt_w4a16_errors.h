// The library's one error text (kopt_w4a16_last_error, per thread), set by
// the C API and the host-side importers alike. Internal: not installed.
#pragma once

#include <string>

// Records `message` as the last error and returns `code`.
int kopt_w4a16_fail(int code, const std::string& message);
