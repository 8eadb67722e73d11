#include "agent/answer_parser.h"

#include <vector>

#include "agent/candidate_text.h"

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

// A model's reasoning preamble (<think>...</think>, as reasoning models write
// it) may quote code or edit markers that are not the answer.
std::string without_reasoning(const std::string& answer) {
  std::string out = answer;
  for (size_t open; (open = out.find("<think>")) != std::string::npos;) {
    const size_t close = out.find("</think>", open);
    out.erase(open, close == std::string::npos ? std::string::npos : close + 8 - open);
  }
  return out;
}

std::string trimmed(const std::string& line) {
  const size_t b = line.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
}

// Applies one edit. Exact text first; then, as models drift in indentation,
// the SEARCH lines matched with leading and trailing white space ignored
// (blank lines skipped) — still required to match exactly once.
Status apply_edit(const Edit& e, size_t index, std::string* text) {
  const std::string which = "edit " + std::to_string(index + 1);
  size_t at = text->find(e.search);
  if (at != std::string::npos) {
    if (text->find(e.search, at + 1) != std::string::npos)
      return Status::error(which + ": SEARCH text is not unique in the parent");
    text->replace(at, e.search.size(), e.replace);
    return Status();
  }
  std::vector<std::string> wanted;
  for (const auto& l : text_lines(e.search))
    if (!trimmed(l).empty()) wanted.push_back(trimmed(l));
  const std::vector<std::string> lines = text_lines(*text);
  if (wanted.empty()) return Status::error(which + ": SEARCH text is blank");
  // Candidate matches: start line, end line (exclusive), skipping blank lines inside.
  std::vector<std::pair<size_t, size_t>> matches;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (trimmed(lines[i]) != wanted[0]) continue;
    size_t j = i, w = 0;
    while (j < lines.size() && w < wanted.size()) {
      const std::string t = trimmed(lines[j]);
      if (t.empty()) {
        ++j;
        continue;
      }
      if (t != wanted[w]) break;
      ++j, ++w;
    }
    if (w == wanted.size()) matches.emplace_back(i, j);
  }
  const std::string first_line = wanted[0].substr(0, 80);
  if (matches.empty())
    return Status::error(which + ": SEARCH text not found in the parent (first line: '" +
                         first_line + "')");
  if (matches.size() > 1)
    return Status::error(which + ": SEARCH text matches " + std::to_string(matches.size()) +
                         " places in the parent (first line: '" + first_line + "')");
  std::string out;
  for (size_t i = 0; i < matches[0].first; ++i) out += lines[i] + "\n";
  out += e.replace;
  if (!e.replace.empty() && e.replace.back() != '\n') out += "\n";
  for (size_t i = matches[0].second; i < lines.size(); ++i)
    out += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  if (!text->empty() && text->back() == '\n' && (out.empty() || out.back() != '\n')) out += "\n";
  *text = out;
  return Status();
}

// The parent's contract comment ("/* kopt: ... */"), or "" if it has none.
std::string contract_block(const std::string& source) {
  const size_t start = source.find("/* kopt:");
  if (start == std::string::npos) return "";
  const size_t end = source.find("*/", start);
  return end == std::string::npos ? "" : source.substr(start, end + 2 - start);
}

bool looks_like_kernel(const std::string& code) {
  return code.find("__global__") != std::string::npos ||
         code.find("KOPT_KERNEL") != std::string::npos;
}

// A block holding only a JSON object with "launches": a contract written
// beside the kernel instead of in its comment.
bool looks_like_contract(const std::string& block) {
  const size_t b = block.find_first_not_of(" \t\r\n");
  return b != std::string::npos && block[b] == '{' &&
         block.find("\"launches\"") != std::string::npos && !looks_like_kernel(block);
}

}  // namespace

Status parse_model_answer(const std::string& raw_answer, const std::string& parent,
                          std::string* source, std::string* kind) {
  if (raw_answer.empty()) return Status::error("empty answer");
  if (raw_answer.size() > kMaxAnswerBytes) return Status::error("answer larger than 512 KiB");
  const std::string answer = without_reasoning(raw_answer);
  if (answer.find("<<<<<<< SEARCH") != std::string::npos) {
    std::vector<Edit> edits;
    KOPT_RETURN_IF_ERROR(parse_edits(answer, &edits));
    std::string out = parent;
    for (size_t i = 0; i < edits.size(); ++i) KOPT_RETURN_IF_ERROR(apply_edit(edits[i], i, &out));
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
  // A kernel without its contract comment: the contract from a JSON block of
  // the same answer, else the parent's (a model that only rewrote the body
  // often keeps the parent's launch shape). The sandbox then checks that the
  // kernels the contract names exist, as for any candidate.
  const std::string* kernel = nullptr;
  for (const auto& b : blocks)
    if (looks_like_kernel(b) && (!kernel || b.size() > kernel->size())) kernel = &b;
  if (kernel) {
    for (const auto& b : blocks)
      if (looks_like_contract(b)) {
        *source = "/* kopt:\n" + b + "*/\n" + *kernel;
        *kind = "full+contract-block";
        return Status();
      }
    const std::string contract = contract_block(parent);
    if (!contract.empty()) {
      *source = contract + "\n" + *kernel;
      *kind = "full+parent-contract";
      return Status();
    }
  }
  return Status::error(blocks.empty()
                           ? "no code block and no SEARCH/REPLACE edits in the answer"
                           : "no code block holds a kernel with its /* kopt: */ contract");
}

}  // namespace kopt
