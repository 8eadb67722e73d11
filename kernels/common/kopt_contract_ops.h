// The contract's helper functions (cdiv, align, min, max) on the host, as
// the generated launch code and the library's own launch math use them.
// Plain C++: no GPU runtime, so host-only code and the tests include it too.
#pragma once

constexpr long long kopt_cdiv(long long a, long long b) { return (a + b - 1) / b; }
constexpr long long kopt_align(long long a, long long b) { return kopt_cdiv(a, b) * b; }
constexpr long long kopt_min(long long a, long long b) { return a < b ? a : b; }
constexpr long long kopt_max(long long a, long long b) { return a > b ? a : b; }
