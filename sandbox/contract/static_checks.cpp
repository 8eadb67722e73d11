#include "sandbox/contract/static_checks.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

namespace kopt {

namespace {

// Includes the prelude already provides; anything else is refused.
const char* const kProvidedIncludes[] = {
    "hip/hip_runtime.h", "hip/hip_fp16.h", "cuda_fp16.h",
    "cuda_runtime.h",    "cuda.h",         "hip/hip_runtime_api.h"};

// Mnemonic prefixes allowed in asm(): bit tricks and cache-hinted loads that
// portable HIP cannot express, on either target. Never matrix instructions.
const std::vector<std::string> kAllowedAsm = {
    // PTX
    "lop3.b32", "prmt.b32", "shf.", "bfe.", "bfi.", "mov.b32", "mov.b64", "cvt.", "add.", "sub.",
    "mul.", "fma.rn.", "ld.global.nc", "ld.global.cs", "ld.global.lu", "ld.global.L1::no_allocate",
    "ld.global.L2::64B", "ld.global.L2::128B", "ld.global.L2::256B", "ld.global.v4",
    "ld.global.nc.v4", "ld.global.nc.L1::no_allocate", "dp4a.", "dp2a.",
    // AMDGCN
    "v_dot2_f32_f16", "v_dot2c_f32_f16", "v_fma_mix", "v_pk_", "v_perm_b32", "v_and_or_b32",
    "v_lshrrev_b32", "v_bfe_u32", "v_cvt_", "ds_bpermute_b32", "s_waitcnt", "global_load_dwordx4",
    "buffer_load_dwordx4"};

// Cache residency the timing would reward but a real model's decode would
// not get: keeping part of the rotated weights in the L2 across calls.
// Streaming hints (.cs, .lu, L1::no_allocate, L2 prefetch sizes) stay allowed.
const char* const kResidencyControl[] = {"evict_last",   "evict_unchanged", "cache_hint",
                                         "createpolicy", "applypriority",   "discard."};

// Blanks out comments (keeping line numbers) so rules see code only; string
// and character literals are kept for the asm check.
std::string strip_comments(const std::string& s) {
  std::string out = s;
  enum { kCode, kLine, kBlock, kString, kChar } state = kCode;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i], next = i + 1 < s.size() ? s[i + 1] : '\0';
    switch (state) {
      case kCode:
        if (c == '/' && next == '/')
          state = kLine, out[i] = ' ';
        else if (c == '/' && next == '*')
          state = kBlock, out[i] = ' ', out[++i] = ' ';
        else if (c == '"')
          state = kString;
        else if (c == '\'')
          state = kChar;
        break;
      case kLine:
        if (c == '\n')
          state = kCode;
        else
          out[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && next == '/')
          state = kCode, out[i] = ' ', out[++i] = ' ';
        else if (c != '\n')
          out[i] = ' ';
        break;
      case kString:
        if (c == '\\')
          ++i;
        else if (c == '"' || c == '\n')
          state = kCode;
        break;
      case kChar:
        if (c == '\\')
          ++i;
        else if (c == '\'' || c == '\n')
          state = kCode;
        break;
    }
  }
  return out;
}

int line_of(const std::string& s, size_t pos) {
  pos = std::min(pos, s.size());
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<long>(pos), '\n'));
}

std::string at_line(const std::string& s, size_t pos) {
  return " (line " + std::to_string(line_of(s, pos)) + ")";
}

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A C token of the candidate's text.
struct Token {
  enum Kind { kIdentifier, kNumber, kString, kPunct } kind = kPunct;
  size_t pos = 0, size = 0;  // in SourceText::code
  bool starts_line = false;  // the first token of its line
};

// The candidate's text as the compiler reads it: lines continued with a
// backslash joined first (so "cuda\<newline>Malloc" is one name, as the
// compiler sees it), comments blanked, then C tokens, read once, left to
// right, in linear time and constant stack; every rule walks these tokens.
// (Regular expressions are not used on candidate text: libstdc++'s matcher
// recurses per character and one long line overflows the stack.)
class SourceText {
 public:
  explicit SourceText(const std::string& source) : source_(source) {
    std::string spliced;
    spliced.reserve(source.size());
    origin_.reserve(source.size() + 1);
    for (size_t i = 0; i < source.size(); ++i) {
      if (source[i] == '\\' && i + 1 < source.size() && source[i + 1] == '\n') {
        ++i;
        continue;
      }
      if (source[i] == '\\' && i + 2 < source.size() && source[i + 1] == '\r' &&
          source[i + 2] == '\n') {
        i += 2;
        continue;
      }
      spliced += source[i];
      origin_.push_back(i);
    }
    origin_.push_back(source.size());
    code_ = strip_comments(spliced);
    tokenize();
  }

  size_t size() const { return tokens_.size(); }
  const Token& operator[](size_t i) const { return tokens_[i]; }
  std::string_view text(size_t i) const {
    return i < tokens_.size() ? std::string_view(code_).substr(tokens_[i].pos, tokens_[i].size)
                              : std::string_view();
  }
  bool is(size_t i, std::string_view s) const { return i < tokens_.size() && text(i) == s; }
  bool identifier(size_t i) const {
    return i < tokens_.size() && tokens_[i].kind == Token::kIdentifier;
  }
  bool string(size_t i) const {
    return i < tokens_.size() && tokens_[i].kind == Token::kString && code_[tokens_[i].pos] == '"';
  }
  // The token at `i` and the one after it stand on the same line.
  bool same_line(size_t i) const { return i < tokens_.size() && !tokens_[i].starts_line; }
  const std::string& code() const { return code_; }
  // A position in code() in the candidate's own text, and its line.
  size_t origin(size_t pos) const { return origin_[std::min(pos, origin_.size() - 1)]; }
  std::string where(size_t pos) const { return at_line(source_, origin(pos)); }

 private:
  void tokenize() {
    bool new_line = true;
    for (size_t i = 0; i < code_.size();) {
      const char c = code_[i];
      if (c == '\n') {
        new_line = true;
        ++i;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token t;
      t.pos = i;
      t.starts_line = new_line;
      new_line = false;
      if (is_ident_start(c)) {
        t.kind = Token::kIdentifier;
        while (i < code_.size() && is_ident_char(code_[i])) ++i;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        t.kind = Token::kNumber;
        while (i < code_.size() && (is_ident_char(code_[i]) || code_[i] == '.' || code_[i] == '\''))
          ++i;
      } else if (c == '"' || c == '\'') {
        t.kind = Token::kString;
        for (++i; i < code_.size() && code_[i] != c && code_[i] != '\n'; ++i)
          if (code_[i] == '\\') ++i;
        if (i < code_.size() && code_[i] == c) ++i;
      } else {
        t.kind = Token::kPunct;
        i += (c == ':' && i + 1 < code_.size() && code_[i + 1] == ':') ? 2 : 1;
      }
      t.size = std::min(i, code_.size()) - t.pos;
      tokens_.push_back(t);
    }
  }

  const std::string& source_;
  std::string code_;
  std::vector<size_t> origin_;
  std::vector<Token> tokens_;
};

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Host-side or sandbox-escaping constructs: launches from device code, host
// allocation, streams, threads, files, processes, libraries. Each family
// returns the position and text of its first occurrence.
struct Hit {
  size_t pos = std::string::npos;
  std::string text;
  explicit operator bool() const { return pos != std::string::npos; }
};
using Finder = Hit (*)(const SourceText&);

Hit find_substring(const SourceText& t, std::string_view needle) {
  const size_t at = t.code().find(needle);
  return at == std::string::npos ? Hit{} : Hit{at, std::string(needle)};
}

// An identifier satisfying `match`, followed by '(' (a call).
template <typename Match>
Hit find_call(const SourceText& t, Match match) {
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if (t.identifier(i) && match(t.text(i)) && t.is(i + 1, "("))
      return {t[i].pos, std::string(t.text(i)) + "("};
  return {};
}

bool runtime_api_name(std::string_view id) {
  for (std::string_view prefix : {"cuda", "hip", "cu"})
    if (starts_with(id, prefix) && id.size() > prefix.size() &&
        std::isupper(static_cast<unsigned char>(id[prefix.size()])))
      return true;
  return false;
}

struct Forbidden {
  Finder find;
  const char* why;
};
const Forbidden kForbidden[] = {
    {[](const SourceText& t) { return find_substring(t, "<<<"); },
     "kernel launches (host code or dynamic parallelism)"},
    {[](const SourceText& t) { return find_call(t, runtime_api_name); },
     "GPU runtime API calls (host code)"},
    {[](const SourceText& t) {
       for (size_t i = 0; i < t.size(); ++i) {
         if (!t.identifier(i)) continue;
         for (std::string_view lib :
              {"cublas", "hipblas", "rocblas", "cutlass", "thrust", "rocprim", "cudnn", "miopen"})
           if (starts_with(t.text(i), lib)) return Hit{t[i].pos, std::string(t.text(i))};
         if (t.is(i, "cub") && t.is(i + 1, "::")) return Hit{t[i].pos, "cub::"};
       }
       return Hit{};
     },
     "library calls"},
    {[](const SourceText& t) {
       for (size_t i = 0; i + 2 < t.size(); ++i)
         if (t.is(i, "int") && t.is(i + 1, "main") && t.is(i + 2, "("))
           return Hit{t[i].pos, "int main("};
       return Hit{};
     },
     "a main function (host code)"},
    {[](const SourceText& t) {
       for (size_t i = 0; i + 2 < t.size(); ++i)
         if (t.is(i, "std") && t.is(i + 1, "::"))
           for (std::string_view name :
                {"thread", "async", "system", "fstream", "ifstream", "ofstream"})
             if (t.is(i + 2, name)) return Hit{t[i].pos, "std::" + std::string(name)};
       return Hit{};
     },
     "host threads or files"},
    {[](const SourceText& t) {
       return find_call(t, [](std::string_view id) {
         return id == "fopen" || id == "system" || id == "popen" || id == "fork" ||
                id == "dlopen" || id == "getenv" || starts_with(id, "exec");
       });
     },
     "host system calls"},
    {[](const SourceText& t) {
       return find_call(t, [](std::string_view id) { return id == "malloc" || id == "free"; });
     },
     "device heap allocation"},
    {[](const SourceText& t) { return find_substring(t, "__managed__"); }, "managed memory"},
    {[](const SourceText& t) {
       for (size_t i = 0; i + 1 < t.size(); ++i)
         if (t.is(i, "wmma") && t.is(i + 1, "::"))
           return Hit{t[i].pos, "wmma::"};
         else if (t.is(i, "nvcuda") && t.is(i + 1, "::") && t.is(i + 2, "wmma"))
           return Hit{t[i].pos, "nvcuda::wmma"};
       return Hit{};
     },
     "tensor-core (wmma) APIs"},
    {[](const SourceText& t) {
       for (std::string_view s :
            {"__builtin_amdgcn_mfma", "__builtin_amdgcn_wmma", "__hmma_", "__imma_", "__bmma_"})
         if (Hit h = find_substring(t, s)) return h;
       return Hit{};
     },
     "matrix-core builtins"},
    {[](const SourceText& t) {
       for (size_t i = 0; i < t.size(); ++i)
         if (t.is(i, "cooperative_groups") || (t.is(i, "this_grid") && t.is(i + 1, "(")))
           return Hit{t[i].pos, std::string(t.text(i))};
       return Hit{};
     },
     "grid-wide synchronisation"},
};

// The bytes a C string literal stands for (escapes decoded: \n, \t, \xHH,
// octal, ...), so that what the rules read is what the assembler gets.
std::string decode_string_literal(std::string_view literal) {
  std::string out;
  const size_t end =
      literal.size() >= 2 && literal.back() == '"' ? literal.size() - 1 : literal.size();
  for (size_t i = 1; i < end; ++i) {
    if (literal[i] != '\\' || i + 1 >= end) {
      out += literal[i];
      continue;
    }
    const char e = literal[++i];
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'v':
        out += '\v';
        break;
      case 'f':
        out += '\f';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'x': {
        int v = 0;
        while (i + 1 < end && std::isxdigit(static_cast<unsigned char>(literal[i + 1]))) {
          const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(literal[++i])));
          v = (v * 16 + (h <= '9' ? h - '0' : h - 'a' + 10)) & 0xff;
        }
        out += static_cast<char>(v);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0';
          for (int n = 0; n < 2 && i + 1 < end && literal[i + 1] >= '0' && literal[i + 1] <= '7';
               ++n)
            v = (v * 8 + (literal[++i] - '0')) & 0xff;
          out += static_cast<char>(v);
        } else {
          out += e;
        }
    }
  }
  return out;
}

// One instruction of an assembly template against the allow-list and the
// residency rule; `where` says where it came from.
Status check_asm_instruction(std::string instruction, const std::string& where) {
  const size_t b = instruction.find_first_not_of(" \t{}\r\v\f");
  if (b == std::string::npos) return Status();
  instruction = instruction.substr(b);
  while (!instruction.empty() && std::strchr(" \t{}\r\v\f", instruction.back()))
    instruction.pop_back();
  if (instruction.empty()) return Status();
  if (instruction[0] == '@') {  // predicate guard: "@%p1 ld.global..."
    const size_t sp = instruction.find_first_of(" \t");
    if (sp == std::string::npos) return Status();
    const size_t next = instruction.find_first_not_of(" \t", sp);
    if (next == std::string::npos) return Status();
    instruction = instruction.substr(next);
  }
  // Declarations (.reg) and labels ("L1:", nothing after the colon).
  if (instruction[0] == '.') return Status();
  if (instruction.back() == ':' &&
      std::all_of(instruction.begin(), instruction.end() - 1,
                  [](char c) { return is_ident_char(c) || c == '$' || c == '%' || c == '.'; }))
    return Status();
  const std::string mnemonic = instruction.substr(0, instruction.find_first_of(" \t"));
  for (const char* residency : kResidencyControl)
    if (instruction.find(residency) != std::string::npos)
      return Status::error("inline assembly '" + mnemonic + "': L2 residency control (" +
                           residency + ") is not allowed" + where);
  const bool allowed = std::any_of(kAllowedAsm.begin(), kAllowedAsm.end(),
                                   [&](const std::string& p) { return starts_with(mnemonic, p); });
  if (!allowed)
    return Status::error("inline assembly '" + mnemonic + "' is not in the allow-list" + where);
  return Status();
}

// An assembly template, instruction by instruction (';' and line ends
// separate them). Comments are refused: they change how the text looks, not
// what the assembler builds, and have hidden instructions behind labels.
Status check_asm_text(const std::string& text, const std::string& where) {
  if (text.find("//") != std::string::npos || text.find("/*") != std::string::npos ||
      text.find('#') != std::string::npos)
    return Status::error("comments inside inline assembly are not allowed" + where);
  std::string instruction;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ';' || text[i] == '\n') {
      KOPT_RETURN_IF_ERROR(check_asm_instruction(instruction, where));
      instruction.clear();
    } else if (text[i] == '\0') {
      return Status::error("a NUL byte inside inline assembly" + where);
    } else {
      instruction += text[i];
    }
  }
  return Status();
}

// One asm(...) statement at token `i`: qualifiers, then a template of
// adjacent string literals whose every instruction is checked.
Status check_asm_statement(const SourceText& t, size_t i) {
  const std::string where = t.where(t[i].pos);
  size_t j = i + 1;
  while (t.is(j, "volatile") || t.is(j, "__volatile__") || t.is(j, "inline") || t.is(j, "goto"))
    ++j;
  if (!t.is(j, "(")) return Status::error("malformed asm statement" + where);
  ++j;
  if (!t.string(j)) return Status::error("inline assembly must be a string literal" + where);
  std::string text;
  for (; t.string(j); ++j) text += decode_string_literal(t.text(j));
  return check_asm_text(text, where);
}

// Preprocessor directives: includes the prelude provides are blanked in
// `result` (same length, same lines); others and directives that could
// reach outside the source are refused.
Status check_directives(const SourceText& t, std::string* result) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].starts_line || !t.is(i, "#")) continue;
    const size_t hash = t[i].pos;
    const bool has_word = t.same_line(i + 1) && t.identifier(i + 1);
    const std::string word = has_word ? std::string(t.text(i + 1)) : "";
    const std::string where = t.where(hash);
    if (word == "include" || word == "import" || word == "include_next") {
      // The header: "name" (one string token) or <name> (up to '>' on the line).
      std::string header;
      size_t end = std::string::npos;
      if (t.same_line(i + 2) && t.string(i + 2)) {
        header = std::string(t.text(i + 2).substr(1, t[i + 2].size - 2));
        end = t[i + 2].pos + t[i + 2].size;
      } else if (t.same_line(i + 2) && t.is(i + 2, "<")) {
        const size_t open = t[i + 2].pos;
        const size_t close = t.code().find_first_of(">\n", open);
        if (close != std::string::npos && t.code()[close] == '>') {
          header = t.code().substr(open + 1, close - open - 1);
          end = close + 1;
        }
      }
      if (end == std::string::npos)
        return Status::error("directive '#" + word + "' is not allowed" + where +
                             "; only the prelude's headers may be included, by name");
      if (std::find(std::begin(kProvidedIncludes), std::end(kProvidedIncludes), header) ==
          std::end(kProvidedIncludes))
        return Status::error("#include <" + header + "> is not allowed" + where +
                             "; the prelude provides the half types and warp helpers");
      for (size_t p = t.origin(hash); p < t.origin(end); ++p)
        if ((*result)[p] != '\n') (*result)[p] = ' ';
    } else if (word == "embed" || starts_with(word, "include")) {
      return Status::error("directive '#" + word + "' is not allowed" + where);
    } else if (word == "pragma") {
      const std::string_view what = t.text(i + 2);
      if (t.same_line(i + 2) && (what == "push_macro" || what == "comment" ||
                                 (what == "GCC" && t.is(i + 3, "system_header"))))
        return Status::error("directive '#pragma " + std::string(what) + "' is not allowed" +
                             where);
    } else if (word == "define") {
      // Macros may not hide assembly: the asm check reads literal templates.
      for (size_t j = i + 2; t.same_line(j); ++j)
        if (t.is(j, "asm") || t.is(j, "__asm__") || t.is(j, "__asm"))
          return Status::error("inline assembly inside a macro is not allowed" + where);
    }
  }
  return Status();
}

}  // namespace

const std::vector<std::string>& allowed_asm_prefixes() { return kAllowedAsm; }

Status check_source(const std::string& source, const std::vector<std::string>& kernels,
                    std::string* cleaned) {
  if (source.size() > kMaxSourceBytes)
    return Status::error("source is " + std::to_string(source.size()) + " bytes; the limit is " +
                         std::to_string(kMaxSourceBytes));
  if (source.find('\0') != std::string::npos) return Status::error("source contains a NUL byte");
  const SourceText t(source);
  const std::string& code = t.code();
  // Raw string literals are refused: their end is not where a plain
  // literal's is, so they could hide code from the rules that read tokens.
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if (t.identifier(i) && t.text(i).back() == 'R' && t.string(i + 1) &&
        t[i].pos + t[i].size == t[i + 1].pos)
      return Status::error("raw string literals are not allowed" + t.where(t[i].pos));
  std::string result = source;
  KOPT_RETURN_IF_ERROR(check_directives(t, &result));

  for (const auto& f : kForbidden)
    if (Hit h = f.find(t))
      return Status::error("not allowed: " + std::string(f.why) + ": '" + h.text + "'" +
                           t.where(h.pos));

  if (size_t paste = code.find("##"); paste != std::string::npos)
    return Status::error(
        "token pasting (##) is not allowed: it can assemble names the rules refuse" +
        t.where(paste));

  for (size_t i = 0; i < t.size(); ++i)
    if (t.is(i, "asm") || t.is(i, "__asm__") || t.is(i, "__asm"))
      KOPT_RETURN_IF_ERROR(check_asm_statement(t, i));

  // Each kernel the contract names is defined as extern "C" __global__ (or
  // KOPT_KERNEL): within one declaration (no ';' or '{' between), the marker
  // comes before the name and its '('.
  for (const auto& k : kernels) {
    bool found = false, marked = false, saw_extern_c = false;
    for (size_t i = 0; i < t.size() && !found; ++i) {
      if (t.is(i, ";") || t.is(i, "{")) {
        marked = saw_extern_c = false;
      } else if (t.is(i, "extern") && t.is(i + 1, "\"C\"")) {
        saw_extern_c = true;
      } else if ((saw_extern_c && t.is(i, "__global__")) || t.is(i, "KOPT_KERNEL")) {
        marked = true;
      } else if (marked && t.is(i, k) && t.is(i + 1, "(")) {
        found = true;
      }
    }
    if (!found)
      return Status::error(
          "kernel '" + k +
          "' named in the contract is not defined as extern \"C\" __global__ (or KOPT_KERNEL)");
  }
  *cleaned = result;
  return Status();
}

const std::vector<std::string>& residency_control_markers() {
  static const std::vector<std::string> markers(std::begin(kResidencyControl),
                                                std::end(kResidencyControl));
  return markers;
}

}  // namespace kopt
