// The W4A16 problem at decode batches: Y = X · W for M rows of activations
// (continuous batching, speculative decoding), X fp16 [M][K], W the same
// int4 group-quantised canonical weights as w4a16_gemv, Y fp32 [M][N].
// Registered as "w4a16_batch" (problems/registry.h); M = 1 is the contest
// problem itself, which keeps its id, notation and library.
#pragma once

#include <cstdint>
#include <memory>

#include "sandbox/contract/problem.h"

namespace kopt::w4a16_batch {

inline constexpr const char* kId = "w4a16_batch";

// M rows of K inputs, N outputs, group size G.
Shape shape(int64_t M, int64_t K, int64_t N, int64_t G = 64);

std::unique_ptr<Problem> make_problem();

}  // namespace kopt::w4a16_batch
