#include "agent/answer_parser.h"

#include <vector>

namespace kopt {

namespace {

constexpr size_t kMaxAnswerBytes = 512 * 1024;

struct Edit {
  std::string search, replace;
};

// Blocks of the form (markers at line starts):
//   <<<<<<< SEARCH
//   old lines
//   =======
//   new lines
//   >>>>>>> REPLACE
Status parse_edits(const std::string& text, std::vector<Edit>* edits) {
  size_t pos = 0;
  while ((pos = text.find("<<<<<<< SEARCH", pos)) != std::string::npos) {
    size_t start = text.find('\n', pos);
    if (start == std::string::npos) return Status::error("truncated SEARCH block");
    size_t mid = text.find("\n=======", start);
    if (mid == std::string::npos) return Status::error("SEARCH block without =======");
    size_t rep_start = text.find('\n', mid + 1);
    size_t end = text.find(">>>>>>> REPLACE", rep_start == std::string::npos ? mid : rep_start);
    if (rep_start == std::string::npos || end == std::string::npos)
      return Status::error("SEARCH block without >>>>>>> REPLACE (truncated answer?)");
    Edit e;
    e.search = text.substr(start + 1, mid - start);  // keeps the final newline
    e.replace = end > rep_start + 1 ? text.substr(rep_start + 1, end - rep_start - 1) : "";
    if (e.search.empty()) return Status::error("empty SEARCH text");
    edits->push_back(e);
    pos = end;
  }
  return Status();
}

// The fenced code blocks of a Markdown answer; `unclosed` if the last one
// never ends (a truncated answer).
std::vector<std::string> code_blocks(const std::string& text, bool* unclosed) {
  std::vector<std::string> blocks;
  *unclosed = false;
  size_t pos = 0;
  while ((pos = text.find("```", pos)) != std::string::npos) {
    size_t body = text.find('\n', pos);
    if (body == std::string::npos) {
      *unclosed = true;
      break;
    }
    size_t end = text.find("\n```", body);
    if (end == std::string::npos) {
      *unclosed = true;
      break;
    }
    blocks.push_back(text.substr(body + 1, end - body));
    pos = end + 4;
  }
  return blocks;
}

}  // namespace

Status parse_model_answer(const std::string& answer, const std::string& parent, std::string* source,
                          std::string* kind) {
  if (answer.empty()) return Status::error("empty answer");
  if (answer.size() > kMaxAnswerBytes) return Status::error("answer larger than 512 KiB");
  if (answer.find("<<<<<<< SEARCH") != std::string::npos) {
    std::vector<Edit> edits;
    KOPT_RETURN_IF_ERROR(parse_edits(answer, &edits));
    std::string out = parent;
    for (size_t i = 0; i < edits.size(); ++i) {
      size_t at = out.find(edits[i].search);
      if (at == std::string::npos)
        return Status::error("edit " + std::to_string(i + 1) +
                             ": SEARCH text not found in the parent");
      if (out.find(edits[i].search, at + 1) != std::string::npos)
        return Status::error("edit " + std::to_string(i + 1) +
                             ": SEARCH text is not unique in the parent");
      out.replace(at, edits[i].search.size(), edits[i].replace);
    }
    *source = out;
    *kind = "edits";
    return Status();
  }
  bool unclosed = false;
  std::vector<std::string> blocks = code_blocks(answer, &unclosed);
  for (const auto& b : blocks)
    if (b.find("/* kopt:") != std::string::npos) {
      *source = b;
      *kind = "full";
      return Status();
    }
  if (unclosed) return Status::error("truncated answer: a code block is never closed");
  if (blocks.empty() && answer.find("/* kopt:") != std::string::npos) {
    *source = answer;
    *kind = "full";
    return Status();
  }
  return Status::error(blocks.empty()
                           ? "no code block and no SEARCH/REPLACE edits in the answer"
                           : "no code block holds a kernel with its /* kopt: */ contract");
}

}  // namespace kopt
