// The contract's helper functions (cdiv, align, min, max) on the host, as
// the generated launch code and the libraries' own launch math use them.
// Plain C++: no GPU runtime, so host-only code and the tests include it too.
#pragma once

#include <cstddef>

constexpr long long kopt_cdiv(long long a, long long b) { return (a + b - 1) / b; }
constexpr long long kopt_align(long long a, long long b) { return kopt_cdiv(a, b) * b; }
constexpr long long kopt_min(long long a, long long b) { return a < b ? a : b; }
constexpr long long kopt_max(long long a, long long b) { return a > b ? a : b; }

// The smallest of `buckets` (ascending) that holds `rows` rows; 0 past the
// largest: the row bucket both libraries' batched kernels pick for a call.
template <std::size_t Count>
constexpr long long kopt_smallest_bucket(const int (&buckets)[Count], long long rows) {
  for (const int bucket : buckets)
    if (rows <= bucket) return bucket;
  return 0;
}
