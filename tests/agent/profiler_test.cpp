#include "agent/profiler.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "problems/w4a16_batch/w4a16_batch.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

// Real `ncu --csv --page raw` output (Nsight Compute 2025.3.1, H100, the gen
// seed on 5120x3072, kopt eval's own lines mixed in).
TEST(ProfilerTest, ReadsNsightComputeRawCsv) {
  const std::string text = test::read_source_file("tests/agent/data/ncu-raw-h100-5120x3072.txt");
  ASSERT_FALSE(text.empty());
  ProfileResult p;
  ASSERT_TRUE(parse_ncu_csv(text, &p).ok());
  EXPECT_EQ(p.kernel, "gemv");
  EXPECT_NEAR(p.duration_us, 11.456, 1e-9);  // "11,456" nsecond
  EXPECT_DOUBLE_EQ(p.dram_pct, 23.23);
  EXPECT_DOUBLE_EQ(p.issue_pct, 31.32);
  EXPECT_DOUBLE_EQ(p.achieved_occupancy_pct, 10.72);
  EXPECT_DOUBLE_EQ(p.theoretical_occupancy_pct, 25);
  EXPECT_DOUBLE_EQ(p.l2_hit_pct, 13.78);
  EXPECT_EQ(p.registers, 128);
  ASSERT_GE(p.stalls.size(), 3u);
  EXPECT_EQ(p.stalls[0].first, "long_scoreboard");
  EXPECT_EQ(p.stalls[1].first, "wait");
  double total = 0;
  for (const auto& s : p.stalls) total += s.second;
  EXPECT_NEAR(total, 100, 1e-6);
  const std::string line = roofline_line(p);
  EXPECT_EQ(line.rfind("latency-bound: DRAM 23% of peak, issue slots 31% busy, occupancy 11% of "
                       "25% possible, L2 hit 14%, 128 registers; stalls: long scoreboard ",
                       0),
            0u)
      << line;
}

// The real output above with the three pipe columns added the way Nsight
// Compute writes them (their values from the same H100's counters of the
// library's 8-row klanes build on 7168x9216; the FMA-lite pipe "n/a", as a
// chip without a counter reports it).
std::string with_pipe_columns(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  int row = 0;  // 0 before the header, then 1 (header), 2 (units), 3 (values)
  while (std::getline(in, line)) {
    if (row == 0 && line.rfind("\"ID\"", 0) == 0) row = 1;
    if (row >= 1 && row <= 3 && line.rfind("\"", 0) == 0) {
      if (row == 1)
        line +=
            ",\"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active\","
            "\"sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active\","
            "\"sm__pipe_fmalite_cycles_active.avg.pct_of_peak_sustained_active\"";
      else if (row == 2)
        line += ",\"%\",\"%\",\"%\"";
      else
        line += ",\"30.61\",\"59.73\",\"n/a\"";
      ++row;
    }
    out += line + "\n";
  }
  return out;
}

TEST(ProfilerTest, ReadsTheMathPipesBusyCycles) {
  const std::string text = test::read_source_file("tests/agent/data/ncu-raw-h100-5120x3072.txt");
  ProfileResult p;
  ASSERT_TRUE(parse_ncu_csv(with_pipe_columns(text), &p).ok());
  ASSERT_EQ(p.pipes.size(), 2u);  // the "n/a" one left out
  EXPECT_EQ(p.pipes[0].first, "fma_heavy");
  EXPECT_DOUBLE_EQ(p.pipes[0].second, 59.73);
  EXPECT_EQ(p.pipes[1].first, "alu");
  const std::string line = roofline_line(p);
  EXPECT_NE(line.find("128 registers; busiest pipe FMA-heavy 60% (dp4a, dp2a, IMAD, FP32); "
                      "stalls: long scoreboard "),
            std::string::npos)
      << line;
  // Without the columns (a GPU without those counters), no pipe and the
  // line as before.
  ASSERT_TRUE(parse_ncu_csv(text, &p).ok());
  EXPECT_TRUE(p.pipes.empty());
  EXPECT_EQ(roofline_line(p).find("busiest pipe"), std::string::npos);
}

TEST(ProfilerTest, RooflineClassFollowsTheBusierUnit) {
  ProfileResult p;
  p.dram_pct = 85;
  p.issue_pct = 40;
  EXPECT_EQ(roofline_line(p).rfind("memory-bound", 0), 0u);
  p.dram_pct = 30;
  p.issue_pct = 75;
  EXPECT_EQ(roofline_line(p).rfind("compute-bound (issue)", 0), 0u);
  // A dp4a kernel: its pipe full with issue slots to spare.
  p.issue_pct = 55;
  p.pipes = {{"fma_heavy", 80}, {"alu", 20}};
  EXPECT_EQ(roofline_line(p).rfind("compute-bound (FMA-heavy pipe): ", 0), 0u) << roofline_line(p);
  p.pipes = {{"fma_heavy", 45}};
  EXPECT_EQ(roofline_line(p).rfind("latency-bound", 0), 0u);
  p.dram_pct = 85;
  p.pipes = {{"fma_heavy", 80}};
  EXPECT_EQ(roofline_line(p).rfind("memory-bound", 0), 0u);
}

TEST(ProfilerTest, MissingOrTruncatedOutputIsAnError) {
  ProfileResult p;
  EXPECT_FALSE(parse_ncu_csv("==ERROR== ERR_NVGPUCTRPERM: no permission\n", &p).ok());
  EXPECT_FALSE(parse_ncu_csv("\"ID\",\"Kernel Name\"\n\"\",\"\"\n", &p).ok());
  // A row without the metrics kopt asked for names the first one missing.
  Status s = parse_ncu_csv("\"ID\",\"Kernel Name\"\n\"\",\"\"\n\"0\",\"gemv\"\n", &p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("gpu__time_duration.sum"), std::string::npos);
}

TEST(ProfilerTest, JsonRoundTripAndBadJson) {
  ProfileResult p, back;
  p.tool = "ncu";
  p.kernel = "gemv";
  p.dram_pct = 52.5;
  p.registers = 126;
  p.stalls = {{"long_scoreboard", 58}, {"wait", 12}};
  p.pipes = {{"fma_heavy", 71}, {"alu", 22}};
  ASSERT_TRUE(profile_from_json(profile_to_json(p), &back).ok());
  EXPECT_EQ(roofline_line(back), roofline_line(p));
  EXPECT_EQ(back.pipes, p.pipes);
  // A profile stored before the pipes were read has none.
  ASSERT_TRUE(profile_from_json(R"({"tool": "ncu", "dram_pct": 52.5, "stalls": []})", &back).ok());
  EXPECT_TRUE(back.pipes.empty());
  EXPECT_FALSE(profile_from_json("not json", &back).ok());
  EXPECT_TRUE(profile_from_json(R"({"dram_pct": "x", "stalls": [1, ["a"]]})", &back).ok());
  EXPECT_EQ(back.dram_pct, 0);
  EXPECT_TRUE(back.stalls.empty());
}

TEST(ProfilerTest, WithoutNcuItSaysNotProfiled) {
  NcuProfiler profiler("/nonexistent/ncu", "", 10);
  std::string why;
  EXPECT_FALSE(profiler.available(&why));
  ProfileResult r;
  Status s = profiler.profile(*enter_candidate("x", {}), w4a16::shape(512, 1024, 64), -1, &r);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("not profiled", 0), 0u);
}

// The profiler runs `kopt eval` on the shape's own problem: a batched shape's
// name ("8x512x256") alone reads as the default problem's and is refused.
TEST(ProfilerTest, TheProfiledEvalNamesTheShapesProblem) {
  const std::string fake = test::temp_path("ncu"), args = test::temp_path("ncu-args");
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > " << args << "\n";
  }
  ASSERT_EQ(chmod(fake.c_str(), 0755), 0);
  NcuProfiler profiler(fake, "/bin/kopt-none", 10);
  const std::string source = test::read_source_file("seeds/w4a16_batch/rows.hip");
  ProfileResult r;
  EXPECT_FALSE(
      profiler.profile(*enter_candidate(source, {}), w4a16_batch::shape(8, 512, 256, 64), -1, &r)
          .ok());
  std::ifstream f(args);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("\n--problem\nw4a16_batch\n--shape\n8x512x256\n"), std::string::npos)
      << text.str();
}

// Nsight Compute refuses a request with a metric the GPU lacks (the pipe
// counters before GA10x): the profile is taken again without them.
TEST(ProfilerTest, AGpuWithoutPipeCountersIsProfiledWithoutThem) {
  const std::string fake = test::temp_path("ncu-no-pipes"), calls = test::temp_path("ncu-calls");
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\necho call >> " << calls << "\ncase \"$*\" in *fmaheavy*)\n"
      << "  echo '==ERROR== Failed to find metric sm__pipe_fmaheavy_cycles_active'; exit 1;;\n"
      << "esac\ncat " << test::source_dir() << "/tests/agent/data/ncu-raw-h100-5120x3072.txt"
      << "\n";
  }
  ASSERT_EQ(chmod(fake.c_str(), 0755), 0);
  NcuProfiler profiler(fake, "/bin/kopt-none", 10);
  const std::string source = test::read_source_file("seeds/w4a16_gemv/gen.hip");
  ProfileResult r;
  Status s = profiler.profile(*enter_candidate(source, {}), w4a16::shape(5120, 3072, 64), -1, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.tool, "ncu");
  EXPECT_DOUBLE_EQ(r.issue_pct, 31.32);
  EXPECT_TRUE(r.pipes.empty());
  std::ifstream f(calls);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str(), "call\ncall\n");
}

// rocprof (v1) results: a CSV in the layout its documentation gives (kernel
// properties, the requested derived metrics, then the timestamps). No AMD GPU
// is here to capture a real one; on an AMD machine `kopt profile` exercises it.
TEST(ProfilerTest, ReadsRocprofCsv) {
  const std::string csv =
      "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,"
      "accum_vgpr,sgpr,wave_size,sig,obj,VALUBusy,MemUnitBusy,MemUnitStalled,L2CacheHit,"
      "DispatchNs,BeginNs,EndNs,CompleteNs\n"
      "0,\"relayout.kd\",0,0,0,1,1,65536,256,0,0,16,0,16,64,0x0,0x0,1.5,40.0,2.0,10.0,"
      "100,200,900,950\n"
      "1,\"gemv.kd\",0,0,4,1,1,17408,512,41472,0,128,0,48,64,0x0,0x0,31.25,84.5,22.75,"
      "12.5,1000,2000,77000,77100\n";
  ProfileResult p;
  ASSERT_TRUE(parse_rocprof_csv(csv, "gemv", &p).ok());
  EXPECT_EQ(p.tool, "rocprof");
  EXPECT_DOUBLE_EQ(p.dram_pct, 84.5);
  EXPECT_DOUBLE_EQ(p.issue_pct, 31.25);
  EXPECT_DOUBLE_EQ(p.l2_hit_pct, 12.5);
  EXPECT_EQ(p.registers, 128);
  EXPECT_DOUBLE_EQ(p.duration_us, 75);
  EXPECT_EQ(roofline_line(p),
            "memory-bound: memory unit 84% busy (stalled 23%), VALU 31% busy, L2 hit 12%, 128 "
            "VGPRs");
  // Another kernel's dispatch only, or a missing metric: errors that say so.
  EXPECT_FALSE(parse_rocprof_csv(csv, "gem", &p).ok());
  EXPECT_FALSE(parse_rocprof_csv("Index,KernelName,VALUBusy\n0,gemv.kd,3\n", "gemv", &p).ok());
  EXPECT_FALSE(parse_rocprof_csv("", "gemv", &p).ok());
}

TEST(ProfilerTest, WithoutRocprofItSaysNotProfiled) {
  RocprofProfiler profiler("/nonexistent/rocprof", "", 10);
  std::string why;
  EXPECT_FALSE(profiler.available(&why));
  ProfileResult r;
  EXPECT_EQ(profiler.profile(*enter_candidate("x", {}), w4a16::shape(512, 1024, 64), -1, &r)
                .message()
                .rfind("not profiled", 0),
            0u);
}

}  // namespace
}  // namespace kopt
