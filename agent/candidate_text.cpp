#include "agent/candidate_text.h"

#include <dtl/dtl.hpp>
#include <map>
#include <sstream>

#include "agent/proposer.h"
#include "sandbox/contract/candidate.h"

namespace kopt {

std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

namespace {

// The first sentence of an answer's prose (outside code blocks and edits):
// the one-line summary the prompt asks every model for.
std::string first_sentence(const std::string& answer) {
  std::string prose;
  bool in_code = false, in_edit = false;
  for (const auto& line : text_lines(answer)) {
    if (line.rfind("```", 0) == 0) {
      in_code = !in_code;
      continue;
    }
    if (line.rfind("<<<<<<<", 0) == 0) in_edit = true;
    if (line.rfind(">>>>>>>", 0) == 0) {
      in_edit = false;
      continue;
    }
    if (in_code || in_edit) continue;
    if (line.find_first_not_of(" \t") == std::string::npos) {
      if (!prose.empty()) break;
      continue;
    }
    prose += (prose.empty() ? "" : " ") + line.substr(line.find_first_not_of(" \t"));
  }
  const size_t end = prose.find(". ");
  prose = prose.substr(0, end == std::string::npos ? prose.size() : end + 1);
  return prose.size() > 240 ? prose.substr(0, 237) + "..." : prose;
}

}  // namespace

std::string candidate_idea(const CandidateRecord& c, const CandidateRecord* parent) {
  if (c.proposer == "seed") return "seed";
  // Its parent is the same kernel on another shape: no move to describe.
  if (c.proposer == "transfer")
    return "transferred: the fastest kernel of a nearby shape on this GPU, measured here as it is";
  if (c.proposer == "library")
    return "from the shipped library: its tuned kernel of this or a nearby shape, measured here as "
           "it is";
  if (parent && parent->source == c.source) {
    // Both sides with the contract's defaults filled in, so "{}" and an
    // explicit default compare equal.
    const bool parses = c.parsed && c.parsed->contract.ok();
    auto effective = [&](const std::string& params_json) {
      std::map<std::string, int64_t> values;
      if (parses)
        for (const auto& p : c.parsed->candidate.spec.params) values[p.name] = p.default_value;
      for (const auto& [name, value] : params_from_json(params_json)) values[name] = value;
      return values;
    };
    const auto a = effective(parent->params_json), b = effective(c.params_json);
    std::string moves;
    for (const auto& [name, value] : b) {
      auto before = a.find(name);
      if (before == a.end() || before->second != value)
        moves += (moves.empty() ? "" : ", ") + name + " " +
                 (before == a.end() ? std::string("-") : std::to_string(before->second)) + " → " +
                 std::to_string(value);
    }
    return moves.empty() ? "same source and parameters" : "parameters: " + moves;
  }
  std::string idea;
  if (c.parsed && c.parsed->contract.ok() && !c.parsed->candidate.spec.description.empty())
    idea = c.parsed->candidate.spec.name + ": " + c.parsed->candidate.spec.description;
  const std::string said = first_sentence(c.answer);
  if (!said.empty()) idea += (idea.empty() ? "" : " — ") + said;
  return idea.empty() ? "new source (" + c.name + ")" : idea;
}

std::string unified_diff(const std::string& a, const std::string& b) {
  dtl::Diff<std::string> diff(text_lines(a), text_lines(b));
  diff.compose();
  diff.composeUnifiedHunks();
  std::ostringstream out;
  diff.printUnifiedFormat(out);
  return out.str();
}

std::string parameter_words(const CandidateRecord& c) {
  if (!c.parsed || !c.parsed->ok()) return c.params_json;
  if (c.parsed->candidate.params.empty()) return "-";
  std::string words;
  for (const auto& [name, value] : c.parsed->candidate.params)
    words += (words.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return words;
}

}  // namespace kopt
