#include "problems/common/decode_projections.h"

#include <utility>

namespace kopt {

namespace {

// A dense transformer's projections at decode: y = x·W with K inputs and N
// outputs. Column-parallel layers (qkv, gate+up, fused as engines run them)
// divide N by the tensor-parallel degree; row-parallel ones (o, down) divide K.
struct DenseModel {
  const char* name;
  const char* title;
  int64_t hidden, intermediate, q_width, kv_width;  // q and k/v widths: heads × head dim
  std::vector<int64_t> tp;
};

ProjectionSuite dense_suite(const DenseModel& m) {
  ProjectionSuite s;
  s.name = m.name;
  s.description = std::string(m.title) + ": hidden " + std::to_string(m.hidden) +
                  ", intermediate " + std::to_string(m.intermediate) + ", q " +
                  std::to_string(m.q_width) + ", k/v " + std::to_string(m.kv_width) +
                  "; qkv, o, gate+up, down at tensor-parallel";
  for (size_t i = 0; i < m.tp.size(); ++i)
    s.description += (i ? "/" : " ") + std::to_string(m.tp[i]);
  for (int64_t t : m.tp) {
    const std::string p = "tp" + std::to_string(t) + " ";
    s.projections.push_back({m.hidden, (m.q_width + 2 * m.kv_width) / t, p + "qkv_proj"});
    s.projections.push_back({m.q_width / t, m.hidden, p + "o_proj"});
    s.projections.push_back({m.hidden, 2 * m.intermediate / t, p + "gate_up_proj"});
    s.projections.push_back({m.intermediate / t, m.hidden, p + "down_proj"});
  }
  return s;
}

}  // namespace

std::vector<Projection> contest_projections() {
  const int64_t kn[14][2] = {{7168, 9216}, {7168, 1536}, {7168, 1024}, {5120, 6144}, {5120, 3584},
                             {5120, 3072}, {5120, 768},  {5120, 256},  {4608, 7168}, {4096, 7168},
                             {3072, 5120}, {1536, 6144}, {512, 7168},  {384, 5120}};
  std::vector<Projection> out;
  for (const auto& p : kn) out.push_back({p[0], p[1], "contest"});
  return out;
}

std::vector<ProjectionSuite> model_projection_suites() {
  std::vector<ProjectionSuite> suites;
  const DenseModel dense[] = {
      {"llama3-8b", "Llama-3/3.1 8B", 4096, 14336, 4096, 1024, {1, 2, 4, 8}},
      {"llama3-70b", "Llama-3/3.1/3.3 70B", 8192, 28672, 8192, 1024, {1, 2, 4, 8}},
      {"qwen2.5-7b", "Qwen2.5 7B", 3584, 18944, 3584, 512, {1, 2, 4}},
      {"qwen2.5-32b", "Qwen2.5 32B", 5120, 27648, 5120, 1024, {1, 2, 4, 8}},
      {"mistral-7b",
       "Mistral 7B v0.3 (the projections of Llama-3 8B)",
       4096,
       14336,
       4096,
       1024,
       {1, 2}},
  };
  for (const auto& m : dense) suites.push_back(dense_suite(m));
  // DeepSeek-V3 (and R1): multi-head latent attention and mixture of experts,
  // tensor-parallel 1 (experts are spread, not split, by expert parallelism).
  ProjectionSuite ds{"deepseek-v3",
                     "DeepSeek-V3/R1: hidden 7168, MLA (q rank 1536, kv rank 512, 128 heads), "
                     "dense MLP 18432 (first 3 layers), experts 2048; tensor-parallel 1",
                     {{7168, 1536, "q_a_proj"},
                      {1536, 128 * 192, "q_b_proj"},
                      {7168, 512 + 64, "kv_a_proj_with_mqa"},
                      {512, 128 * 256, "kv_b_proj"},
                      {128 * 128, 7168, "o_proj"},
                      {7168, 2 * 18432, "dense gate_up_proj"},
                      {18432, 7168, "dense down_proj"},
                      {7168, 2 * 2048, "expert gate_up_proj"},
                      {2048, 7168, "expert down_proj"}}};
  suites.push_back(ds);
  return suites;
}

}  // namespace kopt
