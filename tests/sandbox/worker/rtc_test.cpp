#include "sandbox/worker/rtc.h"

#include <gtest/gtest.h>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/prelude.h"
#include "sandbox/contract/static_checks.h"
#include "sandbox/worker/vendor.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

// Every seed compiles with NVRTC for sm_90 (needs no GPU), for its default
// parameters and for the extremes of each parameter, and its PTX has no
// tensor-core instruction.
TEST(RtcTest, AllSeedsCompileForNvidia) {
  for (const auto& seed : test::w4a16_problem().seeds()) {
    Candidate base;
    ASSERT_TRUE(parse_candidate(seed.source, {}, &base).ok());
    std::vector<std::map<std::string, int64_t>> variants = {{}};
    for (const auto& p : base.spec.params) {
      variants.push_back({{p.name, p.values.front()}});
      variants.push_back({{p.name, p.values.back()}});
    }
    for (const auto& v : variants) {
      Candidate c;
      ASSERT_TRUE(parse_candidate(seed.source, v, &c).ok());
      std::vector<std::string> kernels;
      for (const auto& l : c.spec.launches) kernels.push_back(l.kernel);
      if (c.spec.relayout) kernels.push_back(c.spec.relayout->kernel);
      std::string cleaned;
      ASSERT_TRUE(check_source(c.source, kernels, &cleaned).ok()) << seed.name;
      auto options = rtc_target_options("90", 32);
      for (const auto& d : parameter_defines(c)) options.push_back(d);
      RtcOutput out;
      ASSERT_TRUE(rtc_compile(assemble_source(test::w4a16_problem(), cleaned), options, &out).ok());
      EXPECT_TRUE(out.compiled) << seed.name << ": " << out.log;
      EXPECT_TRUE(check_no_matrix_instructions(out.code).ok()) << seed.name;
      for (const auto& k : kernels) EXPECT_NE(out.code.find(".entry " + k), std::string::npos) << k;
    }
  }
}

TEST(RtcTest, CompileErrorsAreResultsWithALog) {
  RtcOutput out;
  ASSERT_TRUE(rtc_compile(assemble_source(test::w4a16_problem(),
                                          "KOPT_KERNEL void gemv() { undefined_thing(); }"),
                          rtc_target_options("90", 32), &out)
                  .ok());
  EXPECT_FALSE(out.compiled);
  EXPECT_NE(out.log.find("undefined_thing"), std::string::npos);
  EXPECT_NE(out.log.find("candidate.hip"), std::string::npos);  // #line points at the candidate
}

// Without a GPU the tuning target's registers and spills come from a second
// compile for the real architecture with the assembler's report: a kernel
// that stores into a large local array at a run-time index keeps it in
// local memory.
TEST(RtcTest, TheResourceReportGivesRegistersAndLocalMemory) {
  const std::vector<std::string> report =
      vendor_resource_report_options(rtc_target_options("90", 32));
  ASSERT_FALSE(report.empty()) << "NVIDIA reports a compile's resources";
  auto resources = [&](const std::string& body) {
    RtcOutput out;
    EXPECT_TRUE(rtc_compile(assemble_source(test::w4a16_problem(), body), report, &out).ok());
    EXPECT_TRUE(out.compiled) << out.log;
    TargetResources t;
    vendor_read_resource_report(out.log, &t);
    return t;
  };
  const TargetResources plain =
      resources("KOPT_KERNEL void gemv(float* y) { y[threadIdx.x] = 2.f * y[threadIdx.x]; }");
  EXPECT_GT(plain.registers, 0);
  EXPECT_EQ(plain.spill_bytes, 0);
  const TargetResources local = resources(
      "KOPT_KERNEL void gemv(float* y, int i) {\n"
      "  float a[256], s = 0.f;\n"
      "  for (int k = 0; k < 256; ++k) a[k] = y[k * blockDim.x + threadIdx.x];\n"
      "  a[i & 255] += 1.f;\n"
      "  for (int k = 0; k < 256; ++k) s += a[k] * k;\n"
      "  y[threadIdx.x] = s;\n"
      "}");
  EXPECT_GE(local.spill_bytes,
            1024);  // the array, stored where its index is known only at run time
}

TEST(RtcTest, CompilerVersionIsReported) {
  EXPECT_NE(rtc_compiler_version().find('.'), std::string::npos);
}

}  // namespace
}  // namespace kopt
