// The linear projections of widely used LLMs at decode (batch 1), per
// tensor-parallel degree, as (K inputs, N outputs) pairs: shared by every
// problem of the y = x·W family, each mapping a pair onto its own shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kopt {

struct Projection {
  int64_t K = 0, N = 0;
  std::string role;  // e.g. "tp2 qkv_proj"
};

struct ProjectionSuite {
  std::string name;         // e.g. "llama3-8b"
  std::string description;  // the model and its dimensions
  std::vector<Projection> projections;
};

// The DatenLord W4A16 GEMV contest's 14 (K, N) pairs, in the contest's order.
std::vector<Projection> contest_projections();

// Llama-3 8B/70B, Qwen2.5 7B/32B, Mistral 7B, DeepSeek-V3, in this order.
std::vector<ProjectionSuite> model_projection_suites();

}  // namespace kopt
