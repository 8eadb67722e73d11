#include "sandbox/contract/ptxas_report.h"

#include <cctype>

namespace kopt {

namespace {

// The number that ends just before `at` (digits only, at most nine), or -1.
int number_before(const std::string& s, size_t at) {
  size_t begin = at;
  while (begin > 0 && at - begin < 9 && std::isdigit(static_cast<unsigned char>(s[begin - 1])))
    --begin;
  return begin == at ? -1 : std::stoi(s.substr(begin, at - begin));
}

// The number that starts at `at` (digits only, at most nine), or -1; `end`
// where its digits stop.
int number_at(const std::string& s, size_t at, size_t* end) {
  *end = at;
  while (*end < s.size() && *end - at < 9 && std::isdigit(static_cast<unsigned char>(s[*end])))
    ++*end;
  return *end == at ? -1 : std::stoi(s.substr(at, *end - at));
}

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
