// What `kopt export` writes for the second problem: the library's generated
// header and entries carry W8A16's own variables (K, N), no W4A16 ones.
#include <gtest/gtest.h>

#include "agent/export.h"
#include "problems/w8a16_gemv/w8a16_gemv.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

const Problem& problem() {
  (void)test::w4a16_problem();  // the problems are registered
  return *find_problem(w8a16::kId);
}

// The library's generated header carries the problem's own variables.
TEST(W8a16Test, TheLibraryHeaderAndEntriesUseTheProblemsVariables) {
  const LibrarySpec spec = problem().library();
  std::string header;
  ASSERT_TRUE(generate_problem_header(problem(), spec, &header).ok());
  EXPECT_NE(header.find("long long K;\n  long long N;\n  long long warp, sms;"), std::string::npos)
      << header;
  EXPECT_EQ(header.find("G;"), std::string::npos) << header;
  ExportedKernel k;
  k.symbol = tuned_kernel_symbol(w8a16::shape(4096, 1024));
  EXPECT_EQ(k.symbol, "k4096x1024");
  k.shape = w8a16::shape(4096, 1024);
  ASSERT_TRUE(parse_candidate(find_seed(problem(), "vec")->source, {}, &k.candidate).ok());
  GeneratedKernel g;
  ASSERT_TRUE(generate_kernel_source(problem(), k, &g).ok());
  EXPECT_NE(g.entry_text.find("(x, w, y, ws, (int)K, (int)N);"), std::string::npos) << g.entry_text;
  EXPECT_NE(g.entry_text.find("{{4096, 1024, 0, 0}"), std::string::npos) << g.entry_text;
}

}  // namespace
}  // namespace kopt
