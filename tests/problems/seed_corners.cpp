#include "tests/problems/seed_corners.h"

#include <gtest/gtest.h>

#include "sandbox/contract/amd_offline.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/prelude.h"
#include "sandbox/contract/static_checks.h"
#include "sandbox/worker/rtc.h"

namespace kopt::test {

void expect_seeds_compile_without_scratch(const Problem& problem, const KnobCorners& knobs,
                                          const Shape& shape) {
  const AmdToolchain amd = AmdToolchain::find();
  for (const Seed& seed : problem.seeds()) {
    ASSERT_TRUE(knobs.count(seed.name)) << "no knob corners listed for seed " << seed.name;
    for (const auto& params : knobs.at(seed.name)) {
      std::string corner = seed.name;
      for (const auto& [name, value] : params) corner += " " + name + "=" + std::to_string(value);
      Candidate c;
      ASSERT_TRUE(parse_candidate(seed.source, params, &c).ok()) << corner;
      std::vector<std::string> kernels;
      for (const auto& l : c.spec.launches) kernels.push_back(l.kernel);
      std::string cleaned;
      ASSERT_TRUE(check_source(seed.source, kernels, &cleaned).ok()) << corner;
      LaunchPlan plan;
      Status planned = plan_launches(c, shape, DeviceLimits{}, &plan);
      ASSERT_TRUE(planned.ok()) << corner << ": " << planned.message();
      const std::vector<std::string> defines = build_defines(c, shape);
      std::vector<std::string> options = rtc_target_options("90", 32);
      options.insert(options.end(), defines.begin(), defines.end());
      RtcOutput out;
      ASSERT_TRUE(rtc_compile(assemble_source(problem, cleaned), options, &out).ok());
      ASSERT_TRUE(out.compiled) << corner << ": " << out.log;
      EXPECT_TRUE(check_compiled_code(out.code).ok()) << corner;
      // gfx906 where the corner runs there (a build whose shared memory a
      // wavefront of 64 outgrows is never launched on AMD).
      LaunchPlan plan64;
      ASSERT_TRUE(plan_launches(c, shape, DeviceLimits{64, 60, 1024, 64 * 1024}, &plan64).ok());
      if (!amd.available() || !plan64.supported) continue;
      TargetResources r;
      ASSERT_TRUE(check_gfx906(amd, assemble_source(problem, cleaned), defines, 120, &r).ok());
      EXPECT_TRUE(r.compiled) << corner << ": " << r.note << r.log;
      EXPECT_EQ(r.spill_bytes, 0) << corner << " needs gfx906 scratch";
    }
  }
}

}  // namespace kopt::test
