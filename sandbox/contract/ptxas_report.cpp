#include "sandbox/contract/ptxas_report.h"

#include "sandbox/contract/report_numbers.h"

namespace kopt {

namespace {

using report_numbers::number_at;
using report_numbers::number_before;

// The largest of the numbers that `read` finds at each occurrence of `key`.
template <typename Read>
void keep_largest(const std::string& s, const std::string& key, Read read, int* value) {
  for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + 1)) {
    const int v = read(at);
    if (v > *value) *value = v;
  }
}

}  // namespace

void parse_ptxas_resources(const std::string& log, TargetResources* out) {
  // Read without a regular expression (linear, bounded stack, whatever the
  // text holds), as the AMD report is.
  const std::string used = "Used ";
  keep_largest(
      log, used,
      [&](size_t at) {
        size_t end = 0;
        const int v = number_at(log, at + used.size(), &end);
        return log.compare(end, 10, " registers") == 0 ? v : -1;
      },
      &out->registers);
  keep_largest(
      log, " bytes stack frame", [&](size_t at) { return number_before(log, at); },
      &out->spill_bytes);
  keep_largest(
      log, " bytes smem", [&](size_t at) { return number_before(log, at); }, &out->shared_bytes);
}

}  // namespace kopt
