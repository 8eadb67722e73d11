// Named shape suites: the contest's 14 shapes and the linear projections of
// widely used models at decode (batch 1), per tensor-parallel degree.
#pragma once

#include <string>
#include <vector>

#include "sandbox/problem.h"
#include "sandbox/status.h"

namespace kopt {

struct SuiteShape {
  Shape shape;
  std::string role;  // what the shape is, e.g. "tp2 qkv_proj"
};

struct Suite {
  std::string name;         // e.g. "llama3-8b"
  std::string description;  // one line: the model and its dimensions
  std::vector<SuiteShape> shapes;
};

// Every suite, in a fixed order ("contest" first). Shapes use group size
// `group`; a suite shape it does not divide is left out (named in the
// description).
std::vector<Suite> all_suites(int64_t group = 64);
// One suite by name; an unknown name is an error listing the known ones.
Status find_suite(const std::string& name, int64_t group, Suite* out);

// The shapes a command names: a suite (empty for none) followed by each
// "KxN" text. An unknown suite or a malformed shape is an error.
Status resolve_shapes(const std::string& suite, const std::vector<std::string>& texts,
                      int64_t group, std::vector<Shape>* out);

}  // namespace kopt
