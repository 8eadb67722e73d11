// The numbers of a compiler's resource report, read without a regular
// expression (linear, bounded stack, whatever the text holds): shared by
// the AMD and the ptxas report parsers. Internal to kopt_contract.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>

namespace kopt::report_numbers {

// The most digits a number may have: nine always fit an int.
constexpr size_t kMostDigits = 9;

// The number that starts at `at` (digits only, at most nine), or -1; `end`
// where its digits stop.
inline int number_at(const std::string& s, size_t at, size_t* end) {
  *end = at;
  while (*end < s.size() && *end - at < kMostDigits &&
         std::isdigit(static_cast<unsigned char>(s[*end])))
    ++*end;
  return *end == at ? -1 : std::stoi(s.substr(at, *end - at));
}

// The number that ends just before `at` (digits only, at most nine), or -1.
inline int number_before(const std::string& s, size_t at) {
  size_t begin = at;
  while (begin > 0 && at - begin < kMostDigits &&
         std::isdigit(static_cast<unsigned char>(s[begin - 1])))
    --begin;
  return begin == at ? -1 : std::stoi(s.substr(begin, at - begin));
}

}  // namespace kopt::report_numbers
