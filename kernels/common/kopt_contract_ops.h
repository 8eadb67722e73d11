// The contract's helper functions (cdiv, align, min, max) on the host, as
// the generated launch code and the libraries' own launch math use them, and
// what both libraries' batched builds share (row buckets, tuned tables).
// Plain C++: no GPU runtime, so host-only code and the tests include it too.
#pragma once

#include <cstddef>

constexpr long long kopt_cdiv(long long a, long long b) { return (a + b - 1) / b; }
constexpr long long kopt_align(long long a, long long b) { return kopt_cdiv(a, b) * b; }
constexpr long long kopt_min(long long a, long long b) { return a < b ? a : b; }
constexpr long long kopt_max(long long a, long long b) { return a > b ? a : b; }

// The index in `buckets` (ascending) of the smallest that holds `rows`
// rows; -1 past the largest: the row bucket both libraries' batched kernels
// pick for a call.
template <std::size_t Count>
constexpr int kopt_bucket_index(const int (&buckets)[Count], long long rows) {
  for (std::size_t i = 0; i < Count; ++i)
    if (rows <= buckets[i]) return static_cast<int>(i);
  return -1;
}

// That bucket's rows; 0 past the largest.
template <std::size_t Count>
constexpr long long kopt_smallest_bucket(const int (&buckets)[Count], long long rows) {
  const int i = kopt_bucket_index(buckets, rows);
  return i < 0 ? 0 : buckets[i];
}

// The most rows one launch of `buckets`' builds takes.
template <std::size_t Count>
constexpr int kopt_largest_bucket(const int (&buckets)[Count]) {
  return buckets[Count - 1];
}

// Whether every entry of a tuned table has a build among `builds` that
// `matches` it (which must reject a table's end marker, if it has one): the
// libraries' build-time check of their tuned tables, since a lookup that
// finds no build falls back to the usual choice without a word.
template <typename Entry, std::size_t EntryCount, typename Build, std::size_t BuildCount,
          typename Matches>
constexpr bool kopt_each_entry_has_a_build(const Entry (&table)[EntryCount],
                                           const Build (&builds)[BuildCount], Matches matches) {
  for (const Entry& entry : table) {
    bool built = false;
    for (const Build& b : builds) built = built || matches(b, entry);
    if (!built) return false;
  }
  return true;
}
