#include "agent/answer_parser.h"

#include <nlohmann/json.hpp>
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

// A line that stands for lines the model left out: a comment or a bare
// line made of an ellipsis ("// ... rest of the loop unchanged ...",
// "/* ... */", "...").
bool is_elision(const std::string& line) {
  const std::string t = trimmed(line);
  if (t.find("...") == std::string::npos && t.find("\xE2\x80\xA6") == std::string::npos)
    return false;
  return t.rfind("//", 0) == 0 || t.rfind("/*", 0) == 0 || t.rfind("#", 0) == 0 ||
         t.find_first_not_of(".\xE2\x80\xA6 ") == std::string::npos;
}

Status apply_edit(const Edit& e, size_t index, std::string* text);

// An edit whose SEARCH skips unchanged lines with an elision marker: the
// lines before the marker and those after it are found (each unique, in
// that order) and everything from the first to the last is replaced; an
// elision in the REPLACE text stands for what lay between, kept as it was.
Status apply_elided_edit(const Edit& e, size_t index, std::string* text, bool* applied) {
  *applied = false;
  const std::vector<std::string> search = text_lines(e.search);
  size_t marker = search.size();
  for (size_t i = 0; i < search.size(); ++i)
    if (is_elision(search[i])) {
      if (marker != search.size())
        return Status::error("edit " + std::to_string(index + 1) +
                             ": SEARCH has more than one elision marker; give the lines around "
                             "one gap only");
      marker = i;
    }
  if (marker == search.size()) return Status();
  std::string before, after;
  for (size_t i = 0; i < marker; ++i) before += search[i] + "\n";
  for (size_t i = marker + 1; i < search.size(); ++i) after += search[i] + "\n";
  const std::string which = "edit " + std::to_string(index + 1);
  if (trimmed(before).empty() || trimmed(after).empty())
    return Status::error(which + ": an elision marker needs SEARCH lines before and after it");
  // Locate both parts with the same tolerance as a plain SEARCH, by marking
  // them in a copy of the text.
  const std::string open = "\x01KOPT_BEFORE\x01\n", close = "\x01KOPT_AFTER\x01\n";
  std::string marked = *text;
  KOPT_RETURN_IF_ERROR(apply_edit(Edit{before, open + before}, index, &marked));
  const size_t b = marked.find(open);
  std::string tail = marked.substr(b + open.size());
  KOPT_RETURN_IF_ERROR(apply_edit(Edit{after, after + close}, index, &tail));
  const size_t a_end = tail.find(close);
  // What lay between the two parts, kept where REPLACE elides it too.
  std::string kept;
  {
    std::string t = tail.substr(0, a_end);
    const std::vector<std::string> tl = text_lines(t), bl = text_lines(before),
                                   al = text_lines(after);
    // The parts were matched on their non-blank lines (blank lines skipped),
    // so they are stepped over the same way: their non-blank lines, then the
    // blank lines at their inner edge (before's last, after's first).
    auto non_blank = [](const std::vector<std::string>& ls) {
      size_t n = 0;
      for (const auto& l : ls) n += !trimmed(l).empty();
      return n;
    };
    auto blank_edge = [](const std::vector<std::string>& ls, bool at_end) {
      size_t n = 0;
      for (size_t i = 0; i < ls.size() && trimmed(ls[at_end ? ls.size() - 1 - i : i]).empty(); ++i)
        ++n;
      return n;
    };
    size_t from = 0, skipped = 0;
    const size_t before_lines = non_blank(bl), after_lines = non_blank(al);
    for (; from < tl.size() && skipped < before_lines; ++from)
      if (!trimmed(tl[from]).empty()) ++skipped;
    for (size_t n = blank_edge(bl, true); n > 0 && from < tl.size() && trimmed(tl[from]).empty();
         --n)
      ++from;
    size_t to = tl.size();
    for (skipped = 0; to > from && skipped < after_lines; --to)
      if (!trimmed(tl[to - 1]).empty()) ++skipped;
    for (size_t n = blank_edge(al, false); n > 0 && to > from && trimmed(tl[to - 1]).empty(); --n)
      --to;
    for (size_t i = from; i < to; ++i) kept += tl[i] + "\n";
  }
  std::string replacement;
  for (const auto& line : text_lines(e.replace))
    replacement += is_elision(line) ? kept : line + "\n";
  *text = marked.substr(0, b) + replacement + tail.substr(a_end + close.size());
  *applied = true;
  return Status();
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
  if (matches.empty()) {
    bool applied = false;
    KOPT_RETURN_IF_ERROR(apply_elided_edit(e, index, text, &applied));
    if (applied) return Status();
  }
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

// A complete program around the kernel (includes, a host main(), runtime
// calls, the launch): its top-level pieces that are host code are dropped
// and the includes the prelude provides with them; the kernels, device
// functions, macros and constants stay. `dropped` counts what went.
bool is_host_piece(const std::string& piece) {
  if (piece.find("__global__") != std::string::npos ||
      piece.find("KOPT_KERNEL") != std::string::npos ||
      piece.find("__device__") != std::string::npos ||
      piece.find("KOPT_INLINE") != std::string::npos || piece.find("/* kopt:") != std::string::npos)
    return false;
  for (const char* host :
       {"main(", "hipMalloc", "cudaMalloc", "hipMemcpy", "cudaMemcpy", "<<<", "hipLaunchKernelGGL",
        "hipFree", "cudaFree", "std::", "printf(", "malloc("})
    if (piece.find(host) != std::string::npos) return true;
  return false;
}

std::string without_host_code(const std::string& code, int* dropped) {
  *dropped = 0;
  std::string out, piece;
  int depth = 0;
  bool code_in_piece = false;  // the piece holds more than blanks and comments
  auto flush = [&]() {
    if (is_host_piece(piece))
      ++*dropped;
    else
      out += piece;
    piece.clear();
    code_in_piece = false;
  };
  for (size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    // Comments and literals are copied whole; their braces do not count.
    if (c == '/' && i + 1 < code.size() && (code[i + 1] == '*' || code[i + 1] == '/')) {
      const size_t end = code[i + 1] == '*' ? code.find("*/", i + 2) : code.find('\n', i);
      const size_t stop =
          end == std::string::npos ? code.size() : end + (code[i + 1] == '*' ? 2 : 0);
      piece += code.substr(i, stop - i);
      i = stop - 1;
      continue;
    }
    if (c == '"' || c == '\'') {
      code_in_piece = true;
      size_t j = i + 1;
      while (j < code.size() && code[j] != c && code[j] != '\n') j += code[j] == '\\' ? 2 : 1;
      piece += code.substr(i, std::min(j + 1, code.size()) - i);
      i = std::min(j, code.size() - 1);
      continue;
    }
    // A directive at the top level, after nothing but blanks and comments:
    // its own line (kept with the comments before it, or dropped if an include).
    if (c == '#' && depth == 0 && !code_in_piece) {
      size_t end = code.find('\n', i);
      if (end == std::string::npos) end = code.size();
      const std::string line = code.substr(i, end - i);
      if (trimmed(line).rfind("#include", 0) == 0 || trimmed(line).rfind("# include", 0) == 0) {
        ++*dropped;
        out += piece;
      } else {
        out += piece + line + "\n";
      }
      piece.clear();
      i = end;
      continue;
    }
    piece += c;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') code_in_piece = true;
    if (c == '{') ++depth;
    if (c == '}' && depth > 0 && --depth == 0) {
      // A definition ends here (a struct's ';' may follow on its own).
      flush();
    } else if (c == ';' && depth == 0) {
      flush();
    }
  }
  flush();
  return out;
}

bool looks_like_program(const std::string& code) {
  return code.find("main(") != std::string::npos || code.find("<<<") != std::string::npos ||
         code.find("hipMalloc") != std::string::npos ||
         code.find("cudaMalloc") != std::string::npos;
}

// A unified diff of the parent (```diff, "@@ -a,b +c,d @@" hunks, as git
// and many models write them): each hunk becomes an edit whose SEARCH is its
// context and removed lines and whose REPLACE is its context and added lines,
// applied with the same tolerance as SEARCH/REPLACE (white space, line
// endings; offsets are not needed: the context must match once).
bool looks_like_diff(const std::string& text) {
  return text.find("\n@@ ") != std::string::npos || text.rfind("@@ ", 0) == 0;
}

Status apply_unified_diff(const std::string& diff, std::string* text) {
  std::vector<Edit> hunks;
  Edit* hunk = nullptr;
  for (const std::string& raw : text_lines(diff)) {
    std::string line = raw;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("@@", 0) == 0) {
      hunks.emplace_back();
      hunk = &hunks.back();
      continue;
    }
    if (!hunk || line.rfind("---", 0) == 0 || line.rfind("+++", 0) == 0 ||
        line.rfind("\\ No newline", 0) == 0)
      continue;
    if (line.rfind("```", 0) == 0) {
      hunk = nullptr;
      continue;
    }
    const char tag = line.empty() ? ' ' : line[0];
    const std::string body = line.empty() ? "" : line.substr(1);
    if (tag == '-') {
      hunk->search += body + "\n";
    } else if (tag == '+') {
      hunk->replace += body + "\n";
    } else if (tag == ' ') {
      hunk->search += body + "\n";
      hunk->replace += body + "\n";
    }
  }
  if (hunks.empty()) return Status::error("a diff without @@ hunks");
  for (size_t i = 0; i < hunks.size(); ++i) {
    if (trimmed(hunks[i].search).empty())
      return Status::error("hunk " + std::to_string(i + 1) +
                           ": no context or removed lines to place it; give a few unchanged "
                           "lines around the change");
    Status s = apply_edit(hunks[i], i, text);
    if (!s.ok()) {
      std::string m = s.message();
      m.replace(0, m.find(':'), "hunk " + std::to_string(i + 1));
      return Status::error(m + "; the diff must be against the parent kernel shown");
    }
  }
  return Status();
}

// A tool call that arrived as the answer's text (models trained for tool use
// answer so where the endpoint offers no tools): {"name": ..., "arguments":
// {...} or "<JSON text>"}, or the arguments object alone, with the source in
// "source", "code" or "kernel", and optionally a "contract" (object or text).
// Returns false when the answer is not such an object.
bool unwrap_tool_call(const std::string& answer, std::string* source) {
  std::string text = trimmed(answer);
  if (text.rfind("```", 0) == 0) {  // a fenced JSON block
    const size_t nl = text.find('\n'), end = text.rfind("```");
    if (nl == std::string::npos || end <= nl) return false;
    text = trimmed(text.substr(nl + 1, end - nl - 1));
  }
  if (text.empty() || text[0] != '{') return false;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  for (int depth = 0; depth < 3 && j.is_object(); ++depth) {
    for (const char* key : {"source", "code", "kernel"})
      if (j.contains(key) && j[key].is_string()) {
        *source = j[key].get<std::string>();
        if (source->find("/* kopt:") == std::string::npos && j.contains("contract")) {
          const nlohmann::json& c = j["contract"];
          const std::string contract = c.is_string()   ? c.get<std::string>()
                                       : c.is_object() ? c.dump(2)
                                                       : "";
          if (!contract.empty()) *source = "/* kopt:\n" + contract + "\n*/\n" + *source;
        }
        return true;
      }
    nlohmann::json next;
    for (const char* key : {"arguments", "parameters", "input", "function"})
      if (j.contains(key)) {
        next = j[key].is_string() ? nlohmann::json::parse(j[key].get<std::string>(), nullptr, false)
                                  : j[key];
        break;
      }
    j = next;
  }
  return false;
}

}  // namespace

Status parse_model_answer(const std::string& raw_answer, const std::string& parent,
                          std::string* source, std::string* kind) {
  if (raw_answer.empty()) return Status::error("empty answer");
  if (raw_answer.size() > kMaxAnswerBytes) return Status::error("answer larger than 512 KiB");
  const std::string answer = without_reasoning(raw_answer);
  if (std::string tool_source; unwrap_tool_call(answer, &tool_source)) {
    if (tool_source.empty()) return Status::error("a tool call with an empty source");
    // The source field may itself be an answer (a fenced block, edits).
    if (tool_source.find("/* kopt:") != std::string::npos &&
        tool_source.find("```") == std::string::npos) {
      *source = tool_source;
      *kind = "tool-call";
      return Status();
    }
    KOPT_RETURN_IF_ERROR(parse_model_answer(tool_source, parent, source, kind));
    *kind = "tool-call+" + *kind;
    return Status();
  }
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
    if (looks_like_diff(b)) {
      std::string out = parent;
      KOPT_RETURN_IF_ERROR(apply_unified_diff(b, &out));
      *source = out;
      *kind = "diff";
      return Status();
    }
  if (blocks.empty() && looks_like_diff(answer) && !looks_like_kernel(answer)) {
    std::string out = parent;
    KOPT_RETURN_IF_ERROR(apply_unified_diff(answer, &out));
    *source = out;
    *kind = "diff";
    return Status();
  }
  // Several blocks with a contract: the last one, since models that give
  // two present the second as the fix of the first.
  for (auto b = blocks.rbegin(); b != blocks.rend(); ++b)
    if (b->find("/* kopt:") != std::string::npos) {
      *source = *b;
      *kind = "full";
      if (looks_like_program(*b)) {
        int dropped = 0;
        *source = without_host_code(*b, &dropped);
        if (dropped > 0) *kind = "full+host-code-dropped";
      }
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
      int dropped = 0;
      *source = contract + "\n" +
                (looks_like_program(*kernel) ? without_host_code(*kernel, &dropped) : *kernel);
      *kind = dropped > 0 ? "full+parent-contract+host-code-dropped" : "full+parent-contract";
      return Status();
    }
  }
  return Status::error(blocks.empty()
                           ? "no code block and no SEARCH/REPLACE edits in the answer"
                           : "no code block holds a kernel with its /* kopt: */ contract");
}

}  // namespace kopt
