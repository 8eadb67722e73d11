#include "agent/export.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

// A tuned kernel that needs gfx906 scratch ships for NVIDIA only: its
// dispatch entry is compiled out of the AMD library, which then takes the
// generic path for that shape; the others are in both tables.
TEST(ExportTest, KernelsNeedingGfx906ScratchAreLeftOutOfTheAmdTable) {
  ExportedKernel fast, portable, generic;
  fast.symbol = "k7168x9216_g64";
  fast.gfx906_scratch_bytes = 596;
  portable.symbol = "k5120x256_g64";
  generic.symbol = "generic_vec";
  const std::string d = generate_dispatch({fast, portable}, {generic});
  EXPECT_NE(d.find("#if !defined(KOPT_AMD)  // gfx906 needs 596 B of scratch: AMD takes the "
                   "generic path\nKOPT_ENTRY(kopt_entry_k7168x9216_g64)\n#endif\n"),
            std::string::npos)
      << d;
  const size_t portable_at = d.find("KOPT_ENTRY(kopt_entry_k5120x256_g64)");
  ASSERT_NE(portable_at, std::string::npos);
  EXPECT_EQ(d.rfind("#if", portable_at), d.find("#if"));  // no guard of its own
  EXPECT_NE(d.find("KOPT_GENERIC(kopt_entry_generic_vec)"), std::string::npos);
}

}  // namespace
}  // namespace kopt
