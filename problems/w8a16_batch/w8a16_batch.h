// The W8A16 problem at decode batches: Y = X · W for M rows of activations
// (continuous batching, speculative decoding), X fp16 [M][K], W the same
// per-channel int8 canonical weights as w8a16_gemv, Y fp32 [M][N].
// Registered as "w8a16_batch" (problems/registry.h); M = 1 is w8a16_gemv's
// problem, which keeps its id, notation and library.
#pragma once

#include <cstdint>
#include <memory>

#include "sandbox/contract/problem.h"

namespace kopt::w8a16_batch {

inline constexpr const char* kId = "w8a16_batch";

// M rows of K inputs, N outputs.
Shape shape(int64_t M, int64_t K, int64_t N);

std::unique_ptr<Problem> make_problem();

}  // namespace kopt::w8a16_batch
