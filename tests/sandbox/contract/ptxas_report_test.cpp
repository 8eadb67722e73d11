#include "sandbox/contract/ptxas_report.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

// Two functions as ptxas -v reports them through NVRTC: the worst of each
// figure is kept, whichever function it comes from.
TEST(PtxasReportTest, KeepsTheWorstFunctionsFigures) {
  TargetResources r;
  parse_ptxas_resources(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'relayout' for 'sm_90'\n"
      "ptxas info    : Function properties for relayout\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 18 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function 'gemm' for 'sm_90'\n"
      "ptxas info    : Function properties for gemm\n"
      "ptxas         .     136 bytes stack frame, 132 bytes spill stores, 140 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 136 bytes cumulative stack size, "
      "2560 bytes smem\n",
      &r);
  EXPECT_EQ(r.registers, 168);
  EXPECT_EQ(r.spill_bytes, 136);  // the stack frame: local memory a thread, as the driver says
  EXPECT_EQ(r.shared_bytes, 2560);
}

// Text that is not a report (a compile error's log, lines without their
// number or with another word after it) changes nothing.
TEST(PtxasReportTest, OtherTextChangesNothing) {
  TargetResources r;
  r.registers = 7;
  parse_ptxas_resources(
      "candidate.hip(3): error: Used is undefined\nUsed registers\nUsed 12 regs\n"
      " bytes smem\nx bytes stack frame\n",
      &r);
  EXPECT_EQ(r.registers, 7);
  EXPECT_EQ(r.spill_bytes, 0);
  EXPECT_EQ(r.shared_bytes, 0);
}

}  // namespace
}  // namespace kopt
