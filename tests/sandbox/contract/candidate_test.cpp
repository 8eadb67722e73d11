#include "sandbox/contract/candidate.h"

#include <gtest/gtest.h>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

const char* kMinimal = R"src(/* kopt:
{"name": "t", "launches": [{"kernel": "gemv", "grid": ["cdiv(N, ROWS)"], "block": ["ROWS * WARP"]}],
 "params": {"ROWS": {"values": [1, 2, 4], "default": 2}},
 "requires": ["K % 64 == 0"]}
*/
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {}
)src";

TEST(CandidateTest, ParsesContractAndDefaults) {
  Candidate c;
  ASSERT_TRUE(parse_candidate(kMinimal, {}, &c).ok());
  EXPECT_EQ(c.spec.name, "t");
  ASSERT_EQ(c.spec.launches.size(), 1u);
  EXPECT_EQ(c.params.at("ROWS"), 2);
  EXPECT_EQ(parameter_defines(c), std::vector<std::string>{"-DROWS=2"});
}

// A candidate enters once and is carried: the value says whether its
// contract and its values parse, keeps the values as given, and keys it as
// parsing would; other values on it need no second parse.
TEST(CandidateTest, EnteredValuesCarryTheParseAndTheValuesAsGiven) {
  const CandidateRef entered = enter_candidate(kMinimal, {{"ROWS", 4}});
  ASSERT_TRUE(entered->ok()) << entered->status.message();
  EXPECT_EQ(entered->asked, (std::map<std::string, int64_t>{{"ROWS", 4}}));
  EXPECT_EQ(entered->candidate.params.at("ROWS"), 4);
  Candidate parsed;
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 4}}, &parsed).ok());
  EXPECT_EQ(entered->key, candidate_key(parsed));
  EXPECT_EQ(entered->source(), kMinimal);

  // A value the contract refuses: the contract still parses (its spec is
  // kept), the candidate does not, and it is keyed by its source alone.
  const CandidateRef refused = enter_candidate(kMinimal, {{"ROWS", 3}});
  EXPECT_TRUE(refused->contract.ok());
  EXPECT_FALSE(refused->ok());
  EXPECT_NE(refused->status.message().find("not among its values"), std::string::npos);
  EXPECT_EQ(refused->candidate.spec.name, "t");
  Candidate raw;
  raw.source = kMinimal;
  EXPECT_EQ(refused->key, candidate_key(raw));
  const CandidateRef mended = with_values(*refused, {{"ROWS", 1}});
  ASSERT_TRUE(mended->ok());
  EXPECT_EQ(mended->candidate.params.at("ROWS"), 1);

  // No contract: every value says why, and other values cannot mend it.
  const CandidateRef broken = enter_candidate("KOPT_KERNEL void gemv() {}", {{"ROWS", 1}});
  EXPECT_FALSE(broken->contract.ok());
  EXPECT_FALSE(broken->ok());
  EXPECT_EQ(broken->asked.at("ROWS"), 1);
  EXPECT_FALSE(with_values(*broken, {})->ok());
  EXPECT_EQ(with_values(*broken, {})->status.message(), broken->contract.message());
}

// The same source entered again (another row, other values) reads the same
// contract; entering many sources keeps working past what is kept.
TEST(CandidateTest, EnteringASourceAgainGivesTheSameContract) {
  const CandidateRef a = enter_candidate(kMinimal, {});
  for (int i = 0; i < 600; ++i)
    ASSERT_FALSE(enter_candidate("/* kopt: {} */ // " + std::to_string(i), {})->ok());
  const CandidateRef b = enter_candidate(kMinimal, {{"ROWS", 2}});
  EXPECT_EQ(a->key, b->key);  // 2 is the default: the same candidate
  EXPECT_EQ(contract_json(a->candidate.spec), contract_json(b->candidate.spec));
  EXPECT_EQ(params_from_json(params_to_json(b->asked)), b->asked);
  EXPECT_TRUE(params_from_json("not json").empty());
}

// Other parameter values on a parsed candidate are what parsing the source
// with them gives: the same values, key and errors.
TEST(CandidateTest, WithParamsIsParsingWithThoseValues) {
  Candidate parsed, chosen, reparsed;
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 4}}, &parsed).ok());
  ASSERT_TRUE(with_params(parsed, {{"ROWS", 1}}, &chosen).ok());
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 1}}, &reparsed).ok());
  EXPECT_EQ(chosen.params, reparsed.params);
  EXPECT_EQ(candidate_key(chosen), candidate_key(reparsed));
  EXPECT_EQ(chosen.spec.name, "t");
  // No overrides: the defaults, not the parsed candidate's values.
  ASSERT_TRUE(with_params(parsed, {}, &chosen).ok());
  EXPECT_EQ(chosen.params.at("ROWS"), 2);
  for (const std::map<std::string, int64_t>& bad :
       {std::map<std::string, int64_t>{{"ROWS", 3}}, {{"COLS", 1}}}) {
    const Status a = with_params(parsed, bad, &chosen);
    const Status b = parse_candidate(kMinimal, bad, &reparsed);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.message(), b.message());
  }
}

// A per-shape build sees the shape's sizes as macros, sorted by name; a
// shape without variables (a build for any shape) defines none.
TEST(CandidateTest, ShapeDefinesNameEverySizeOfTheShape) {
  EXPECT_EQ(shape_defines(w4a16::shape(7168, 1536, 64)),
            (std::vector<std::string>{"-DKOPT_SHAPE_G=64", "-DKOPT_SHAPE_K=7168",
                                      "-DKOPT_SHAPE_N=1536"}));
  EXPECT_TRUE(shape_defines(Shape{w4a16::kId, {}}).empty());
  // The whole build: the parameters' macros, then the shape's.
  Candidate c;
  ASSERT_TRUE(parse_candidate(kMinimal, {}, &c).ok());
  EXPECT_EQ(build_defines(c, w4a16::shape(512, 256, 64)),
            (std::vector<std::string>{"-DROWS=2", "-DKOPT_SHAPE_G=64", "-DKOPT_SHAPE_K=512",
                                      "-DKOPT_SHAPE_N=256"}));
  EXPECT_EQ(build_defines(c, Shape{w4a16::kId, {}}), std::vector<std::string>{"-DROWS=2"});
  // The same list as (name, value), which an exported entry writes as #defines.
  using Macros = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(
      build_macros(c, w4a16::shape(512, 256, 64)),
      (Macros{{"ROWS", 2}, {"KOPT_SHAPE_G", 64}, {"KOPT_SHAPE_K", 512}, {"KOPT_SHAPE_N", 256}}));
  EXPECT_EQ(build_macros(c, Shape{w4a16::kId, {}}), (Macros{{"ROWS", 2}}));
}

TEST(CandidateTest, PlansLaunchesForAShape) {
  Candidate c;
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 4}}, &c).ok());
  LaunchPlan plan;
  ASSERT_TRUE(
      plan_launches(c, w4a16::shape(7168, 9216, 64), DeviceLimits{32, 132, 1024, 49152}, &plan)
          .ok());
  ASSERT_TRUE(plan.supported);
  EXPECT_EQ(plan.launches[0].grid[0], 2304u);
  EXPECT_EQ(plan.launches[0].block[0], 128u);
  EXPECT_EQ(plan.launches[0].grid[1], 1u);
}

TEST(CandidateTest, RequiresMarksUnsupportedShapes) {
  Candidate c;
  ASSERT_TRUE(parse_candidate(kMinimal, {}, &c).ok());
  LaunchPlan plan;
  ASSERT_TRUE(plan_launches(c, w4a16::shape(96, 10, 32), DeviceLimits{}, &plan).ok());
  EXPECT_FALSE(plan.supported);
  EXPECT_NE(plan.unsupported_reason.find("K % 64 == 0"), std::string::npos);
}

// Named values ("let") are evaluated in the order written, each over the
// variables, the parameters and the ones before it, and every other
// expression may use them; the contract's JSON keeps them in that order.
TEST(CandidateTest, NamedValuesAreEvaluatedInOrderAndUsedByEveryExpression) {
  const std::string source = R"c(/* kopt:
{"let": {"STEPS": "cdiv(K / 32, WARP)", "SLICES": "min(STEPS, SPLIT)", "PER": "cdiv(STEPS, SLICES)"},
 "launches": [{"kernel": "k", "grid": ["N", "SLICES"], "block": ["WARP"], "shared_bytes": "PER * 512"}],
 "workspace_bytes": "SLICES * N * 4",
 "requires": ["K % 32 == 0", "PER <= 4"],
 "params": {"SPLIT": {"values": [1, 2, 8], "default": 2}}} */)c";
  const DeviceLimits limits{32, 132, 1024, 49152};
  Candidate c;
  ASSERT_TRUE(parse_candidate(source, {}, &c).ok());
  ASSERT_EQ(c.spec.lets.size(), 3u);
  EXPECT_EQ(c.spec.lets[0].name, "STEPS");
  EXPECT_EQ(c.spec.lets[2].name, "PER");
  const std::string json = contract_json(c.spec);
  EXPECT_LT(json.find("\"STEPS\""), json.find("\"SLICES\"")) << json;
  EXPECT_LT(json.find("\"SLICES\""), json.find("\"PER\"")) << json;
  LaunchPlan plan;
  // K = 7168: 224 chunks, 7 steps of 32 lanes, two slices of 4 steps.
  ASSERT_TRUE(plan_launches(c, w4a16::shape(7168, 9216, 64), limits, &plan).ok());
  ASSERT_TRUE(plan.supported);
  EXPECT_EQ(plan.launches[0].grid[1], 2u);
  EXPECT_EQ(plan.launches[0].shared_bytes, 4u * 512);
  EXPECT_EQ(plan.workspace_bytes, 2 * 9216 * 4);
  // A requirement on a named value: 9 steps in two slices are 5 a slice.
  ASSERT_TRUE(plan_launches(c, w4a16::shape(9216, 64, 64), limits, &plan).ok());
  EXPECT_FALSE(plan.supported);
  EXPECT_NE(plan.unsupported_reason.find("PER <= 4"), std::string::npos);
  Candidate eight;
  ASSERT_TRUE(with_params(c, {{"SPLIT", 8}}, &eight).ok());
  ASSERT_TRUE(plan_launches(eight, w4a16::shape(9216, 64, 64), limits, &plan).ok());
  EXPECT_TRUE(plan.supported);
  EXPECT_EQ(plan.launches[0].grid[1], 8u);
}

// The requirements that name no named value are checked before them, so a
// named value needs to be defined only where those hold; one that is not is
// the plan's error, as is a name used before it is given.
TEST(CandidateTest, NamedValuesComeAfterTheRequirementsThatDoNotNameThem) {
  auto plan_for = [](const std::string& contract, int64_t K, LaunchPlan* plan) {
    Candidate c;
    Status s = parse_candidate("/* kopt: " + contract + " */", {}, &c);
    if (!s.ok()) return s;
    return plan_launches(c, w4a16::shape(K, 64, 32), DeviceLimits{}, plan);
  };
  const std::string launch = R"c("launches": [{"kernel": "k", "grid": ["Q"], "block": [32]}])c";
  const std::string guarded =
      R"c({"let": {"Q": "N / (K - 64)"}, "requires": ["K != 64", "Q >= 1"], )c" + launch + "}";
  LaunchPlan plan;
  ASSERT_TRUE(plan_for(guarded, 64, &plan).ok());  // Q would divide by zero: unsupported first
  EXPECT_FALSE(plan.supported);
  EXPECT_NE(plan.unsupported_reason.find("K != 64"), std::string::npos);
  ASSERT_TRUE(plan_for(guarded, 96, &plan).ok());
  EXPECT_TRUE(plan.supported);
  EXPECT_EQ(plan.launches[0].grid[0], 2u);
  ASSERT_TRUE(plan_for(guarded, 160, &plan).ok());  // 64 / 96 = 0: fails "Q >= 1"
  EXPECT_FALSE(plan.supported);
  EXPECT_NE(plan.unsupported_reason.find("Q >= 1"), std::string::npos);
  // Unguarded, the division by zero is the plan's error, naming it.
  Status s = plan_for(R"c({"let": {"Q": "N / (K - 64)"}, )c" + launch + "}", 64, &plan);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("N / (K - 64)"), std::string::npos) << s.message();
  // A name used before it is given.
  s = plan_for(R"c({"let": {"Q": "B + 1", "B": "2"}, )c" + launch + "}", 64, &plan);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("B"), std::string::npos) << s.message();
  // A shape variable's name.
  s = plan_for(R"c({"let": {"K": "2", "Q": "1"}, )c" + launch + "}", 64, &plan);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("named value K has the name of a variable"), std::string::npos)
      << s.message();
}

TEST(CandidateTest, NamedValuesWithBadNamesOrFormsAreContractErrors) {
  const std::string launch = R"c("launches": [{"kernel": "k", "grid": [1], "block": [32]}])c";
  const std::vector<std::string> bad = {
      R"c("let": {"steps": "1"})c",
      R"c("let": {"WARP": "1"})c",
      R"c("let": {"KOPT_X": "1"})c",
      R"c("let": {"A-B": "1"})c",
      R"c("let": {"A": "1 +"})c",
      R"c("let": {"A": [1]})c",
      R"c("let": ["A", "1"])c",
      R"c("let": {"ROWS": "1"}, "params": {"ROWS": {"values": [1]}})c"};
  for (const std::string& let : bad) {
    Candidate c;
    EXPECT_FALSE(parse_candidate("/* kopt: {" + let + ", " + launch + "} */", {}, &c).ok()) << let;
  }
  std::string many = R"c("let": {)c";
  for (int i = 0; i < 17; ++i) many += (i ? ", \"V" : "\"V") + std::to_string(i) + "\": \"1\"";
  Candidate c;
  EXPECT_FALSE(parse_candidate("/* kopt: {" + many + "}, " + launch + "} */", {}, &c).ok());
  Candidate ok;
  EXPECT_TRUE(
      parse_candidate("/* kopt: {\"let\": {\"A1_B\": \"1\"}, " + launch + "} */", {}, &ok).ok());
}

TEST(CandidateTest, RejectsBadContracts) {
  Candidate c;
  EXPECT_FALSE(parse_candidate("KOPT_KERNEL void gemv() {}", {}, &c).ok());  // no block
  EXPECT_FALSE(parse_candidate("/* kopt: {not json} */", {}, &c).ok());
  EXPECT_FALSE(parse_candidate("/* kopt: {\"launches\": []} */", {}, &c).ok());
  EXPECT_FALSE(
      parse_candidate(
          "/* kopt: {\"launches\": [{\"kernel\": \"a b\", \"grid\": 1, \"block\": 1}]} */", {}, &c)
          .ok());
  EXPECT_FALSE(parse_candidate("/* kopt: {\"launchez\": []} */", {}, &c).ok());
  EXPECT_FALSE(
      parse_candidate("/* kopt: {\"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 1}], "
                      "\"relayout\": {\"kernel\": \"r\", \"grid\": 1, \"block\": 1}} */",
                      {}, &c)
          .ok());                                                   // relayout without packed_bytes
  EXPECT_FALSE(parse_candidate(kMinimal, {{"ROWS", 3}}, &c).ok());  // not among values
  EXPECT_FALSE(parse_candidate(kMinimal, {{"COLS", 1}}, &c).ok());  // not declared
  EXPECT_FALSE(
      parse_candidate("/* kopt: {\"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 1}], "
                      "\"params\": {\"N\": {\"values\": [1]}}} */",
                      {}, &c)
          .ok());  // reserved name
}

// Every field of a wrong JSON type (a model's slip) is a contract error with
// the field named, never an exception.
TEST(CandidateTest, FieldsOfTheWrongTypeAreContractErrors) {
  const std::string launch = R"("launches": [{"kernel": "k", "grid": 1, "block": 1}])";
  const char* wrong[] = {R"("name": 42)",
                         R"("name": ["a"])",
                         R"("description": {"a": 1})",
                         R"("name": null)",
                         R"("nondeterministic": "yes")",
                         R"("requires": "K > 1")",
                         R"("requires": [true])",
                         R"("params": {"R": {"values": [1, 2], "default": "1"}})",
                         R"("params": {"R": {"values": [1.5]}})",
                         R"("params": {"R": {"values": [18446744073709551615]}})",
                         R"("params": {"R": 3})",
                         R"("params": [1])",
                         R"("workspace_bytes": 1.5)",
                         R"("workspace_bytes": [1])",
                         R"("packed_bytes": false)",
                         R"("relayout": 7, "packed_bytes": 1)",
                         R"("workspace_bytes": 18446744073709551615)"};
  for (const char* field : wrong) {
    const std::string source = "/* kopt: {" + launch + ", " + field + "} */";
    Candidate c;
    Status s;
    EXPECT_NO_THROW(s = parse_candidate(source, {}, &c)) << field;
    EXPECT_FALSE(s.ok()) << field;
  }
  const char* wrong_launch[] = {R"({"kernel": 5, "grid": 1, "block": 1})",
                                R"({"kernel": "k", "grid": "x", "block": {}})",
                                R"({"kernel": "k", "grid": [1, 2, 3, 4], "block": 1})", R"("k")",
                                R"({"kernel": "k", "grid": 1, "block": 1, "shared_bytes": [0]})"};
  for (const char* l : wrong_launch) {
    Candidate c;
    Status s;
    EXPECT_NO_THROW(
        s = parse_candidate(std::string("/* kopt: {\"launches\": [") + l + "]} */", {}, &c))
        << l;
    EXPECT_FALSE(s.ok()) << l;
  }
  Candidate c;
  Status s = parse_candidate("/* kopt: {" + launch + R"(, "name": 42} */)", {}, &c);
  EXPECT_NE(s.message().find("\"name\" must be a string"), std::string::npos) << s.message();
}

TEST(CandidateTest, OverflowingExpressionsAreContractErrors) {
  Candidate c;
  ASSERT_TRUE(
      parse_candidate(
          R"(/* kopt: {"launches": [{"kernel": "k", "grid": ["N * 1125899906842624 * 1125899906842624"], "block": 1}]} */)",
          {}, &c)
          .ok());
  LaunchPlan plan;
  Status s = plan_launches(c, w4a16::shape(64, 64, 64), DeviceLimits{}, &plan);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overflow"), std::string::npos) << s.message();
}

TEST(CandidateTest, PlanRejectsImpossibleGeometry) {
  Candidate c;
  ASSERT_TRUE(parse_candidate("/* kopt: {\"launches\": [{\"kernel\": \"k\", \"grid\": [\"N - N\"], "
                              "\"block\": [2048]}]} */",
                              {}, &c)
                  .ok());
  LaunchPlan plan;
  Status s = plan_launches(c, w4a16::shape(64, 64, 64), DeviceLimits{}, &plan);
  EXPECT_FALSE(s.ok());
}

TEST(CandidateTest, KeyDependsOnSourceAndParameters) {
  Candidate a, b, c;
  ASSERT_TRUE(parse_candidate(kMinimal, {}, &a).ok());
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 2}}, &b).ok());
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 4}}, &c).ok());
  EXPECT_EQ(candidate_key(a), candidate_key(b));
  EXPECT_NE(candidate_key(a), candidate_key(c));
}

TEST(CandidateTest, EverySeedPlansEveryContestShape) {
  for (const auto& seed : test::w4a16_problem().seeds()) {
    Candidate c;
    ASSERT_TRUE(parse_candidate(seed.source, {}, &c).ok()) << seed.name;
    for (int64_t warp : {32, 64}) {
      for (const Shape& s : w4a16::contest_suite()) {
        LaunchPlan plan;
        Status st = plan_launches(c, s, DeviceLimits{warp, 60, 1024, 65536}, &plan);
        EXPECT_TRUE(st.ok()) << seed.name << " " << s.name() << ": " << st.message();
        EXPECT_TRUE(plan.supported) << seed.name << " " << s.name();
      }
    }
  }
}

TEST(CandidateTest, NormalizedSourceIgnoresCommentsAndWhiteSpaceButNotCodeOrContract) {
  const std::string a =
      "/* kopt: {\"launches\": []} */\n// fast\nKOPT_KERNEL void k() {\n  int x = 1;  /* note "
      "*/\n}\n";
  const std::string b = "/* kopt: {\"launches\": []} */\nKOPT_KERNEL   void k() { int x = 1; }\n";
  EXPECT_EQ(normalized_source(a), normalized_source(b));
  // A different contract, code or string literal is a different kernel.
  EXPECT_NE(
      normalized_source(a),
      normalized_source("/* kopt: {\"launches\": [1]} */\nKOPT_KERNEL void k() { int x = 1; }\n"));
  EXPECT_NE(
      normalized_source(a),
      normalized_source("/* kopt: {\"launches\": []} */\nKOPT_KERNEL void k() { int x = 2; }\n"));
  EXPECT_NE(normalized_source("const char* s = \"a  b\";"),
            normalized_source("const char* s = \"a b\";"));
  EXPECT_EQ(normalized_source("a // \"not a string\nb"), normalized_source("a b"));
  // Tokens that white space separated stay separated.
  EXPECT_NE(normalized_source("int x;"), normalized_source("intx;"));
}

}  // namespace
}  // namespace kopt
