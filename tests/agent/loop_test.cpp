#include "agent/loop.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>

#include "agent/candidate_text.h"
#include "agent/model_proposer.h"
#include "agent/timeline.h"
#include "problems/w4a16_batch/w4a16_batch.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "problems/w8a16_gemv/w8a16_gemv.h"
#include "tests/agent/fakes.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

using test::mutator_only;

double seed_default_time(const std::string& seed_name, const Shape& shape) {
  test::FakeEvaluator f;
  EvalRequest r;
  r.candidate = seed_candidate(*find_seed(test::w4a16_problem(), seed_name));
  r.shape = shape;
  return f.evaluate(r).timing->median_us;
}

TEST(LoopTest, MutatorImprovesOnTheSeeds) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("mutator"), &db).ok());
  test::FakeEvaluator eval;
  LoopOptions o;
  o.budget = 40;
  o.seed = 42;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  int64_t run_id = 0;
  Shape shape = w4a16::shape(5120, 256, 64);
  ASSERT_TRUE(loop.start(shape, "{}", &run_id).ok());
  EXPECT_EQ(loop.stop_reason(), "budget");
  // 40 candidates, and a second measurement of each that led when it came.
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  EXPECT_EQ(candidates.size(), 40u);
  int remeasured = 0;
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(db->evaluations_of(c.id, &e).ok());
    ASSERT_GE(e.size(), 1u);
    ASSERT_LE(e.size(), 2u);
    if (e.size() == 2) {
      EXPECT_EQ(e[1].stage, "re-measured");
      ++remeasured;
    }
  }
  EXPECT_GT(remeasured, 0);
  EXPECT_EQ(eval.calls, 40 + remeasured);
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best(shape.key(), "Fake GPU", 1, &best).ok());
  ASSERT_EQ(best.size(), 1u);
  double best_seed = std::min({seed_default_time("naive", shape), seed_default_time("vec", shape),
                               seed_default_time("splitk", shape)});
  EXPECT_LT(*best[0].evaluation.median_us, best_seed);
  EXPECT_EQ(best[0].candidate.proposer, "mutator");
  std::vector<CandidateRecord> chain;
  ASSERT_TRUE(db->lineage(best[0].candidate.id, &chain).ok());
  EXPECT_GE(chain.size(), 2u);
  EXPECT_EQ(chain.back().proposer, "seed");
  RunRecord run;
  ASSERT_TRUE(db->get_run(run_id, &run).ok());
  EXPECT_EQ(run.status, "done");
}

TEST(LoopTest, SameSeedRepeatsTheRun) {
  auto run_once = [](const std::string& name) {
    std::unique_ptr<Database> db;
    EXPECT_TRUE(Database::open(test::temp_path(name), &db).ok());
    test::FakeEvaluator eval;
    LoopOptions o;
    o.budget = 15;
    o.seed = 9;
    OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
    int64_t id;
    EXPECT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &id).ok());
    std::vector<CandidateRecord> cs;
    db->candidates_of_run(id, &cs);
    std::string keys;
    for (const auto& c : cs) keys += c.key + ",";
    return keys;
  };
  EXPECT_EQ(run_once("repeat_a"), run_once("repeat_b"));
}

// Prompt templates from a folder replace the built-in ones file by file.
TEST(LoopTest, PromptTemplatesComeFromAFolder) {
  const std::string dir = test::temp_path("prompts");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  std::ofstream(dir + "/user.txt") << "CUSTOM {{shape}} on {{device}}\n{{contract}}";
  PromptTemplates t;
  ASSERT_TRUE(PromptTemplates::from_directory(dir, &t).ok());
  EXPECT_EQ(t.system, PromptTemplates::builtin().system);  // not in the folder: built-in
  ProposalContext ctx;
  ctx.shape = w4a16::shape(5120, 256, 64);
  ctx.device.name = "Fake GPU";
  const std::string prompt = render_prompt(ctx, t);
  EXPECT_EQ(prompt.rfind("CUSTOM 5120x256 on Fake GPU", 0), 0u) << prompt.substr(0, 200);
  EXPECT_NE(prompt.find(PromptTemplates::builtin().contract.substr(0, 40)), std::string::npos);
  EXPECT_FALSE(PromptTemplates::from_directory(dir + "/missing", &t).ok());
}

// The parent's profiler line reaches the prompt; without one it says so.
TEST(LoopTest, ThePromptCarriesTheParentsProfile) {
  ProposalContext ctx;
  ctx.shape = w4a16::shape(5120, 256, 64);
  ctx.device.name = "Fake GPU";
  ScoredCandidate parent;
  parent.candidate.set_candidate(enter_candidate("/* kopt: {} */", {}));
  ctx.parents.push_back(parent);
  EXPECT_NE(render_prompt(ctx, PromptTemplates::builtin())
                .find("Profiler (hardware counters): not profiled"),
            std::string::npos);
  ctx.parent_profile = "latency-bound: DRAM 53% of peak; stalls: long scoreboard 58%";
  EXPECT_NE(render_prompt(ctx, PromptTemplates::builtin())
                .find("Profiler (hardware counters): latency-bound: DRAM 53% of peak"),
            std::string::npos);
}

// Inspirations, chosen for diversity: the best of another family with its
// source, the best variant of the parent's family with its diff, each with
// its idea and measurement.
TEST(LoopTest, ThePromptShowsInspirationsWithSourceAndDiff) {
  ProposalContext ctx;
  ctx.shape = w4a16::shape(5120, 256, 64);
  ctx.device.name = "Fake GPU";
  auto scored = [](int64_t id, const std::string& name, const std::string& source,
                   const std::string& params, double us) {
    ScoredCandidate c;
    c.candidate.id = id;
    c.candidate.name = name;
    c.candidate.source = source;
    c.candidate.params_json = params;
    c.candidate.parsed = enter_candidate(source, params_from_json(params));
    EvaluationRecord e;
    e.verdict = "ok";
    e.median_us = us;
    c.evaluation = e;
    return c;
  };
  const std::string gen = find_seed(test::w4a16_problem(), "gen")->source,
                    dot = find_seed(test::w4a16_problem(), "dot")->source;
  ctx.parents.push_back(scored(1, "gen", gen, R"({"WARPS":8})", 5.0));
  ctx.top.push_back(scored(2, "gen", gen, R"({"WARPS":4})", 5.5));
  std::string edited = gen;
  edited.replace(edited.find("#define XLOADS 4"), 16, "#define XLOADS 8");
  ctx.top.push_back(scored(3, "gen", edited, R"({"WARPS":8})", 5.6));
  ctx.top.push_back(scored(4, "dot", dot, "{}", 6.0));
  const std::string p = render_prompt(ctx, PromptTemplates::builtin());
  const size_t at = p.find("# Inspirations");
  ASSERT_NE(at, std::string::npos);
  const std::string part = p.substr(at);
  EXPECT_NE(part.find("## dot {} (another kernel family)"), std::string::npos) << part;
  EXPECT_NE(part.find(dot.substr(0, 200)), std::string::npos);
  // The first sibling in rank order: same code, other parameters.
  EXPECT_NE(part.find(R"(## gen {"WARPS":4} (a variant of the parent))"), std::string::npos);
  EXPECT_NE(part.find(R"(parameters {"WARPS":4} against the parent's {"WARPS":8})"),
            std::string::npos);
  // Without parameter siblings, a code variant comes as a diff.
  ctx.top.erase(ctx.top.begin());
  const std::string q = render_prompt(ctx, PromptTemplates::builtin());
  EXPECT_NE(q.find("-#define XLOADS 4\n+#define XLOADS 8"), std::string::npos)
      << q.substr(q.find("# Inspirations"), 1500);
}

// A run killed with SIGKILL loses nothing already recorded and resumes.
TEST(LoopTest, KilledRunResumesWithoutLoss) {
  const std::string path = test::temp_path("resume");
  int64_t run_id = 0;
  {
    std::unique_ptr<Database> db;
    ASSERT_TRUE(Database::open(path, &db).ok());
  }
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::unique_ptr<Database> db;
    if (!Database::open(path, &db).ok()) _exit(1);
    test::FakeEvaluator eval;
    eval.delay_ms = 20;
    LoopOptions o;
    o.budget = 40;
    o.seed = 5;
    OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
    int64_t id;
    loop.start(w4a16::shape(5120, 256, 64), "{}", &id);
    _exit(0);
  }
  // Wait for a dozen evaluations, then kill it mid-run.
  std::vector<CandidateRecord> before;
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(path, &db).ok());
  for (int i = 0; i < 500; ++i) {
    std::vector<RunRecord> runs;
    db->list_runs(&runs);
    if (!runs.empty()) {
      run_id = runs[0].id;
      db->candidates_of_run(run_id, &before);
      if (before.size() >= 12) break;
    }
    usleep(10000);
  }
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it could be killed";
  ASSERT_GT(run_id, 0);
  db->candidates_of_run(run_id, &before);
  std::vector<EvaluationRecord> evals_before;
  for (const auto& c : before) {
    std::vector<EvaluationRecord> e;
    db->evaluations_of(c.id, &e);
    evals_before.insert(evals_before.end(), e.begin(), e.end());
  }
  ASSERT_LT(before.size(), 40u);

  test::FakeEvaluator eval;
  LoopOptions o;
  o.budget = 40;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  ASSERT_TRUE(loop.resume(run_id).ok());
  std::vector<CandidateRecord> after;
  db->candidates_of_run(run_id, &after);
  EXPECT_GE(after.size(), 40u);
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].key, before[i].key);
  }
  // What was recorded before the kill is still there, unchanged.
  for (const auto& e : evals_before) {
    std::vector<EvaluationRecord> now;
    db->evaluations_of(e.candidate_id, &now);
    auto same = std::find_if(now.begin(), now.end(),
                             [&](const EvaluationRecord& n) { return n.id == e.id; });
    ASSERT_NE(same, now.end()) << "evaluation " << e.id;
    EXPECT_EQ(same->verdict, e.verdict);
  }
  // Every candidate ends with one evaluation (the one in flight was redone),
  // and a second, re-measured one where it led when it came.
  for (const auto& c : after) {
    std::vector<EvaluationRecord> now;
    db->evaluations_of(c.id, &now);
    ASSERT_GE(now.size(), 1u) << "candidate " << c.id;
    ASSERT_LE(now.size(), 2u) << "candidate " << c.id;
    if (now.size() == 2) {
      EXPECT_EQ(now[1].stage, "re-measured") << "candidate " << c.id;
    }
  }
  RunRecord run;
  ASSERT_TRUE(db->get_run(run_id, &run).ok());
  EXPECT_EQ(run.status, "done");
}

// Niches: every third generation the main parent is the best of another
// kernel family, in turn; the others build on the global best.
class ParentRecorder : public ParameterMutator {
 public:
  std::vector<std::string>* parents;
  explicit ParentRecorder(std::vector<std::string>* p) : parents(p) {}
  bool propose(const ProposalContext& ctx, Proposal* out, ProposalFailure* failure) override {
    parents->push_back(ctx.parents[0].candidate.name);
    return ParameterMutator::propose(ctx, out, failure);
  }
};

TEST(LoopTest, EveryThirdGenerationBuildsOnAnotherFamily) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("niches"), &db).ok());
  test::FakeEvaluator eval;
  std::vector<std::string> parents;
  std::vector<WeightedProposer> proposers;
  proposers.push_back({std::make_unique<ParentRecorder>(&parents), 1.0});
  LoopOptions o;
  o.budget = 29;  // 5 seeds + 6 generations of 4
  o.seed = 7;
  o.batch = 4;
  OptimizationLoop loop(db.get(), &eval, std::move(proposers), o);
  int64_t run_id = 0;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  ASSERT_GE(parents.size(), 24u);
  std::set<std::string> niche_parents;
  for (size_t g = 0; g < 6; ++g) {
    const std::string& first = parents[g * 4];
    for (size_t i = 1; i < 4; ++i)
      EXPECT_EQ(parents[g * 4 + i], first);  // one parent per generation
    if ((g + 1) % 3 == 0) niche_parents.insert(first);
  }
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best("w4a16_gemv:5120x256", "Fake GPU", 1, &best).ok());
  EXPECT_EQ(niche_parents.size(), 2u);  // two niche generations, two different families
  EXPECT_EQ(niche_parents.count(best[0].candidate.name), 0u);
  // The other generations build on the leader's family (the leader's family
  // does not change in this run: the fake's fastest family wins from the start).
  for (size_t g : {0u, 1u, 3u, 4u}) EXPECT_EQ(parents[g * 4], best[0].candidate.name) << g;
}

// The bandit: improvements per cost decide the shares; a proposer that never
// improves keeps a floor; a free one that improves gets the most.
TEST(LoopTest, BanditSharesFollowImprovementPerCost) {
  std::vector<WeightedProposer> p(3);
  p[0].weight = p[1].weight = p[2].weight = 1;
  auto shares = bandit_shares(p);
  EXPECT_NEAR(shares[0], 1.0 / 3, 1e-9);                         // no evidence yet: the weights
  p[0].proposals = 20, p[0].improvements = 6, p[0].spent = 0.2;  // cheap and good
  p[1].proposals = 20, p[1].improvements = 6, p[1].spent = 2.0;  // as good, ten times the price
  p[2].proposals = 20, p[2].improvements = 0, p[2].spent = 0.2;  // cheap, never improves
  shares = bandit_shares(p);
  EXPECT_GT(shares[0], shares[1]);
  EXPECT_GT(shares[1], shares[2]);
  EXPECT_GE(shares[2], (1.0 / 3) / 10 - 1e-12);  // the floor
  p[1].weight = 0;                               // set aside
  EXPECT_EQ(bandit_shares(p)[1], 0);
}

// The fake GPU with the sizes the contracts' requirements need (so kernels
// a shape cannot run are told apart).
class KnownDevice : public test::FakeEvaluator {
 public:
  Status device(DeviceInfo* out) override {
    *out = device_info();
    out->multiprocessors = 132;
    out->warp_size = 32;
    out->max_threads_per_block = 1024;
    out->max_shared_bytes = 48 * 1024;
    return Status();
  }
};

// A measured kernel of another run (`gen` unless `seed` says): its own run
// on `shape_key`, the parameters, the time, on `device`. Returns the
// candidate's id.
int64_t measured_elsewhere(Database* db, const std::string& shape_key, const std::string& device,
                           const std::map<std::string, int64_t>& params, double us,
                           const Seed& seed = test::w4a16_seed("gen")) {
  RunRecord run;
  run.shape = shape_key;
  EXPECT_TRUE(db->create_run(&run).ok());
  CandidateRecord c;
  c.run_id = run.id;
  c.name = seed.name;
  c.set_candidate(seed_candidate(seed, params));
  c.proposer = "mutator";
  EXPECT_TRUE(db->add_candidate(&c).ok());
  EvaluationRecord e = test::evaluation_of(c, shape_key, device, "ok", us);
  EXPECT_TRUE(db->add_evaluation(&e).ok());
  return c.id;
}

// A new run starts from the fastest kernels of the nearest other shapes
// measured on its GPU: on 5120x512, 5120x256's best (nearest) before
// 4096x7168's; not a slower kernel of those shapes, nor 5120x768's best
// measured on another GPU, nor 5120x384's, which K = 5120 cannot run (x in
// registers with K in one part), nor more than `transfers` of them.
TEST(LoopTest, ANewRunStartsFromTheBestOfTheNearestOtherShapes) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("transfers"), &db).ok());
  const std::string gpu = test::FakeEvaluator::device_info().name;
  const std::map<std::string, int64_t> nearest = {
      {"DEPTH", 8}, {"XREG", 1}, {"KSPLIT", 5}, {"WARPS", 5}};
  const int64_t near = measured_elsewhere(db.get(), "w4a16_gemv:5120x256", gpu, nearest, 2.0);
  measured_elsewhere(db.get(), "w4a16_gemv:5120x256", gpu, {{"DEPTH", 6}}, 3.0);
  const int64_t second =
      measured_elsewhere(db.get(), "w4a16_gemv:4096x7168", gpu, {{"ROWS", 3}, {"OCC", 4}}, 6.0);
  measured_elsewhere(db.get(), "w4a16_gemv:7168x9216", gpu, {{"ROWS", 4}}, 13.0);
  measured_elsewhere(db.get(), "w4a16_gemv:5120x768", "Other GPU", {{"ROWS", 8}}, 1.0);
  measured_elsewhere(db.get(), "w4a16_gemv:5120x384", gpu, {{"XREG", 1}, {"LPR", 32}}, 1.0);

  auto transferred = [&](int transfers) {
    KnownDevice eval;
    LoopOptions o;
    o.budget = 7;
    o.transfers = transfers;
    OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
    int64_t id = 0;
    EXPECT_TRUE(loop.start(w4a16::shape(5120, 512, 64), "{}", &id).ok());
    std::vector<CandidateRecord> cs;
    EXPECT_TRUE(db->candidates_of_run(id, &cs).ok());
    std::vector<std::pair<std::string, std::vector<int64_t>>> out;
    for (const auto& c : cs)
      if (c.proposer == "transfer") out.push_back({c.params_json, c.parents});
    return out;
  };
  const auto two = transferred(2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].first, params_to_json(nearest));
  EXPECT_EQ(two[0].second, std::vector<int64_t>{near});
  EXPECT_EQ(two[1].first, params_to_json({{"ROWS", 3}, {"OCC", 4}}));
  EXPECT_EQ(two[1].second, std::vector<int64_t>{second});
  CandidateRecord transfer, parent;
  transfer.proposer = "transfer";
  EXPECT_EQ(candidate_idea(transfer, &parent).rfind("transferred", 0), 0u);
  EXPECT_EQ(transferred(1).size(), 1u);
  EXPECT_TRUE(transferred(0).empty());
}

// A first run on a shape nobody measured here starts from the shipped
// library's kernels of the nearest shapes (proposer "library"), where the
// database has fewer than `transfers`: not one this shape cannot run, nor
// one with a parameter today's seed does not have, nor one from another
// problem; the database's own transfers come first.
TEST(LoopTest, ANewRunStartsFromTheShippedLibrarysNearestKernels) {
  const std::map<std::string, int64_t> nearest = {
      {"DEPTH", 8}, {"XREG", 1}, {"KSPLIT", 5}, {"WARPS", 5}};
  const std::map<std::string, int64_t> second = {{"ROWS", 3}, {"OCC", 4}};
  std::vector<ShippedKernel> shipped = {
      {w4a16::shape(4096, 7168, 64), {"gen", second}},
      {w4a16::shape(5120, 384, 64), {"gen", {{"XREG", 1}, {"LPR", 32}}}},  // cannot run K = 5120
      {w4a16::shape(5120, 256, 64), {"gen", nearest}},
      {w4a16::shape(5120, 768, 64), {"gen", {{"NO_SUCH_KNOB", 1}}}},
      {w8a16::shape(5120, 512), {"vec", {}}}};
  auto started = [&](Database* db, int transfers) {
    KnownDevice eval;
    LoopOptions o;
    o.budget = 8;
    o.transfers = transfers;
    o.shipped = shipped;
    OptimizationLoop loop(db, &eval, mutator_only(), o);
    int64_t id = 0;
    EXPECT_TRUE(loop.start(w4a16::shape(5120, 512, 64), "{}", &id).ok());
    std::vector<CandidateRecord> cs;
    EXPECT_TRUE(db->candidates_of_run(id, &cs).ok());
    std::vector<std::pair<std::string, std::string>> out;  // proposer, parameters
    for (const auto& c : cs)
      if (c.proposer == "library" || c.proposer == "transfer")
        out.push_back({c.proposer, c.params_json});
    return out;
  };
  std::unique_ptr<Database> fresh;
  ASSERT_TRUE(Database::open(test::temp_path("library-starts"), &fresh).ok());
  const auto three = started(fresh.get(), 3);
  ASSERT_EQ(three.size(), 2u) << "two of the five can start a run on 5120x512";
  EXPECT_EQ(three[0], std::make_pair(std::string("library"), params_to_json(nearest)));
  EXPECT_EQ(three[1], std::make_pair(std::string("library"), params_to_json(second)));
  CandidateRecord library;
  library.proposer = "library";
  EXPECT_EQ(candidate_idea(library, nullptr).rfind("from the shipped library", 0), 0u);

  // With a kernel of its own database nearby, that one comes first and the
  // library fills the rest.
  std::unique_ptr<Database> used;
  ASSERT_TRUE(Database::open(test::temp_path("library-and-db"), &used).ok());
  measured_elsewhere(used.get(), "w4a16_gemv:5120x1024", test::FakeEvaluator::device_info().name,
                     {{"DEPTH", 6}}, 2.0);
  const auto two = started(used.get(), 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], std::make_pair(std::string("transfer"), params_to_json({{"DEPTH", 6}})));
  EXPECT_EQ(two[1], std::make_pair(std::string("library"), params_to_json(nearest)));
  EXPECT_TRUE(started(used.get(), 0).empty());
}

// Transfers cross M: a decode batch of 4 rows nobody ran starts from
// kernels measured at other row counts, and M counts in the distance like K
// and N: a 4-row kernel of a slightly wider shape (5120x640) comes before a
// 16-row kernel of the same K x N, which comes before one of another K x N.
TEST(LoopTest, TransfersCrossTheNumberOfRows) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("transfers-rows"), &db).ok());
  const std::string gpu = test::FakeEvaluator::device_info().name;
  const Seed& klanes = *find_seed(*find_problem("w4a16_batch"), "klanes");
  const std::map<std::string, int64_t> sixteen_rows = {{"MR", 16}, {"COLS", 1}};
  const std::map<std::string, int64_t> wider = {{"MR", 4}, {"COLS", 4}};
  measured_elsewhere(db.get(), w4a16_batch::shape(16, 5120, 512).key(), gpu, sixteen_rows, 4.0,
                     klanes);
  measured_elsewhere(db.get(), w4a16_batch::shape(4, 5120, 640).key(), gpu, wider, 3.0, klanes);
  measured_elsewhere(db.get(), w4a16_batch::shape(4, 7168, 9216).key(), gpu,
                     {{"MR", 4}, {"WARPS", 4}}, 30.0, klanes);
  KnownDevice eval;
  LoopOptions o;
  o.budget = 6;
  o.transfers = 2;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  int64_t id = 0;
  ASSERT_TRUE(loop.start(w4a16_batch::shape(4, 5120, 512), "{}", &id).ok());
  std::vector<CandidateRecord> cs;
  ASSERT_TRUE(db->candidates_of_run(id, &cs).ok());
  std::vector<std::string> transferred;
  for (const auto& c : cs)
    if (c.proposer == "transfer") transferred.push_back(c.params_json);
  EXPECT_EQ(transferred,
            (std::vector<std::string>{params_to_json(wider), params_to_json(sixteen_rows)}));
}

TEST(LoopTest, NoDeviceStopsTheRunWithAClearReason) {
  class NoDevice : public test::FakeEvaluator {
   public:
    EvalResult evaluate(const EvalRequest& r) override {
      EvalResult e;
      e.shape = r.shape.name();
      e.verdict = Verdict::kNoDevice;
      e.message = "no GPU: test";
      return e;
    }
  } eval;
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("nodevice"), &db).ok());
  OptimizationLoop loop(db.get(), &eval, mutator_only(), LoopOptions{});
  int64_t id;
  Status s = loop.start(w4a16::shape(5120, 256, 64), "{}", &id);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.is_no_device()) << "callers tell it from other failures by its kind, not its text";
  EXPECT_EQ(loop.stop_reason().rfind("no device", 0), 0u);
}

}  // namespace
}  // namespace kopt
