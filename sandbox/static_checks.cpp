#include "sandbox/static_checks.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace kopt {

namespace {

// Includes the prelude already provides; anything else is refused.
const char* const kProvidedIncludes[] = {
    "hip/hip_runtime.h", "hip/hip_fp16.h", "cuda_fp16.h",
    "cuda_runtime.h",    "cuda.h",         "hip/hip_runtime_api.h"};

// Host-side or sandbox-escaping constructs: launches from device code, host
// allocation, streams, threads, files, processes, libraries.
struct Forbidden {
  const char* pattern;
  const char* why;
};
const Forbidden kForbidden[] = {
    {R"(<<<)", "kernel launches (host code or dynamic parallelism)"},
    {R"(\b(cuda|hip|cu)[A-Z]\w*\s*\()", "GPU runtime API calls (host code)"},
    {R"(\b(cublas|hipblas|rocblas|cutlass|thrust|rocprim|cudnn|miopen)\w*|\bcub\s*::)",
     "library calls"},
    {R"(\bint\s+main\s*\()", "a main function (host code)"},
    {R"(\bstd\s*::\s*(thread|async|system|fstream|ifstream|ofstream)\b)", "host threads or files"},
    {R"(\b(fopen|system|popen|fork|exec\w*|dlopen|getenv)\s*\()", "host system calls"},
    {R"(\b(malloc|free)\s*\()", "device heap allocation"},
    {R"(__managed__)", "managed memory"},
    {R"(\bnvcuda\s*::\s*wmma\b|\bwmma\s*::)", "tensor-core (wmma) APIs"},
    {R"(__builtin_amdgcn_mfma|__builtin_amdgcn_wmma|__hmma_|__imma_|__bmma_)",
     "matrix-core builtins"},
    {R"(\bcooperative_groups\b|\bthis_grid\s*\()", "grid-wide synchronisation"},
};

// Mnemonic prefixes allowed in asm(): bit tricks and cache-hinted loads that
// portable HIP cannot express, on either target. Never matrix instructions.
const std::vector<std::string> kAllowedAsm = {
    // PTX
    "lop3.b32", "prmt.b32", "shf.", "bfe.", "bfi.", "mov.b32", "mov.b64", "cvt.", "add.", "sub.",
    "mul.", "fma.rn.", "ld.global.nc", "ld.global.cs", "ld.global.lu", "ld.global.L1::no_allocate",
    "ld.global.L2::64B", "ld.global.L2::128B", "ld.global.L2::256B", "ld.global.v4",
    "ld.global.nc.v4", "ld.global.nc.L1::no_allocate", "dp4a.",
    // AMDGCN
    "v_dot2_f32_f16", "v_dot2c_f32_f16", "v_fma_mix", "v_pk_", "v_perm_b32", "v_and_or_b32",
    "v_lshrrev_b32", "v_bfe_u32", "v_cvt_", "ds_bpermute_b32", "s_waitcnt", "global_load_dwordx4",
    "buffer_load_dwordx4"};

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
        else if (c == '"')
          state = kCode;
        break;
      case kChar:
        if (c == '\\')
          ++i;
        else if (c == '\'')
          state = kCode;
        break;
    }
  }
  return out;
}

int line_of(const std::string& s, size_t pos) {
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<long>(pos), '\n'));
}

std::string at_line(const std::string& s, size_t pos) {
  return " (line " + std::to_string(line_of(s, pos)) + ")";
}

// Checks each instruction of the template (the string literals before the
// first ':') of one asm(...) statement.
Status check_asm_statement(const std::string& code, size_t start) {
  size_t i = code.find('(', start);
  if (i == std::string::npos)
    return Status::error("malformed asm statement" + at_line(code, start));
  // Only qualifiers may stand between the keyword and '(' ("asm volatile (").
  static const std::regex qualifiers(R"(^\s*(volatile|__volatile__|inline|goto|\s)*$)");
  const size_t keyword_end = code.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", start);
  if (!std::regex_match(code.substr(keyword_end, i - keyword_end), qualifiers))
    return Status::error("malformed asm statement" + at_line(code, start));
  ++i;
  // The template must be a string literal the rules can read, not a name
  // or macro argument standing for one.
  const size_t first = code.find_first_not_of(" \t\r\n", i);
  if (first == std::string::npos || code[first] != '"')
    return Status::error("inline assembly must be a string literal" + at_line(code, start));
  std::string text;
  for (;;) {
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    if (i >= code.size() || code[i] != '"') break;
    for (++i; i < code.size() && code[i] != '"'; ++i) {
      if (code[i] == '\\' && i + 1 < code.size()) {
        ++i;
        text += code[i] == 'n' || code[i] == 't' ? ';' : code[i];
      } else {
        text += code[i];
      }
    }
    ++i;
  }
  std::stringstream stream(text);
  std::string instruction;
  while (std::getline(stream, instruction, ';')) {
    size_t b = instruction.find_first_not_of(" \t{}\r");
    if (b == std::string::npos) continue;
    instruction = instruction.substr(b);
    if (instruction[0] == '@') {  // predicate guard: "@%p1 ld.global..."
      size_t sp = instruction.find(' ');
      if (sp == std::string::npos) continue;
      instruction = instruction.substr(instruction.find_first_not_of(' ', sp));
    }
    if (instruction[0] == '.' || instruction.back() == ':') continue;  // .reg declarations, labels
    std::string mnemonic = instruction.substr(0, instruction.find_first_of(" \t"));
    // Cache residency the timing would reward but a real model's decode would
    // not get: keeping part of the rotated weights in the L2 across calls.
    for (const char* residency :
         {"evict_last", "evict_unchanged", "cache_hint", "createpolicy", "applypriority"})
      if (mnemonic.find(residency) != std::string::npos)
        return Status::error("inline assembly '" + mnemonic + "': L2 residency control (" +
                             residency + ") is not allowed" + at_line(code, start));
    bool allowed = std::any_of(kAllowedAsm.begin(), kAllowedAsm.end(), [&](const std::string& p) {
      return mnemonic.compare(0, p.size(), p) == 0;
    });
    if (!allowed)
      return Status::error("inline assembly '" + mnemonic + "' is not in the allow-list" +
                           at_line(code, start));
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
  std::string code = strip_comments(source);
  std::string result = source;

  static const std::regex include_re(
      R"(^[ \t]*#[ \t]*(include|import|include_next)[ \t]*[<"]([^>"]*)[>"])",
      std::regex::multiline);
  for (auto it = std::sregex_iterator(code.begin(), code.end(), include_re);
       it != std::sregex_iterator(); ++it) {
    std::string header = (*it)[2];
    size_t pos = static_cast<size_t>(it->position(0));
    if (std::find(std::begin(kProvidedIncludes), std::end(kProvidedIncludes), header) ==
        std::end(kProvidedIncludes))
      return Status::error("#include <" + header + "> is not allowed" + at_line(code, pos) +
                           "; the prelude provides the half types and warp helpers");
    result.replace(pos, 2, "//");  // keep length and line numbers
  }
  static const std::regex other_directive(
      R"(^[ \t]*#[ \t]*(include|import|embed|pragma[ \t]+(push_macro|comment|GCC[ \t]+system_header)))",
      std::regex::multiline);
  std::smatch m;
  std::string without_includes = strip_comments(result);
  if (std::regex_search(without_includes, m, other_directive))
    return Status::error("directive '" + m.str(0) + "' is not allowed" +
                         at_line(without_includes, static_cast<size_t>(m.position(0))));

  for (const auto& f : kForbidden) {
    std::regex re(f.pattern);
    if (std::regex_search(code, m, re))
      return Status::error("not allowed: " + std::string(f.why) + ": '" + m.str(0) + "'" +
                           at_line(code, static_cast<size_t>(m.position(0))));
  }

  // Macros may not hide assembly or build names the rules would refuse.
  static const std::regex define_asm(R"(^[ \t]*#[ \t]*define\b[^\n]*\b(asm|__asm__|__asm)\b)",
                                     std::regex::multiline);
  std::string joined = code;  // continuation lines joined, so a macro is one line
  for (size_t at; (at = joined.find("\\\n")) != std::string::npos;) joined.replace(at, 2, "  ");
  if (std::regex_search(joined, m, define_asm))
    return Status::error("inline assembly inside a macro is not allowed" +
                         at_line(code, static_cast<size_t>(m.position(0))));
  if (size_t paste = code.find("##"); paste != std::string::npos)
    return Status::error(
        "token pasting (##) is not allowed: it can assemble names the rules refuse" +
        at_line(code, paste));

  static const std::regex asm_re(R"(\b(asm|__asm__|__asm)\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), asm_re);
       it != std::sregex_iterator(); ++it) {
    KOPT_RETURN_IF_ERROR(check_asm_statement(code, static_cast<size_t>(it->position(0))));
  }

  for (const auto& k : kernels) {
    std::regex def("extern\\s+\"C\"[^;{]*__global__[^;{]*\\b" + k + "\\s*\\(|KOPT_KERNEL[^;{]*\\b" +
                   k + "\\s*\\(");
    if (!std::regex_search(code, def))
      return Status::error(
          "kernel '" + k +
          "' named in the contract is not defined as extern \"C\" __global__ (or KOPT_KERNEL)");
  }
  *cleaned = result;
  return Status();
}

namespace {

// Comments of compiled code removed, each replaced by a space so that what
// stood on either side does not join: PTX and SASS use // and /* */, AMDGPU
// assembly also ';' to the end of a line (only after a comment marker is seen
// as such: in PTX ';' ends an instruction, which a space does as well).
std::string strip_assembly_comments(const std::string& text, bool semicolon_comments) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i], next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '/' && next == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (c == '/' && next == '*') {
      size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 1;
      out += ' ';
    } else if (semicolon_comments && c == ';') {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out;
}

// The opcode families of matrix (tensor-core) instructions: PTX (mma, wmma,
// wgmma, tcgen05 and their dotted forms), SASS (HMMA, HGMMA, IMMA, ...) and
// AMDGPU (v_mfma, v_wmma, v_smfmac).
bool is_matrix_opcode(const std::string& token) {
  std::string t = token;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string base = t.substr(0, t.find('.'));
  static const char* const kPtx[] = {"mma",     "wmma",    "wgmma",   "tcgen05", "hmma",
                                     "hgmma",   "imma",    "igmma",   "bmma",    "bgmma",
                                     "dmma",    "qmma",    "qgmma",   "omma",    "utcmma",
                                     "utchmma", "utcimma", "utcqmma", "utcomma"};
  if (std::find(std::begin(kPtx), std::end(kPtx), base) != std::end(kPtx)) return true;
  for (const char* prefix : {"v_mfma", "v_wmma", "v_smfmac", "v_swmmac"})
    if (t.compare(0, std::char_traits<char>::length(prefix), prefix) == 0) return true;
  return false;
}

}  // namespace

Status check_no_matrix_instructions(const std::string& assembly) {
  // Read as tokens, whatever surrounds them: a mnemonic is found however the
  // source spelled or hid it (macros, string pasting, comments inside the
  // assembly string, predicates, braces, labels on the same line).
  const bool amd =
      assembly.find("amdgcn") != std::string::npos || assembly.find("v_") != std::string::npos;
  const std::string code =
      strip_assembly_comments(assembly, amd && assembly.find(".version") == std::string::npos);
  std::string token;
  auto is_token_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':';
  };
  for (size_t i = 0; i <= code.size(); ++i) {
    if (i < code.size() && is_token_char(code[i])) {
      token += code[i];
      continue;
    }
    if (!token.empty() && is_matrix_opcode(token))
      return Status::error("matrix-core instruction '" + token +
                           "' in the compiled code (the target card has none)");
    token.clear();
  }
  return Status();
}

}  // namespace kopt
