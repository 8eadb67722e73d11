#include "agent/export.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/commands.h"
#include "agent/proposer.h"
#include "db/database.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/contract/subprocess.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

ExportedKernel entry(const std::string& symbol, std::vector<std::string> targets) {
  ExportedKernel k;
  k.symbol = symbol;
  k.targets = std::move(targets);
  return k;
}

// Each problem's shipped manifest, embedded in kopt for runs to start from,
// reads as an export manifest of its problem, and every entry names one of
// today's seeds with parameters its contract declares: a re-export that
// renamed a seed or a knob would otherwise silently cost runs their starts.
TEST(ExportTest, TheShippedManifestsNameTodaysSeedsAndKnobs) {
  int shipped = 0;
  for (const Problem* problem : registered_problems()) {
    const std::string text = problem->library().shipped_manifest;
    if (text.empty()) continue;
    ++shipped;
    std::vector<ManifestEntry> entries;
    Status s = parse_export_manifest(*problem, text, problem->id() + " manifest", &entries);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_FALSE(entries.empty()) << problem->id();
    for (const ManifestEntry& e : entries) {
      const std::string name = e.row.value("name", std::string());
      const Seed* seed = find_seed(*problem, name);
      ASSERT_NE(seed, nullptr) << problem->id() << ": no seed " << name;
      Candidate c;
      Status parsed = parse_candidate(seed->source, e.params, &c);
      EXPECT_TRUE(parsed.ok()) << problem->id() << " " << e.shape.name() << ": "
                               << parsed.message();
    }
  }
  EXPECT_GE(shipped, 2) << "W4A16 and W8A16 ship libraries";
}

// Each platform's build leaves out the tuned entries none of whose targets
// are its own (sm_* NVIDIA's, gfx* AMD's); an entry without targets, and
// one with both, serves both.
TEST(ExportTest, EachPlatformLeavesOutTheEntriesOfTheOthers) {
  const std::string p = generate_platform_kernels(
      {entry("k7168x9216_g64", {"sm_90"}), entry("k7168x9216_g64_gfx906", {"gfx906"}),
       entry("k5120x256_g64", {"sm_90", "gfx906"}), entry("k384x5120_g64", {"sm_80", "sm_90"}),
       entry("k512x7168_g64", {})});
  EXPECT_NE(p.find("set(KOPT_LIBRARY_NOT_FOR_NVIDIA \"k7168x9216_g64_gfx906.hip\")\n"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("set(KOPT_LIBRARY_NOT_FOR_AMD \"k7168x9216_g64.hip;k384x5120_g64.hip\")\n"),
            std::string::npos)
      << p;
}

// Entries are compiled per vendor (sm_* for NVIDIA, gfx* for AMD) and
// dispatched on their named architecture; an entry serving gfx906 that was
// tuned elsewhere says so.
TEST(ExportTest, DispatchGroupsEntriesByVendorAndNamesTheirTargets) {
  ExportedKernel fast = entry("k7168x9216_g64", {"sm_90"});
  ExportedKernel amd = entry("k7168x9216_g64_gfx906", {"gfx906"});
  amd.target_notes["gfx906"] = "tuned on NVIDIA H100, not measured on gfx906";
  ExportedKernel both = entry("k5120x256_g64", {"sm_90", "gfx906"});
  const std::string d =
      generate_dispatch(test::w4a16_problem().library(), {fast, amd, both},
                        {entry("generic_gen", {}), entry("generic_naive", {})}, nullptr);
  const size_t nvidia = d.find("#if !defined(__HIP_PLATFORM_AMD__)\n"),
               amd_at = d.find("#if defined(__HIP_PLATFORM_AMD__)\n");
  ASSERT_NE(nvidia, std::string::npos) << d;
  ASSERT_NE(amd_at, std::string::npos) << d;
  auto in_block = [&](const std::string& line, size_t block) {
    const size_t at = d.find(line);
    return at != std::string::npos && at > block && at < d.find("#endif", block);
  };
  EXPECT_TRUE(in_block("KOPT_ENTRY(kopt_w4a16_entry_k7168x9216_g64, \"sm_90\")", nvidia)) << d;
  EXPECT_TRUE(in_block("KOPT_ENTRY(kopt_w4a16_entry_k5120x256_g64, \"sm_90\")", nvidia)) << d;
  EXPECT_TRUE(in_block("KOPT_ENTRY(kopt_w4a16_entry_k5120x256_g64, \"gfx906\")", amd_at)) << d;
  EXPECT_TRUE(
      in_block("KOPT_ENTRY(kopt_w4a16_entry_k7168x9216_g64_gfx906, \"gfx906\")  // tuned on NVIDIA "
               "H100, not "
               "measured on gfx906",
               amd_at))
      << d;
  EXPECT_EQ(d.find("kopt_w4a16_entry_k7168x9216_g64, \"gfx906\""), std::string::npos);
  EXPECT_LT(d.find("KOPT_GENERIC(kopt_w4a16_entry_generic_gen)"),
            d.find("KOPT_GENERIC(kopt_w4a16_entry_generic_naive)"));
  EXPECT_NE(d.find("#define KOPT_GENERIC_PROBES\n"), std::string::npos);  // no data: empty
}

KoptGenericProbe probe(long long K, long long N, std::initializer_list<float> us) {
  KoptGenericProbe p{K, N, {}};
  int i = 0;
  for (float t : us) p.us[i++] = t;
  return p;
}

// The rule takes the variant fastest relative to the best near the shape,
// never one that does not run the shape, and the table's first supported
// variant where nothing was measured.
TEST(GenericRuleTest, PicksTheVariantFastestNearTheShape) {
  const KoptGenericProbe probes[] = {
      probe(4096, 8192, {10, 12, 30}),  probe(8192, 8192, {18, 20, 50}),
      probe(4096, 16384, {19, 22, 60}), probe(16384, 64, {0, 9, 3}),
      probe(32768, 64, {0, 15, 5}),     probe(16384, 128, {0, 10, 4})};
  bool all[3] = {true, true, true};
  EXPECT_EQ(kopt_choose_generic(5000, 9000, probes, 6, 3, all), 0);
  EXPECT_EQ(kopt_choose_generic(20000, 80, probes, 6, 3, all), 2);
  bool no_first[3] = {false, true, true};
  EXPECT_EQ(kopt_choose_generic(5000, 9000, probes, 6, 3, no_first), 1);
  bool only_last[3] = {false, false, true};
  EXPECT_EQ(kopt_choose_generic(5000, 9000, probes, 6, 3, only_last), 2);
  bool none[3] = {false, false, false};
  EXPECT_EQ(kopt_choose_generic(5000, 9000, probes, 6, 3, none), -1);
  EXPECT_EQ(kopt_choose_generic(5000, 9000, probes, 0, 3, no_first), 1);  // no data
  // Leaving the probe out still finds the neighbours' choice.
  EXPECT_EQ(kopt_choose_generic(16384, 64, probes, 6, 3, all, 4, 3), 2);
}

GenericMeasurements measurements() {
  GenericMeasurements m;
  m.device = "Test GPU";
  m.arch = "sm_90";
  m.date = "2026-11-23T00:00:00Z";
  const auto& v = test::w4a16_problem().library().generic_variants;
  auto add = [&](Shape s, double gen, double x16, double splitk) {
    m.order.push_back(s);
    m.us[s.name()] = {{v[0].symbol, gen}, {"generic_gen_x16", x16}, {"generic_splitk", splitk}};
  };
  add(w4a16::shape(4096, 8192, 64), 10, 14, 30);
  add(w4a16::shape(8192, 8192, 64), 18, 24, 50);
  add(w4a16::shape(4096, 16384, 64), 19, 25, 60);
  add(w4a16::shape(16384, 64, 64), 0, 3, 4);
  add(w4a16::shape(32768, 64, 64), 0, 5, 6);
  add(w4a16::shape(16384, 128, 64), 0, 4, 5);
  return m;
}

TEST(GenericRuleTest, MeasurementsRoundTripAndBecomeTheLibrarysProbeTable) {
  const GenericMeasurements m = measurements();
  const std::string path = test::temp_path("GENERIC.json");
  std::ofstream(path) << generic_measurements_json(m).dump(1);
  GenericMeasurements back;
  ASSERT_TRUE(read_generic_measurements(test::w4a16_problem(), path, &back).ok());
  EXPECT_EQ(back.device, "Test GPU");
  ASSERT_EQ(back.order.size(), 6u);
  EXPECT_EQ(back.us.at("16384x64").at("generic_gen_x16"), 3);
  const auto probes = generic_probes(test::w4a16_problem().library(), back);
  EXPECT_EQ(probes[3].x, 16384);
  EXPECT_EQ(probes[3].y, 64);
  EXPECT_EQ(probes[3].us[0], 0.f);  // gen does not run K = 16384 at one split
  EXPECT_EQ(probes[3].us[1], 3.f);  // generic_gen_x16 is the second variant
  EXPECT_EQ(probes[3].us[2], 0.f);  // generic_gen_x16_split2, not measured
  // Each time sits at its variant's place in the table, wherever that is.
  const auto& variants = test::w4a16_problem().library().generic_variants;
  const auto splitk = std::find_if(variants.begin(), variants.end(),
                                   [](const auto& v) { return v.symbol == "generic_splitk"; });
  ASSERT_NE(splitk, variants.end());
  EXPECT_EQ(probes[3].us[splitk - variants.begin()], 4.f);
  const std::string d =
      generate_dispatch(test::w4a16_problem().library(), {}, {entry("generic_gen", {})}, &back);
  EXPECT_NE(d.find("#define KOPT_GENERIC_RULE_DEVICE \"Test GPU (sm_90)\""), std::string::npos)
      << d;
  EXPECT_NE(d.find("{16384, 64, {0.000f}}"), std::string::npos) << d;
  std::ofstream(path) << R"({"probes": [{"shape": "12x"}]})";
  EXPECT_FALSE(read_generic_measurements(test::w4a16_problem(), path, &back).ok());
  std::ofstream(path) << "[1, 2]";
  EXPECT_FALSE(read_generic_measurements(test::w4a16_problem(), path, &back).ok());
}

// Leave-one-out: each probe's pick without its own times, against the
// fastest there (here every pick is right but the one whose neighbours differ).
TEST(GenericRuleTest, LeaveOneOutComparesEachPickWithTheFastest) {
  const auto checks = leave_one_out(test::w4a16_problem().library(), measurements());
  ASSERT_EQ(checks.size(), 6u);
  for (const auto& c : checks) {
    EXPECT_GE(c.ratio, 1.0) << c.shape;
    if (c.shape == "4096x8192") {
      EXPECT_EQ(c.chosen, "generic_gen");
    }
    if (c.shape == "16384x64") {
      EXPECT_EQ(c.chosen, "generic_gen_x16");
    }
  }
}

// Sources are written once: two entries of one source share one file, and
// the entry file names it, so bench and the migration read it back.
TEST(ExportTest, EntriesShareOneSourceFileAndNameIt) {
  ExportedKernel a, b;
  a.symbol = "generic_gen";
  b.symbol = "generic_gen_split2";
  ASSERT_TRUE(
      parse_candidate(find_seed(test::w4a16_problem(), "gen")->source, {}, &a.candidate).ok());
  ASSERT_TRUE(
      parse_candidate(find_seed(test::w4a16_problem(), "gen")->source, {{"SPLIT", 2}}, &b.candidate)
          .ok());
  GeneratedKernel ga, gb;
  ASSERT_TRUE(generate_kernel_source(test::w4a16_problem(), a, &ga).ok());
  ASSERT_TRUE(generate_kernel_source(test::w4a16_problem(), b, &gb).ok());
  EXPECT_EQ(ga.source_file, gb.source_file);
  EXPECT_EQ(ga.source_text, gb.source_text);
  EXPECT_NE(gb.entry_text.find("#define SPLIT 2\n"), std::string::npos);
  EXPECT_NE(gb.entry_text.find("#include \"" + gb.source_file + "\""), std::string::npos);
  EXPECT_LT(gb.entry_text.size(), gb.source_text.size() / 4);  // a wrapper, not a copy
  const std::string dir = test::temp_path("shared-source");
  fs::create_directories(dir);
  std::ofstream(dir + "/generic_gen_split2.hip") << gb.entry_text;
  std::ofstream(dir + "/" + gb.source_file) << gb.source_text;
  std::string source;
  ASSERT_TRUE(candidate_source_of(dir, "generic_gen_split2.hip", &source).ok());
  EXPECT_EQ(source, gb.source_text);
  std::ofstream(dir + "/bare.hip") << "// nothing here\n";
  EXPECT_FALSE(candidate_source_of(dir, "bare.hip", &source).ok());
}

// Every C name of an entry goes through KOPT_ENTRY_NAME, so the library can
// build the entry a second time under other names (kopt_entry_pair.h): its
// kernels, its namespace (and the launches and functions in it) and the
// entry itself; no bare prefixed name is left.
TEST(ExportTest, EveryCNameOfAnEntryCanBeRenamed) {
  ExportedKernel k;
  k.symbol = "generic_gen_split2";
  ASSERT_TRUE(
      parse_candidate(find_seed(test::w4a16_problem(), "gen")->source, {{"SPLIT", 2}}, &k.candidate)
          .ok());
  GeneratedKernel g;
  ASSERT_TRUE(generate_kernel_source(test::w4a16_problem(), k, &g).ok());
  const std::string& t = g.entry_text;
  EXPECT_NE(t.find("#define gemv KOPT_ENTRY_NAME(kopt_w4a16_generic_gen_split2_gemv)"),
            std::string::npos);
  EXPECT_NE(t.find("namespace KOPT_ENTRY_NAME(kopt_w4a16_generic_gen_split2) {"),
            std::string::npos);
  EXPECT_NE(t.find("KOPT_ENTRY_NAME(kopt_w4a16_generic_gen_split2_gemv)<<<"), std::string::npos);
  EXPECT_NE(
      t.find("extern const KoptKernelEntry KOPT_ENTRY_NAME(kopt_w4a16_entry_generic_gen_split2)"),
      std::string::npos);
  // Each occurrence of the prefix is inside KOPT_ENTRY_NAME( ... ), or in a
  // comment or the closing namespace comment.
  for (size_t at = t.find("kopt_w4a16_"); at != std::string::npos;
       at = t.find("kopt_w4a16_", at + 1)) {
    const size_t line = t.rfind('\n', at) + 1;
    const std::string before = t.substr(line, at - line);
    const bool named =
        before.size() >= 16 && before.compare(before.size() - 16, 16, "KOPT_ENTRY_NAME(") == 0;
    EXPECT_TRUE(named || before.find("//") != std::string::npos)
        << t.substr(line, t.find('\n', at) - line);
  }
}

// A contract's named values reach the launch code as long long constants in
// their order, after the requirements that do not name them (which keep
// them defined) and before those that do; without named values the
// requirements stay one return.
TEST(ExportTest, NamedValuesBecomeConstantsAfterTheRequirementsThatDoNotNameThem) {
  const std::string body =
      "KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, "
      "int G) {}\n";
  ExportedKernel k;
  k.symbol = "generic_named";
  ASSERT_TRUE(parse_candidate(R"c(/* kopt:
{"name": "named", "let": {"STEPS": "cdiv(K / 32, WARP)", "PER": "cdiv(STEPS, SPLIT)"},
 "launches": [{"kernel": "gemv", "grid": ["N", "cdiv(STEPS, PER)"], "block": ["WARP"]}],
 "workspace_bytes": "PER * N * 4", "requires": ["K % 32 == 0", "PER <= 8"],
 "params": {"SPLIT": {"values": [1, 2], "default": 2}}} */
)c" + body,
                              {}, &k.candidate)
                  .ok());
  GeneratedKernel g;
  ASSERT_TRUE(generate_kernel_source(test::w4a16_problem(), k, &g).ok());
  const std::string& t = g.entry_text;
  const size_t supported = t.find("bool kopt_supported(");
  const size_t guard = t.find("if (!(true && (K % 32LL == 0LL))) return false;", supported);
  const size_t steps = t.find("const long long STEPS = kopt_cdiv(K / 32LL, WARP);", supported);
  const size_t per = t.find("const long long PER = kopt_cdiv(STEPS, (long long)SPLIT);", supported);
  const size_t named = t.find("return true && (PER <= 8LL);", supported);
  ASSERT_NE(guard, std::string::npos) << t;
  ASSERT_NE(steps, std::string::npos) << t;
  ASSERT_NE(per, std::string::npos) << t;
  ASSERT_NE(named, std::string::npos) << t;
  EXPECT_LT(guard, steps);
  EXPECT_LT(steps, per);
  EXPECT_LT(per, named);
  // Every other function of the launch code has them too.
  EXPECT_NE(t.find("const long long PER", t.find("kopt_workspace_bytes(")), std::string::npos);
  EXPECT_NE(t.find("const long long PER", t.find("hipError_t kopt_call(")), std::string::npos);
}

// A tuned entry is built as it was evaluated, with its shape's sizes as
// macros (defined before the source, undefined after it, so the next entry
// of a build starts clean); a generic entry, built for any shape, has none.
TEST(ExportTest, TunedEntriesDefineTheirShapeAndGenericOnesDoNot) {
  ExportedKernel tuned, generic;
  tuned.symbol = "k5120x3072_g64";
  tuned.shape = w4a16::shape(5120, 3072, 64);
  generic.symbol = "generic_gen";
  for (ExportedKernel* k : {&tuned, &generic})
    ASSERT_TRUE(parse_candidate(find_seed(test::w4a16_problem(), "gen")->source, {{"SHAPE", 1}},
                                &k->candidate)
                    .ok());
  GeneratedKernel gt, gg;
  ASSERT_TRUE(generate_kernel_source(test::w4a16_problem(), tuned, &gt).ok());
  ASSERT_TRUE(generate_kernel_source(test::w4a16_problem(), generic, &gg).ok());
  const std::string& t = gt.entry_text;
  for (const auto& [name, value] :
       std::map<std::string, int>{{"K", 5120}, {"N", 3072}, {"G", 64}}) {
    const size_t defined =
        t.find("#define KOPT_SHAPE_" + name + " " + std::to_string(value) + "\n");
    const size_t included = t.find("#include \"" + gt.source_file + "\"");
    const size_t undefined = t.find("#undef KOPT_SHAPE_" + name + "\n");
    ASSERT_NE(defined, std::string::npos) << name;
    ASSERT_NE(undefined, std::string::npos) << name;
    EXPECT_LT(defined, included) << name;
    EXPECT_GT(undefined, included) << name;
  }
  EXPECT_EQ(gg.entry_text.find("KOPT_SHAPE_"), std::string::npos);
}

// Every generic variant serves the AMD build too: each builds for gfx906
// (wave64) with no scratch.
TEST(ExportTest, GenericVariantsBuildForGfx906WithoutScratch) {
  Sandbox sandbox;
  if (!sandbox.amd_toolchain().available()) {
    const char* required = std::getenv("KOPT_REQUIRE_AMD_TOOLCHAIN");
    EXPECT_FALSE(required && std::string(required) == "1") << "the AMD toolchain is missing";
    GTEST_SKIP() << "no clang++-15 with ROCm device libraries; install them with "
                    "scripts/install-deps";
  }
  for (const auto& v : test::w4a16_problem().library().generic_variants) {
    const TargetResources r =
        sandbox.check_amd(*seed_candidate(*find_seed(test::w4a16_problem(), v.seed), v.params),
                          Shape{w4a16::kId, {}});
    EXPECT_TRUE(r.checked && r.compiled) << v.symbol << ": " << r.note;
    EXPECT_EQ(r.spill_bytes, 0) << v.symbol;
  }
}

int kopt_export(const std::vector<std::string>& args, std::string* output) {
  std::vector<std::string> argv = {executable_dir() + "/kopt", "export"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r;
  EXPECT_TRUE(run_process(argv, 300, 1 << 20, &r).ok());
  *output = r.output;
  return r.exit_code;
}

// `--fallbacks-only` needs no database or GPU and keeps the tuned entries
// already in the folder (the shipped folder here); `--drop-tuned` is the
// explicit way to leave them out.
TEST(ExportTest, FallbacksOnlyKeepsTheTunedEntriesUnlessToldToDropThem) {
  const std::string dir = test::temp_path("export-fallbacks");
  fs::remove_all(dir);
  fs::copy(test::source_dir() + "/kernels/w4a16_gemv/generated", dir);
  const size_t shipped = nlohmann::json::parse(read(
      test::source_dir() + "/kernels/w4a16_gemv/generated/MANIFEST.json"))["entries"]
                             .size();
  ASSERT_GE(shipped, 14u);  // at least one per contest shape
  std::string out;
  ASSERT_EQ(kopt_export({"--fallbacks-only", "--out", dir}, &out), 0) << out;
  EXPECT_NE(out.find("keeping the " + std::to_string(shipped) + " tuned entries"),
            std::string::npos)
      << out;
  const nlohmann::json doc = nlohmann::json::parse(read(dir + "/MANIFEST.json"));
  EXPECT_EQ(doc["manifest_version"], kManifestVersion);
  EXPECT_EQ(doc["problem"], "w4a16_gemv");
  const nlohmann::json kept = doc["entries"];
  EXPECT_EQ(kept.size(), shipped);
  EXPECT_EQ(read(dir + "/dispatch.inc"),
            read(test::source_dir() + "/kernels/w4a16_gemv/generated/dispatch.inc"));
  EXPECT_EQ(read(dir + "/platforms.cmake"),
            read(test::source_dir() + "/kernels/w4a16_gemv/generated/platforms.cmake"));
  for (const auto& e : kept) {
    std::string source;
    EXPECT_TRUE(candidate_source_of(dir, e["file"], &source).ok()) << e["file"];
  }
  EXPECT_EQ(kopt_export({"--drop-tuned", "--out", dir}, &out), kExitUsage) << out;
  ASSERT_EQ(kopt_export({"--fallbacks-only", "--drop-tuned", "--out", dir}, &out), 0) << out;
  EXPECT_EQ(nlohmann::json::parse(read(dir + "/MANIFEST.json"))["entries"].size(), 0u);
  EXPECT_FALSE(fs::exists(dir + "/k7168x9216_g64.hip"));  // stale entry files are removed
  EXPECT_NE(read(dir + "/platforms.cmake").find("set(KOPT_LIBRARY_NOT_FOR_AMD \"\")"),
            std::string::npos);
  EXPECT_TRUE(fs::exists(dir + "/generic_gen.hip"));
  EXPECT_EQ(read(dir + "/dispatch.inc").find("KOPT_ENTRY(kopt_w4a16_entry_k"), std::string::npos);
  // A corrupt manifest is refused with a line, and nothing is written over.
  std::ofstream(dir + "/MANIFEST.json") << "{oops";
  EXPECT_EQ(kopt_export({"--fallbacks-only", "--out", dir}, &out), kExitUsage);
  EXPECT_NE(out.find("not an export manifest"), std::string::npos) << out;
  EXPECT_EQ(read(dir + "/MANIFEST.json"), "{oops");
  // A manifest from a newer kopt, or of another problem, is refused by name;
  // one of the first version (a bare array) is still read.
  std::ofstream(dir + "/MANIFEST.json")
      << R"({"manifest_version": 99, "problem": "w4a16_gemv", "entries": []})";
  EXPECT_EQ(kopt_export({"--fallbacks-only", "--out", dir}, &out), kExitUsage);
  EXPECT_NE(out.find("manifest version 99 is newer"), std::string::npos) << out;
  std::ofstream(dir + "/MANIFEST.json")
      << R"({"manifest_version": 2, "problem": "w8a16_gemv", "entries": []})";
  EXPECT_EQ(kopt_export({"--fallbacks-only", "--out", dir}, &out), kExitUsage);
  EXPECT_NE(out.find("a manifest of problem w8a16_gemv"), std::string::npos) << out;
  std::ofstream(dir + "/MANIFEST.json") << "[]";
  EXPECT_EQ(kopt_export({"--fallbacks-only", "--out", dir}, &out), 0) << out;
}

// A worker that claims an sm_90 GPU and answers every evaluation "ok, 5 us".
std::string fake_sm90_worker() {
  return test::write_fake_worker("export-worker.sh", R"(,\"arch\":\"sm_90\")");
}

// From a run database: the device's own best serves its architecture; where
// that kernel needs gfx906 scratch, the best candidate that does not serves
// gfx906, in its own entry, labelled as not measured there.
TEST(ExportTest, FromADatabaseEachTargetGetsItsBestCandidate) {
  const std::string db_path = test::temp_path("export-targets.db");
  fs::remove(db_path);
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(db_path, &db).ok());
  RunRecord run;
  run.shape = "w4a16_gemv:5120x256";
  ASSERT_TRUE(db->create_run(&run).ok());
  // The 7168x9216 kernel's parameters: 8 warps of wave64 need gfx906 scratch.
  const std::map<std::string, int64_t> fast = {{"WARPS", 8}, {"XPF", 1}}, portable = {};
  const std::pair<const std::map<std::string, int64_t>*, double> kernels[] = {{&fast, 4.0},
                                                                              {&portable, 5.0}};
  for (const auto& [params, us] : kernels) {
    Candidate parsed;
    ASSERT_TRUE(
        parse_candidate(find_seed(test::w4a16_problem(), "gen")->source, *params, &parsed).ok());
    CandidateRecord c;
    c.run_id = run.id;
    c.name = "gen";
    c.source = find_seed(test::w4a16_problem(), "gen")->source;
    c.params_json = params_to_json(*params);
    c.key = candidate_key(parsed);
    c.proposer = "mutator";
    ASSERT_TRUE(db->add_candidate(&c).ok());
    EvaluationRecord e =
        test::evaluation_of(c, "w4a16_gemv:5120x256", "Fake GPU", "ok", std::nullopt,
                            {{"timing", {{"median_us", us}, {"max_us", us}}},
                             {"amd",
                              {{"checked", true},
                               {"compiled", true},
                               {"scratch_bytes", params->empty() ? 0 : 596},
                               {"vgprs", 128}}}});
    ASSERT_TRUE(db->add_evaluation(&e).ok());
  }
  db.reset();
  const std::string dir = test::temp_path("export-targets");
  fs::remove_all(dir);
  ProcessResult r;
  ASSERT_TRUE(
      run_process({"/usr/bin/env", "KOPT_WORKER=" + fake_sm90_worker(), executable_dir() + "/kopt",
                   "export", "--db", db_path, "--shape", "5120x256", "--out", dir},
                  120, 1 << 20, &r)
          .ok());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json manifest = nlohmann::json::parse(read(dir + "/MANIFEST.json"))["entries"];
  ASSERT_EQ(manifest.size(), 2u) << manifest.dump(1);
  EXPECT_EQ(manifest[0]["symbol"], "k5120x256_g64");
  EXPECT_EQ(manifest[0]["targets"], nlohmann::json({"sm_90"}));
  EXPECT_EQ(manifest[0]["params"]["WARPS"], 8);
  EXPECT_EQ(manifest[1]["symbol"], "k5120x256_g64_gfx906");
  EXPECT_EQ(manifest[1]["targets"], nlohmann::json({"gfx906"}));
  EXPECT_TRUE(manifest[1]["params"].empty());
  const std::string d = read(dir + "/dispatch.inc");
  EXPECT_NE(d.find("KOPT_ENTRY(kopt_w4a16_entry_k5120x256_g64, \"sm_90\")"), std::string::npos)
      << d;
  EXPECT_NE(
      d.find("KOPT_ENTRY(kopt_w4a16_entry_k5120x256_g64_gfx906, \"gfx906\")  // tuned on Fake GPU, "
             "not measured on gfx906"),
      std::string::npos)
      << d;
  // Both entries include the one gen source.
  std::string a, b;
  ASSERT_TRUE(candidate_source_of(dir, "k5120x256_g64.hip", &a).ok());
  ASSERT_TRUE(candidate_source_of(dir, "k5120x256_g64_gfx906.hip", &b).ok());
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace kopt
