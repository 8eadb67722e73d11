#include "sandbox/contract/static_checks.h"

#include <gtest/gtest.h>

#include "sandbox/contract/prelude.h"
#include "sandbox/worker/rtc.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

const std::string kHeader = "/* kopt: {} */\n";

Status check(const std::string& body, std::string* cleaned = nullptr) {
  std::string out;
  return check_source(kHeader + body, {"gemv"}, cleaned ? cleaned : &out);
}

const char* kKernel =
    "KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, "
    "int G) {\n";

TEST(StaticChecksTest, AcceptsAPlainKernel) {
  EXPECT_TRUE(check(std::string(kKernel) + "  y[0] = 1.f;\n}\n").ok());
}

TEST(StaticChecksTest, RejectsMmaSyncInlineAssembly) {
  std::string src = test::read_source_file("tests/sandbox/adversarial/tensor_core.hip");
  ASSERT_FALSE(src.empty());
  std::string cleaned;
  Status s = check_source(src, {"gemv"}, &cleaned);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("mma.sync"), std::string::npos) << s.message();
}

TEST(StaticChecksTest, AllowsListedInlineAssembly) {
  Status s = check(std::string(kKernel) +
                   "  unsigned r; asm(\"lop3.b32 %0, %1, %2, %3, 0xEA;\" : \"=r\"(r) : \"r\"(1u), "
                   "\"r\"(2u), \"r\"(3u));\n"
                   "  y[0] = r;\n}\n");
  EXPECT_TRUE(s.ok()) << s.message();
  s = check(std::string(kKernel) + "  asm volatile(\"trap;\");\n}\n");
  EXPECT_FALSE(s.ok());
}

TEST(StaticChecksTest, IncludesAreStrippedOrRejected) {
  std::string cleaned;
  ASSERT_TRUE(
      check("#include <hip/hip_runtime.h>\n" + std::string(kKernel) + "}\n", &cleaned).ok());
  EXPECT_EQ(cleaned.find("#include"), std::string::npos);
  EXPECT_EQ(cleaned.size(), kHeader.size() + std::string("#include <hip/hip_runtime.h>\n").size() +
                                std::string(kKernel).size() + 2);
  Status s = check("#include <stdio.h>\n" + std::string(kKernel) + "}\n");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stdio.h"), std::string::npos);
  EXPECT_FALSE(check("#  include \"/etc/passwd\"\n" + std::string(kKernel) + "}\n").ok());
}

TEST(StaticChecksTest, RejectsHostCodeAndEscapes) {
  for (const char* body :
       {"  cudaMalloc(0, 4);\n", "  other<<<1, 1>>>();\n", "  void* p = malloc(4);\n",
        "  cublasSgemv(0);\n", "  hipStreamCreate(0);\n"}) {
    EXPECT_FALSE(check(std::string(kKernel) + body + "}\n").ok()) << body;
  }
  EXPECT_FALSE(check(std::string(kKernel) + "}\nint main() { return 0; }\n").ok());
}

TEST(StaticChecksTest, CommentsDoNotTriggerRules) {
  EXPECT_TRUE(check(std::string(kKernel) +
                    "  // cudaMalloc( and <<< in a comment\n  /* malloc( */ y[0] = 0;\n}\n")
                  .ok());
}

TEST(StaticChecksTest, RequiresDeclaredKernels) {
  std::string out;
  Status s = check_source(kHeader + kKernel + "}\n", {"gemv", "relayout"}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("relayout"), std::string::npos);
}

TEST(StaticChecksTest, RejectsOversizedSources) {
  EXPECT_FALSE(check(std::string(kKernel) + "}\n" + std::string(kMaxSourceBytes, ' ')).ok());
}

TEST(StaticChecksTest, MatrixInstructionScanOnAssemblyText) {
  EXPECT_FALSE(check_no_matrix_instructions(
                   "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, ...;")
                   .ok());
  EXPECT_FALSE(
      check_no_matrix_instructions("\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 ...").ok());
  EXPECT_FALSE(
      check_no_matrix_instructions("  @%p1 wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 ...")
          .ok());
  EXPECT_FALSE(
      check_no_matrix_instructions("\tv_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], 0").ok());
  EXPECT_TRUE(check_no_matrix_instructions(
                  "\tfma.rn.f32 %f1, %f2, %f3, %f4;\n\tv_dot2_f32_f16 v1, v2, v3, v1")
                  .ok());
  EXPECT_TRUE(
      check_no_matrix_instructions("// comment mentioning gemma_model\n\tadd.s32 %r1, %r2, 1;")
          .ok());
}

// What surrounds a mnemonic in the compiled code does not hide it: comments
// between the delimiter and the instruction, braces, predicates, labels,
// tabs, SASS spellings.
TEST(StaticChecksTest, MatrixInstructionScanReadsTokensNotLayout) {
  const char* hidden[] = {
      "\tadd.s32 %r1, %r2, 1;/* x */mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, ...;",
      "{/**/mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1};}",
      "\tmma/* split */.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1};",
      "$L__BB0_1: wgmma.fence.sync.aligned;",
      "@!%p2 tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2;",
      "        /*0090*/                   HMMA.16816.F32 R4, R8, R12, R4 ;",
      "        /*00a0*/                   HGMMA.64x8x16.F32 R24, gdesc[UR4], R24 ;",
      "\tv_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], 0 ; comment",
      "s_nop 0\n\tV_WMMA_F32_16X16X16_F16 v[0:7], v[8:15], v[16:23], v[0:7]"};
  for (const char* text : hidden) EXPECT_FALSE(check_no_matrix_instructions(text).ok()) << text;
  // Names that merely contain the letters are not instructions.
  EXPECT_TRUE(
      check_no_matrix_instructions(
          ".func gemma_helper(\n\tld.global.nc.v4.u32 {%r1}, [%rd1];\n// mma.sync in a comment")
          .ok());
}

// Keeping part of the rotated weights resident in the L2 would pay in the
// timing (its working set is a few times the L2) but not in a real decode.
TEST(StaticChecksTest, L2ResidencyControlIsRejected) {
  for (const char* mnemonic :
       {"ld.global.nc.L1::no_allocate.L2::evict_last.v4.u32", "ld.global.L2::evict_last.v4.u32",
        "ld.global.L2::128B.L2::cache_hint.v4.u32", "createpolicy.fractional.L2::evict_last.b64",
        "applypriority.global.L2::evict_normal"}) {
    Status s = check(std::string(kKernel) + "  unsigned r; asm volatile(\"" + mnemonic +
                     " {%0}, [%1];\" : \"=r\"(r) : \"l\"(x));\n}\n");
    EXPECT_FALSE(s.ok()) << mnemonic;
  }
  EXPECT_TRUE(check(std::string(kKernel) +
                    "  unsigned r; asm volatile(\"ld.global.nc.L1::no_allocate.L2::256B.v4.u32 "
                    "{%0}, [%1];\" : \"=r\"(r) : \"l\"(x));\n}\n")
                  .ok());
}

TEST(StaticChecksTest, AssemblyHiddenInMacrosOrNonLiteralTemplatesIsRejected) {
  const char* hidden[] = {
      "#define MATH asm\n",
      "#define EMIT(s) asm volatile(s)\n",
      "#define EMIT(s) \\\n  __asm__(s)\n",
      "#define CAT(a, b) a##b\n",
  };
  for (const char* prefix : hidden) {
    Status s = check(std::string(prefix) + kKernel + "}\n");
    EXPECT_FALSE(s.ok()) << prefix;
  }
  Status s =
      check(std::string("#define TEMPLATE \"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0}, "
                        "{%1}, {%2}, {%0};\"\n") +
            kKernel + "  asm volatile(TEMPLATE : \"+f\"(y[0]) : \"r\"(0), \"r\"(0));\n}\n");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("string literal"), std::string::npos) << s.message();
  // A plain allowed asm statement with qualifiers still passes.
  EXPECT_TRUE(check(std::string(kKernel) + "  unsigned r; asm volatile (\"prmt.b32 %0, %1, %1, "
                                           "0x3210;\" : \"=r\"(r) : \"r\"(1u));\n}\n")
                  .ok());
}

// The tensor-core instruction survives NVRTC into the PTX with the comment
// the source put before it; the token scan still finds it.
TEST(StaticChecksTest, CompiledPtxWithAHiddenMmaIsRejected) {
  std::string src = test::read_source_file("tests/sandbox/adversarial/tensor_core_hidden.hip");
  ASSERT_FALSE(src.empty());
  std::string cleaned;
  EXPECT_FALSE(check_source(src, {"gemv"}, &cleaned).ok());  // the source rules refuse the macro
  RtcOutput out;
  ASSERT_TRUE(
      rtc_compile(assemble_source(test::w4a16_problem(), src), rtc_target_options("90", 32), &out)
          .ok());
  ASSERT_TRUE(out.compiled) << out.log;
  Status s = check_no_matrix_instructions(out.code);
  EXPECT_FALSE(s.ok()) << "PTX passed the scan";
  EXPECT_NE(s.message().find("mma"), std::string::npos);
}

// The compiled-code check catches tensor-core instructions even where the
// source check is bypassed: NVRTC turns the asm into PTX containing mma.sync.
TEST(StaticChecksTest, CompiledPtxWithMmaIsRejected) {
  std::string src = test::read_source_file("tests/sandbox/adversarial/tensor_core.hip");
  RtcOutput out;
  ASSERT_TRUE(
      rtc_compile(assemble_source(test::w4a16_problem(), src), rtc_target_options("90", 32), &out)
          .ok());
  ASSERT_TRUE(out.compiled) << out.log;
  Status s = check_no_matrix_instructions(out.code);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("mma"), std::string::npos);
}

// --- Untrusted text: linear time, bounded stack ------------------------------

// One 200 000-character line inside a comment (under the size limit) once
// overflowed the stack of a backtracking matcher and ended kopt itself.
TEST(StaticChecksTest, AVeryLongLineInACommentIsReadInBoundedStack) {
  const std::string line(200000, 'a');
  EXPECT_TRUE(check("// " + line + "\n" + kKernel + "  y[0] = 1.f;\n}\n").ok());
  EXPECT_TRUE(check("/* " + line + " */\n" + kKernel + "  y[0] = 1.f;\n}\n").ok());
  // Long runs of what the rules look at: whitespace before '(' of an asm, a
  // declaration without ';' or '{', one long identifier, a long directive.
  EXPECT_TRUE(check(std::string(kKernel) + "  unsigned r; asm volatile" + std::string(200000, ' ') +
                    "(\"prmt.b32 %0, %1, %1, 0x3210;\" : \"=r\"(r) : \"r\"(1u));\n}\n")
                  .ok());
  Status s = check("extern \"C\" __global__ " + std::string(200000, 'x') + " gemv_(\n}\n");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'gemv' named in the contract"), std::string::npos) << s.message();
  s = check("#define X " + std::string(200000, 'y') + "\n" + kKernel + "}\n");
  EXPECT_TRUE(s.ok()) << s.message();
}

// One case per forbidden family, each with its own message.
TEST(StaticChecksTest, EachForbiddenFamilyIsNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"  gemv<<<1, 1>>>(x, w, y, ws, K, N, G);\n", "kernel launches"},
      {"  cudaMalloc(&ws, 4);\n", "GPU runtime API calls"},
      {"  hipMemcpy(y, x, 4, 0);\n", "GPU runtime API calls"},
      {"  cuMemAlloc(0, 4);\n", "GPU runtime API calls"},
      {"  cublasSgemv(0);\n", "library calls"},
      {"  cub::WarpReduce<float> r;\n", "library calls"},
      {"}\nint main() {\n", "a main function"},
      {"  std::thread t;\n", "host threads or files"},
      {"  std :: ofstream f;\n", "host threads or files"},
      {"  system(\"rm\");\n", "host system calls"},
      {"  execve(0, 0, 0);\n", "host system calls"},
      {"  float* p = (float*)malloc(4);\n", "device heap allocation"},
      {"}\n__managed__ float g;\nKOPT_KERNEL void h() {\n", "managed memory"},
      {"  wmma::fragment<int> f;\n", "tensor-core (wmma) APIs"},
      {"  __builtin_amdgcn_mfma_f32_4x4x1f32(0, 0, 0, 0, 0, 0);\n", "matrix-core builtins"},
      {"  auto g = cooperative_groups::this_grid();\n", "grid-wide synchronisation"},
  };
  for (const auto& [body, why] : cases) {
    Status s = check(std::string(kKernel) + body + "}\n");
    ASSERT_FALSE(s.ok()) << body;
    EXPECT_NE(s.message().find(std::string("not allowed: ") + why), std::string::npos)
        << body << " -> " << s.message();
    EXPECT_NE(s.message().find("(line "), std::string::npos) << s.message();
  }
  // Names that only resemble the families pass.
  EXPECT_TRUE(check(std::string(kKernel) +
                    "  int cudaish = 1, hipster = 2, free_slot = 3; float mainly = 0;\n"
                    "  y[0] = cudaish + hipster + free_slot + mainly;\n}\n")
                  .ok());
}

TEST(StaticChecksTest, ANulByteIsRefusedByName) {
  Status s = check(std::string(kKernel) + std::string("  y[0] = 1.f;\0\n}\n", 17));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "source contains a NUL byte");
}

// The preprocessor joins continued lines before it reads names, so must the
// rules; raw strings end where plain ones do not, so they are refused.
TEST(StaticChecksTest, LineSplicesAndRawStringsCannotHideNames) {
  Status s = check(std::string(kKernel) + "  cuda\\\nMalloc(&ws, 4);\n}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cudaMalloc("), std::string::npos) << s.message();
  s = check(std::string(kKernel) + "  const char* r = R\"a(\")a\"; cudaFree(ws); \"x\";\n}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("raw string"), std::string::npos) << s.message();
  s = check("#\\\ninclude <stdio.h>\n" + std::string(kKernel) + "}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stdio.h"), std::string::npos) << s.message();
}

TEST(StaticChecksTest, ForbiddenDirectivesAreNamed) {
  for (const char* directive :
       {"#pragma push_macro(\"x\")\n", "#pragma comment(lib, \"x\")\n",
        "#pragma GCC system_header\n", "#embed \"w.bin\"\n", "#import <x>\n", "#include X\n"}) {
    Status s = check(std::string(directive) + kKernel + "}\n");
    ASSERT_FALSE(s.ok()) << directive;
    EXPECT_NE(s.message().find("not allowed"), std::string::npos) << s.message();
  }
}

// What the assembler builds decides, not how the template looks: escaped
// separators and comments that turn an instruction into a "label".
TEST(StaticChecksTest, InlineAssemblyIsReadAsTheAssemblerReadsIt) {
  const char* smuggled[] = {
      // An octal- or hex-escaped ';' before a forbidden instruction.
      "ld.global.nc.b32 %0, [%1];\\073 trap",
      "ld.global.nc.b32 %0, [%1];\\x3b trap",
      // A comment that makes the instruction end with ':'.
      "ld.global.L2::evict_last.b32 %0, [%1]; // x:",
      "ld.global.nc.b32 %0, [%1]; /* */ trap; // y:",
      // A newline escape, then an instruction whose text ends like a label.
      "ld.global.nc.b32 %0, [%1];\\n createpolicy.fractional.L2::evict_last.b64 %0, 1.0:",
  };
  for (const char* text : smuggled) {
    Status s = check(std::string(kKernel) + "  unsigned r; asm volatile(\"" + text +
                     "\" : \"=r\"(r) : \"l\"(x));\n}\n");
    EXPECT_FALSE(s.ok()) << text;
  }
  // Labels and predicated allowed loads still pass.
  EXPECT_TRUE(check(std::string(kKernel) +
                    "  unsigned r; asm volatile(\"{\\n L_done:\\n @%p1 ld.global.nc.b32 %0, "
                    "[%1];\\n}\" : \"=r\"(r) : \"l\"(x));\n}\n")
                  .ok());
}

// The rules on compiled code: matrix instructions and residency control,
// wherever they came from; the toolkit headers' own inline assembly passes.
TEST(StaticChecksTest, CompiledCodeRulesReadTheAssemblerOutput) {
  EXPECT_TRUE(check_compiled_code(".visible .entry gemv()\n{\n// begin inline asm\n"
                                  "ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];\n"
                                  "// end inline asm\n// begin inline asm\nabs.f16x2 %r5, %r6;\n"
                                  "// end inline asm\nret;\n}\n")
                  .ok());
  Status s = check_compiled_code("ld.global.L2::evict_last.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("residency"), std::string::npos) << s.message();
  for (const char* text : {"createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0;\n",
                           "ld.global.L2::cache_hint.v4.u32 {%r1}, [%rd1], %rd5;\n",
                           "applypriority.global.L2::evict_normal [%rd1], 128;\n",
                           "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1};\n"})
    EXPECT_FALSE(check_compiled_code(text).ok()) << text;
}

// An allowed streaming load survives NVRTC with its inline-assembly markers,
// and the compiled-code rules pass it; a residency hint through an allowed
// prefix does not.
TEST(StaticChecksTest, CompiledPtxOfInlineAssemblyIsChecked) {
  const std::string ok = "/* kopt: {} */\n" + std::string(kKernel) +
                         "  unsigned r; asm volatile(\"ld.global.nc.b32 %0, [%1];\" : \"=r\"(r) : "
                         "\"l\"(w));\n  y[0] = r;\n}\n";
  RtcOutput out;
  ASSERT_TRUE(
      rtc_compile(assemble_source(test::w4a16_problem(), ok), rtc_target_options("90", 32), &out)
          .ok());
  if (!out.compiled) GTEST_SKIP() << "NVRTC not usable here: " << out.log;
  EXPECT_NE(out.code.find("begin inline asm"), std::string::npos);
  EXPECT_TRUE(check_compiled_code(out.code).ok()) << check_compiled_code(out.code).message();
}

}  // namespace
}  // namespace kopt
