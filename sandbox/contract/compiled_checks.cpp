// The rules decided on the compiled code (PTX, AMDGPU assembly): no matrix
// instruction, no L2 residency control, however the source produced them.
#include <algorithm>
#include <cctype>
#include <string>

#include "sandbox/contract/static_checks.h"

namespace kopt {

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

Status check_compiled_code(const std::string& assembly) {
  KOPT_RETURN_IF_ERROR(check_no_matrix_instructions(assembly));
  // Residency control anywhere, however it was produced (inline assembly,
  // builtins, annotated pointers). The allow-list of inline-assembly
  // mnemonics stays a rule of the source (read as the assembler reads it):
  // in the compiled code the toolkit headers' own inline assembly (abs.f16x2
  // in cuda_fp16.hpp, trap) shares the markers of the candidate's and cannot
  // be told from it, while what would pay (matrix instructions, residency
  // control) is found here whoever wrote it.
  for (const std::string& residency : residency_control_markers())
    if (size_t at = assembly.find(residency); at != std::string::npos)
      return Status::error(
          "L2 residency control (" + residency + ") in the compiled code (line " +
          std::to_string(
              1 + std::count(assembly.begin(), assembly.begin() + static_cast<long>(at), '\n')) +
          ") is not allowed: it would keep part of the rotated weights resident "
          "across timed calls, which a real decode does not get");
  return Status();
}

}  // namespace kopt
