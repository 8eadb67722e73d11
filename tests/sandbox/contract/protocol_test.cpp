#include "sandbox/contract/protocol.h"

#include <gtest/gtest.h>

#include <cmath>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/evaluation.h"

namespace kopt {
namespace {

TEST(ProtocolTest, EvalRequestRoundTrips) {
  EvalRequest r;
  r.candidate = enter_candidate("src \"quoted\"\n", {{"ROWS", 4}});
  r.shape = w4a16::shape(5120, 256, 128);
  r.seed = 123456789012345ull;
  r.trials = 3;
  r.time = false;
  EvalRequest back;
  ASSERT_TRUE(eval_request_from_json(to_json(r), &back).ok())
      << eval_request_from_json(to_json(r), &back).message();
  ASSERT_TRUE(back.candidate);
  EXPECT_EQ(back.candidate->source(), r.candidate->source());
  EXPECT_EQ(back.candidate->asked, r.candidate->asked);
  // A source without a contract travels as it is; the worker says why.
  EXPECT_FALSE(back.candidate->ok());
  EXPECT_EQ(back.shape, r.shape);
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.trials, 3);
  EXPECT_FALSE(back.time);
}

TEST(ProtocolTest, BaselineRequestsNeedNoSource) {
  EvalRequest r;
  r.baseline = kVendorBlasBaseline;
  r.shape = w4a16::shape(4096, 4096, 64);
  EvalRequest back;
  ASSERT_TRUE(eval_request_from_json(to_json(r), &back).ok())
      << eval_request_from_json(to_json(r), &back).message();
  EXPECT_EQ(back.baseline, kVendorBlasBaseline);
  nlohmann::json j = nlohmann::json::parse(
      R"({"protocol": 2, "baseline": "vendor-blas-fp16",
          "shape": {"problem": "w4a16_gemv", "vars": {"K": 64, "N": 8, "G": 64}}})");
  ASSERT_TRUE(eval_request_from_json(j, &back).ok());
  EXPECT_FALSE(back.candidate);
  j["baseline"] = 3;
  EXPECT_FALSE(eval_request_from_json(j, &back).ok());
}

// kopt and kopt-worker of different builds are told apart: a request of
// the first protocol (no version, shapes as K, N, G) is refused by name.
TEST(ProtocolTest, ARequestOfAnotherProtocolVersionIsRefusedSayingSo) {
  EvalRequest back;
  nlohmann::json j = nlohmann::json::parse(
      R"({"op": "eval", "source": "x", "shape": {"K": 64, "N": 8, "G": 64}})");
  Status s = eval_request_from_json(j, &back);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("protocol version 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("different builds"), std::string::npos) << s.message();
  j["protocol"] = kProtocolVersion;
  s = eval_request_from_json(j, &back);
  ASSERT_FALSE(s.ok());  // the right version, an old shape: malformed
  EXPECT_NE(s.message().find("shape"), std::string::npos) << s.message();
  j["shape"] = {{"problem", "no_such_problem"}, {"vars", {{"K", 64}}}};
  s = eval_request_from_json(j, &back);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no_such_problem"), std::string::npos) << s.message();
}

TEST(ProtocolTest, MalformedRequestsAreErrors) {
  EvalRequest r;
  for (const char* text :
       {R"({})", R"({"source": 5, "shape": {"K": 64, "N": 1}})",
        R"({"source": "", "shape": {"K": 63, "N": 1}})", R"({"source": "", "shape": {"K": 64}})",
        R"({"source": "", "shape": {"K": 64, "N": 1}, "trials": 0})",
        R"({"source": "", "shape": {"K": 64, "N": 1}, "params": {"A": "x"}})"}) {
    nlohmann::json j = nlohmann::json::parse(text);
    EXPECT_FALSE(eval_request_from_json(j, &r).ok()) << text;
  }
}

TEST(ProtocolTest, ParseMessageRejectsGarbage) {
  nlohmann::json j;
  EXPECT_TRUE(parse_message(R"({"event": "pong", "id": 1})", &j).ok());
  EXPECT_FALSE(parse_message("", &j).ok());
  EXPECT_FALSE(parse_message("{\"event\": ", &j).ok());
  EXPECT_FALSE(parse_message("[1, 2]", &j).ok());
  EXPECT_FALSE(parse_message("\"text\"", &j).ok());
  EXPECT_FALSE(parse_message(std::string(kMaxMessageBytes + 1, ' '), &j).ok());
}

TEST(ProtocolTest, EvalResultRoundTripsAndToleratesJunk) {
  EvalResult r;
  r.verdict = Verdict::kWrongResult;
  r.message = "first wrong index 3";
  r.first_bad_index = 3;
  r.expected = 1.5;
  r.got = -2;
  Timing t;
  t.median_us = 12.5;
  t.method = "graph-replay/events";
  r.timing = t;
  r.device.arch = "sm_90";
  r.targets["sm_90"].checked = true;
  r.targets["sm_90"].spill_bytes = 16;
  r.targets[kOfflineTarget].checked = true;
  r.targets[kOfflineTarget].registers = 40;
  EvalResult back = eval_result_from_json(to_json(r));
  EXPECT_EQ(back.verdict, Verdict::kWrongResult);
  EXPECT_EQ(back.first_bad_index, 3);
  ASSERT_TRUE(back.timing.has_value());
  EXPECT_DOUBLE_EQ(back.timing->median_us, 12.5);
  // Resources per target, by name.
  ASSERT_EQ(back.targets.size(), 2u);
  EXPECT_EQ(back.targets.at(kOfflineTarget).registers, 40);
  EXPECT_EQ(back.targets.at("sm_90").spill_bytes, 16);
  // A NaN the kernel left (the poison) survives the trip as NaN, not 0.
  r.got = std::nan("");
  EXPECT_TRUE(std::isnan(eval_result_from_json(nlohmann::json::parse(to_json(r).dump())).got));
  EXPECT_EQ(eval_result_from_json(nlohmann::json::array()).verdict, Verdict::kInternalError);
  EXPECT_EQ(eval_result_from_json(nlohmann::json{{"verdict", "great"}}).verdict,
            Verdict::kInternalError);
  EXPECT_EQ(eval_result_from_json(nlohmann::json{{"verdict", "ok"}, {"timing", 5}}).verdict,
            Verdict::kOk);
}

// A record of before targets were a map (one field per vendor, as the
// database holds from older runs) reads into the map; may_ship follows it.
TEST(ProtocolTest, RecordsWithOneFieldPerVendorReadAsTargets) {
  const EvalResult old = eval_result_from_json(nlohmann::json::parse(R"({
      "verdict": "ok", "timing": {"median_us": 3},
      "device": {"name": "NVIDIA H100", "arch": "sm_90"},
      "nvidia": {"checked": true, "registers": 57, "local_bytes": 0},
      "amd": {"checked": true, "compiled": true, "vgprs": 96, "scratch_bytes": 160}})"));
  ASSERT_EQ(old.targets.count("sm_90"), 1u);
  EXPECT_EQ(old.targets.at("sm_90").registers, 57);
  EXPECT_EQ(old.targets.at(kOfflineTarget).registers, 96);
  EXPECT_EQ(old.targets.at(kOfflineTarget).spill_bytes, 160);
  EXPECT_TRUE(may_ship(old));  // gfx906 scratch keeps it off the AMD build only
  EvalResult spills = old;
  spills.targets["sm_90"].spill_bytes = 8;
  EXPECT_FALSE(may_ship(spills));
  EvalResult no_amd = old;
  no_amd.targets[kOfflineTarget].compiled = false;
  EXPECT_FALSE(may_ship(no_amd));
}

TEST(ProtocolTest, VerdictNamesRoundTrip) {
  for (int v = 0; v <= static_cast<int>(Verdict::kInternalError); ++v) {
    Verdict back;
    ASSERT_TRUE(parse_verdict(verdict_name(static_cast<Verdict>(v)), &back));
    EXPECT_EQ(static_cast<int>(back), v);
  }
}

}  // namespace
}  // namespace kopt
