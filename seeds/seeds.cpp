#include "seeds/seeds.h"

namespace kopt {
namespace embedded {
extern const char* const kSeedNaive;
extern const char* const kSeedVec;
extern const char* const kSeedSplitK;
extern const char* const kSeedDot;
extern const char* const kSeedGen;
}  // namespace embedded

const std::vector<Seed>& builtin_seeds() {
  static const std::vector<Seed> seeds = {
      {"naive", embedded::kSeedNaive},   {"vec", embedded::kSeedVec},
      {"splitk", embedded::kSeedSplitK}, {"dot", embedded::kSeedDot},
      {"gen", embedded::kSeedGen},
  };
  return seeds;
}

const Seed* find_seed(const std::string& name) {
  for (const auto& s : builtin_seeds())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace kopt
