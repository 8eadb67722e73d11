// What a candidate is, in words: the idea of each step and its parameters
// (for the database views, the report and the prompts) and the diff between
// two sources.
#pragma once

#include <string>
#include <vector>

#include "db/database.h"

namespace kopt {

// The lines of a text, without their newlines ("a\nb\n" -> {"a", "b"}).
std::vector<std::string> text_lines(const std::string& text);

// What a candidate tried, in one line: for a parameter move the parameters
// that changed against `parent`; for a model's kernel its contract's
// description and the answer's first sentence; "seed" for a seed.
std::string candidate_idea(const CandidateRecord& candidate, const CandidateRecord* parent);

// A candidate's parameters as NAME=VALUE words, every declared parameter
// with the value it ran with (a seed's defaults spelled out, as its
// children's are); the stored JSON where the contract does not parse.
std::string parameter_words(const CandidateRecord& c);

// A unified diff of two texts ("" when they are identical).
std::string unified_diff(const std::string& a, const std::string& b);

}  // namespace kopt
