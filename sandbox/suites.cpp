#include "sandbox/suites.h"

#include <algorithm>
#include <set>
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

Suite dense_suite(const DenseModel& m, int64_t group) {
  Suite s;
  s.name = m.name;
  s.description = std::string(m.title) + ": hidden " + std::to_string(m.hidden) +
                  ", intermediate " + std::to_string(m.intermediate) + ", q " +
                  std::to_string(m.q_width) + ", k/v " + std::to_string(m.kv_width) +
                  "; qkv, o, gate+up, down at tensor-parallel";
  for (size_t i = 0; i < m.tp.size(); ++i)
    s.description += (i ? "/" : " ") + std::to_string(m.tp[i]);
  for (int64_t t : m.tp) {
    const std::string p = "tp" + std::to_string(t) + " ";
    const std::pair<Shape, const char*> layers[] = {
        {{m.hidden, (m.q_width + 2 * m.kv_width) / t, group}, "qkv_proj"},
        {{m.q_width / t, m.hidden, group}, "o_proj"},
        {{m.hidden, 2 * m.intermediate / t, group}, "gate_up_proj"},
        {{m.intermediate / t, m.hidden, group}, "down_proj"}};
    for (const auto& [shape, role] : layers) s.shapes.push_back({shape, p + role});
  }
  return s;
}

// Drops shapes the group size does not divide (saying so) and repeats.
void finish(Suite* s) {
  std::set<std::string> seen;
  std::vector<SuiteShape> kept;
  int dropped = 0;
  for (auto& e : s->shapes) {
    if (!validate_shape(e.shape).ok()) {
      ++dropped;
      continue;
    }
    if (seen.insert(e.shape.name()).second) kept.push_back(e);
  }
  s->shapes = std::move(kept);
  if (dropped)
    s->description +=
        " (" + std::to_string(dropped) + " shapes left out: group size does not divide K)";
}

}  // namespace

std::vector<Suite> all_suites(int64_t group) {
  std::vector<Suite> suites;
  Suite contest{
      "contest",
      "DatenLord W4A16 GEMV contest (November 2025): 14 shapes, scored by the sum of kernel times",
      {}};
  for (const Shape& s : contest_suite()) contest.shapes.push_back({{s.K, s.N, group}, "contest"});
  suites.push_back(contest);
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
  for (const auto& m : dense) suites.push_back(dense_suite(m, group));
  // DeepSeek-V3 (and R1): multi-head latent attention and mixture of experts,
  // tensor-parallel 1 (experts are spread, not split, by expert parallelism).
  Suite ds{"deepseek-v3",
           "DeepSeek-V3/R1: hidden 7168, MLA (q rank 1536, kv rank 512, 128 heads), dense MLP "
           "18432 (first 3 layers), experts 2048; tensor-parallel 1",
           {}};
  const std::pair<Shape, const char*> layers[] = {{{7168, 1536, group}, "q_a_proj"},
                                                  {{1536, 128 * 192, group}, "q_b_proj"},
                                                  {{7168, 512 + 64, group}, "kv_a_proj_with_mqa"},
                                                  {{512, 128 * 256, group}, "kv_b_proj"},
                                                  {{128 * 128, 7168, group}, "o_proj"},
                                                  {{7168, 2 * 18432, group}, "dense gate_up_proj"},
                                                  {{18432, 7168, group}, "dense down_proj"},
                                                  {{7168, 2 * 2048, group}, "expert gate_up_proj"},
                                                  {{2048, 7168, group}, "expert down_proj"}};
  for (const auto& [shape, role] : layers) ds.shapes.push_back({shape, role});
  suites.push_back(ds);
  for (auto& s : suites) finish(&s);
  return suites;
}

Status find_suite(const std::string& name, int64_t group, Suite* out) {
  std::string known;
  for (auto& s : all_suites(group)) {
    if (s.name == name) {
      *out = std::move(s);
      return Status();
    }
    known += (known.empty() ? "" : ", ") + s.name;
  }
  return Status::error("unknown suite '" + name + "' (known: " + known +
                       "; `kopt suites` lists them)");
}

Status resolve_shapes(const std::string& suite, const std::vector<std::string>& texts,
                      int64_t group, std::vector<Shape>* out) {
  out->clear();
  if (!suite.empty()) {
    Suite found;
    KOPT_RETURN_IF_ERROR(find_suite(suite, group, &found));
    for (const auto& e : found.shapes) out->push_back(e.shape);
  }
  for (const auto& t : texts) {
    Shape s;
    KOPT_RETURN_IF_ERROR(parse_shape(t, group, &s));
    out->push_back(s);
  }
  return Status();
}

}  // namespace kopt
