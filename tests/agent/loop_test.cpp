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
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "tests/agent/fakes.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

std::vector<WeightedProposer> mutator_only() {
  std::vector<WeightedProposer> p;
  p.push_back({std::make_unique<ParameterMutator>(), 1.0});
  return p;
}

// One model proposer ("replay") answering from a loopback server, with the
// given prices per million tokens.
std::vector<WeightedProposer> replay_model(const test::ReplayServer& server, double price_in = 0,
                                           double price_out = 0) {
  HttpChatOptions co;
  co.base_url = server.base_url();
  co.model = "replay";
  co.retries = 0;
  co.timeout_s = 5;
  std::vector<WeightedProposer> p;
  p.push_back({std::make_unique<ModelProposer>("replay", std::make_unique<HttpChatClient>(co),
                                               price_in, price_out),
               1.0});
  return p;
}

double seed_default_time(const std::string& seed_name, const Shape& shape) {
  test::FakeEvaluator f;
  EvalRequest r;
  r.source = find_seed(test::w4a16_problem(), seed_name)->source;
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

// The model path end to end: the real HTTP client against a loopback server
// replaying a malformed answer, a truncated one, an HTTP error, a wrong
// kernel, an edit that does not apply, and a correct, faster kernel.
TEST(LoopTest, ModelPathFindsTheFasterKernelAndRecordsFailures) {
  std::string fast = find_seed(test::w4a16_problem(), "naive")->source;
  fast.replace(fast.find("\"name\": \"naive\""), 15, "\"name\": \"fast\"");
  fast += "\n// FAST_KERNEL\n";
  // (A code line, not only the comment the fake evaluator reads: a
  // comment-only change is the naive seed again and is not evaluated.)
  std::string broken = find_seed(test::w4a16_problem(), "naive")->source +
                       "\n// BROKEN_KERNEL\nKOPT_INLINE int broken_marker() { return 1; }\n";
  test::ReplayServer server({
      {200, test::chat_body("I would use more threads.")},
      {200, test::chat_body("```hip\n/* kopt: {\"launches\": [", "length")},
      {500, "internal error"},
      {200, test::chat_body("```hip\n" + broken + "```")},
      {200,
       test::chat_body("<<<<<<< SEARCH\nthis line is not there\n=======\nx\n>>>>>>> REPLACE\n")},
      {200, test::chat_body("Faster, because X.\n```hip\n" + fast + "```\n")},
      // The fast kernel again, with only a comment and spacing changed: not evaluated again.
      {200, test::chat_body("```hip\n" + fast + "\n// tidier\n  \n```\n")},
  });
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("model"), &db).ok());
  test::FakeEvaluator eval;
  std::vector<WeightedProposer> proposers = replay_model(server, 1.0, 2.0);
  LoopOptions o;
  o.budget = static_cast<int64_t>(test::w4a16_problem().seeds().size()) +
             3;  // the seeds, the broken kernel, the fast one, and room for the duplicate (never
                 // evaluated)
  o.batch = 2;
  o.seed = 1;
  OptimizationLoop loop(db.get(), &eval, std::move(proposers), o);
  int64_t run_id;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best("w4a16_gemv:5120x256", "", 1, &best).ok());
  ASSERT_FALSE(best.empty());
  EXPECT_EQ(best[0].candidate.name, "fast");  // the contract's own name, the model's idea
  EXPECT_DOUBLE_EQ(*best[0].evaluation.median_us, 1.0);
  EXPECT_EQ(best[0].candidate.model, "replay");
  EXPECT_NE(best[0].candidate.prompt.find("5120x256"), std::string::npos);  // the prompt is kept
  EXPECT_NE(best[0].candidate.answer.find("Faster"), std::string::npos);    // and the raw answer

  std::vector<AttemptRecord> attempts;
  ASSERT_TRUE(db->attempts(run_id, 20, &attempts).ok());
  std::set<std::string> kinds;
  for (const auto& a : attempts) kinds.insert(a.kind);
  EXPECT_TRUE(kinds.count("malformed_answer"));
  EXPECT_TRUE(kinds.count("model_error"));
  bool same_code = false;
  for (const auto& a : attempts)
    same_code = same_code || a.message.find("once comments and white space") != std::string::npos;
  EXPECT_TRUE(same_code) << "a comment-only change was evaluated again";
  std::vector<EvaluationRecord> failed;
  ASSERT_TRUE(db->failed_evaluations(run_id, 20, &failed).ok());
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].verdict, "wrong_result");
  EXPECT_EQ(failed[0].log, "fake log");
  RunRecord run;
  ASSERT_TRUE(db->get_run(run_id, &run).ok());
  EXPECT_GT(run.tokens_used, 0);
  EXPECT_GT(run.cost, 0);
  // The prompt shows the failure of the broken kernel to the model.
  bool saw_failure = false;
  for (size_t i = 0; i < server.request_count(); ++i)
    saw_failure = saw_failure || server.request(i).find("first wrong index 0") != std::string::npos;
  EXPECT_TRUE(saw_failure);
  // And the answers that could not be used, with the reason, so the model
  // does not repeat them.
  bool saw_parse_failure = false;
  for (size_t i = 0; i < server.request_count(); ++i)
    saw_parse_failure =
        saw_parse_failure ||
        server.request(i).find("your answer could not be used (replay): no code block") !=
            std::string::npos;
  EXPECT_TRUE(saw_parse_failure);
  // The prompt names the device that times the candidates, not a fixed target.
  EXPECT_NE(server.request(0).find("# The device\\nFake GPU"), std::string::npos)
      << server.request(0).substr(0, 2000);
}

// One repair turn: a model kernel that gives wrong results goes back to the
// same model in the same conversation (its answer, then the failure with the
// first wrong element); the fix is a new candidate whose first parent is the
// failed kernel.
TEST(LoopTest, AFailedModelKernelGetsOneRepairTurn) {
  std::string broken = find_seed(test::w4a16_problem(), "naive")->source +
                       "\n// BROKEN_KERNEL\nKOPT_INLINE int broken_marker() { return 1; }\n";
  std::string fast = find_seed(test::w4a16_problem(), "naive")->source;
  fast.replace(fast.find("\"name\": \"naive\""), 15, "\"name\": \"fixed\"");
  fast += "\n// FAST_KERNEL\nKOPT_INLINE int fixed_marker() { return 2; }\n";
  test::ReplayServer server({
      {200, test::chat_body("A faster kernel:\n```hip\n" + broken + "```\n")},
      {200, test::chat_body("Sorry, the offset was missing.\n```hip\n" + fast + "```\n")},
  });
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("repair"), &db).ok());
  test::FakeEvaluator eval;
  std::vector<WeightedProposer> proposers = replay_model(server);
  LoopOptions o;
  o.budget =
      static_cast<int64_t>(test::w4a16_problem().seeds().size()) + 2;  // seeds, broken, its repair
  o.batch = 1;
  o.seed = 1;
  OptimizationLoop loop(db.get(), &eval, std::move(proposers), o);
  int64_t run_id;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  ASSERT_GE(server.request_count(), 2u);
  const std::string repair_request = server.request(1);
  // The same conversation: the first prompt, the model's own answer, the failure.
  EXPECT_NE(repair_request.find("A faster kernel:"), std::string::npos);
  EXPECT_NE(repair_request.find("\"assistant\""), std::string::npos);
  EXPECT_NE(repair_request.find("Your kernel was evaluated and failed"), std::string::npos);
  EXPECT_NE(repair_request.find("wrong_result"), std::string::npos);
  EXPECT_NE(repair_request.find("first wrong index 0"), std::string::npos);
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best("w4a16_gemv:5120x256", "", 1, &best).ok());
  ASSERT_FALSE(best.empty());
  EXPECT_EQ(best[0].candidate.name, "fixed");
  CandidateRecord failed;
  ASSERT_FALSE(best[0].candidate.parents.empty());
  ASSERT_TRUE(db->get_candidate(best[0].candidate.parents[0], &failed).ok());
  EXPECT_NE(failed.source.find("BROKEN_KERNEL"), std::string::npos);
  EXPECT_NE(best[0].candidate.prompt.find("[repair turn]"), std::string::npos);
}

// A generation's failed model kernels get their repair turns, and the
// repaired kernels are evaluated together (one per worker), not one by one
// while the other workers wait.
class RecordsBatches : public test::FakeEvaluator {
 public:
  std::vector<size_t> batches;
  std::vector<EvalResult> evaluate_many(const std::vector<EvalRequest>& requests) override {
    batches.push_back(requests.size());
    return Evaluator::evaluate_many(requests);
  }
  int parallelism() const override { return 2; }
};

TEST(LoopTest, AGenerationsRepairsAreEvaluatedTogether) {
  const std::string naive = find_seed(test::w4a16_problem(), "naive")->source;
  auto variant = [&](const std::string& marker, int n) {
    return naive + "\n// " + marker + "\nKOPT_INLINE int marker_" + std::to_string(n) +
           "() { return " + std::to_string(n) + "; }\n";
  };
  test::ReplayServer server({
      {200, test::chat_body("```hip\n" + variant("BROKEN_KERNEL", 1) + "```\n")},
      {200, test::chat_body("```hip\n" + variant("BROKEN_KERNEL", 2) + "```\n")},
      {200, test::chat_body("Fixed.\n```hip\n" + variant("FAST_KERNEL", 3) + "```\n")},
      {200, test::chat_body("Fixed.\n```hip\n" + variant("FAST_KERNEL", 4) + "```\n")},
  });
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("repairs-together"), &db).ok());
  RecordsBatches eval;
  LoopOptions o;
  o.budget = static_cast<int64_t>(test::w4a16_problem().seeds().size()) + 4;
  o.batch = 2;
  o.seed = 1;
  OptimizationLoop loop(db.get(), &eval, replay_model(server), o);
  int64_t run_id;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  ASSERT_GE(server.request_count(), 4u);
  // After the seeds (and their re-measurement): the two broken kernels
  // together, then their two repairs together.
  std::vector<size_t> pairs;
  for (size_t i = 2; i < eval.batches.size(); ++i) pairs.push_back(eval.batches[i]);
  ASSERT_GE(pairs.size(), 2u);
  EXPECT_EQ(pairs[0], 2u);
  EXPECT_EQ(pairs[1], 2u) << "the repairs went to the workers one at a time";
}

// An answer that could not be read goes back to the model once, with the
// reason and the forms an answer may take; the reply is a candidate.
TEST(LoopTest, AnUnreadableAnswerGetsOneRepairTurn) {
  std::string fixed = find_seed(test::w4a16_problem(), "naive")->source;
  fixed.replace(fixed.find("\"name\": \"naive\""), 15, "\"name\": \"readable\"");
  fixed += "\n// READABLE_KERNEL\nKOPT_INLINE int readable_marker() { return 3; }\n";
  test::ReplayServer server({
      {200, test::chat_body("I would unroll the inner loop twice; that should help.")},
      {200, test::chat_body("Here it is:\n```hip\n" + fixed + "```\n")},
  });
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("repair-unread"), &db).ok());
  test::FakeEvaluator eval;
  LoopOptions o;
  o.budget = static_cast<int64_t>(test::w4a16_problem().seeds().size()) + 1;
  o.batch = 1;
  o.seed = 1;
  OptimizationLoop loop(db.get(), &eval, replay_model(server), o);
  int64_t run_id;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  ASSERT_GE(server.request_count(), 2u);
  const std::string repair_request = server.request(1);
  EXPECT_NE(repair_request.find("I would unroll the inner loop"), std::string::npos);
  EXPECT_NE(repair_request.find("Your answer could not be read: no code block"), std::string::npos)
      << repair_request;
  EXPECT_NE(repair_request.find("a unified diff of the parent"), std::string::npos);
  std::vector<CandidateRecord> cs;
  ASSERT_TRUE(db->candidates_of_run(run_id, &cs).ok());
  bool found = false;
  for (const auto& c : cs) found = found || c.source.find("READABLE_KERNEL") != std::string::npos;
  EXPECT_TRUE(found) << "the repaired answer is not a candidate";
  // The unreadable answer is kept as an attempt with its raw text.
  std::vector<AttemptRecord> attempts;
  ASSERT_TRUE(db->attempts(run_id, 10, &attempts).ok());
  ASSERT_FALSE(attempts.empty());
  EXPECT_NE(attempts.back().answer.find("unroll the inner loop"), std::string::npos);
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
  parent.candidate.source = "/* kopt: {} */";
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

// Timing noise: every other measurement comes out at half the time. A child
// whose first measurement was lucky is measured again before it leads, and
// ranks with its slower measurement, so the run's best is a real one.
// Several workers: a generation's candidates go to the workers together
// (at least one per worker), each result is recorded, and the budget holds.
class TwoWorkers : public test::FakeEvaluator {
 public:
  std::vector<size_t> batches;
  std::vector<EvalResult> evaluate_many(const std::vector<EvalRequest>& requests) override {
    batches.push_back(requests.size());
    return Evaluator::evaluate_many(requests);
  }
  int parallelism() const override { return 6; }
};

TEST(LoopTest, AGenerationIsEvaluatedTogetherOnAllWorkers) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("two-workers"), &db).ok());
  TwoWorkers eval;
  LoopOptions o;
  o.budget = 23;
  o.batch = 2;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  int64_t run_id = 0;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  EXPECT_EQ(candidates.size(), 23u);
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(db->evaluations_of(c.id, &e).ok());
    EXPECT_FALSE(e.empty()) << c.id;
  }
  ASSERT_GE(eval.batches.size(), 3u);
  EXPECT_EQ(eval.batches[0], test::w4a16_problem().seeds().size());  // the seeds together
  // Then the seeds faster than the (empty) incumbent measured again, all in
  // one round (at most one per worker), and generations of one per worker.
  EXPECT_EQ(eval.batches[1], test::w4a16_problem().seeds().size());
  EXPECT_NE(std::find(eval.batches.begin() + 2, eval.batches.end(), 6u), eval.batches.end());
  size_t requested = 0;
  for (size_t n : eval.batches) requested += n;
  size_t remeasured = 0;
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(db->evaluations_of(c.id, &e).ok());
    for (const auto& r : e) remeasured += r.stage == "re-measured";
  }
  // Never past the budget: every request is a candidate's first measurement
  // or a re-measurement that was recorded.
  EXPECT_LE(requested, 23u + remeasured);
}

// With one worker the re-measurements stay as few as one at a time makes
// them: the fastest contender of a batch first, the others only if they
// still beat the best when their turn comes.
TEST(LoopTest, OneWorkerReMeasuresOnlyWhatCanStillLead) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("one-worker-remeasure"), &db).ok());
  test::FakeEvaluator eval;
  LoopOptions o;
  o.budget = 5;  // the seeds
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  int64_t run_id = 0;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  size_t remeasured = 0;
  for (const auto& c : candidates) {
    std::vector<EvaluationRecord> e;
    ASSERT_TRUE(db->evaluations_of(c.id, &e).ok());
    for (const auto& r : e) remeasured += r.stage == "re-measured";
  }
  // The fake times every seed alike or slower than the fastest: only the
  // fastest is measured twice.
  EXPECT_EQ(remeasured, 1u);
}

// Noise: the first measurement of every other candidate is twice too fast.
class LuckyFirstMeasurements : public test::FakeEvaluator {
 public:
  EvalResult evaluate(const EvalRequest& req) override {
    EvalResult r = FakeEvaluator::evaluate(req);
    const std::string key = req.source + params_to_json(req.params);
    if (r.timing && measured_.insert(key).second && measured_.size() % 2 == 1)
      r.timing->median_us *= 0.5;
    return r;
  }

 private:
  std::set<std::string> measured_;
};

TEST(LoopTest, ANewBestIsMeasuredAgainBeforeItLeads) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("remeasure"), &db).ok());
  LuckyFirstMeasurements eval;
  LoopOptions o;
  o.budget = 30;
  o.seed = 5;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  int64_t run_id = 0;
  Shape shape = w4a16::shape(5120, 256, 64);
  ASSERT_TRUE(loop.start(shape, "{}", &run_id).ok());
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best(shape.key(), "Fake GPU", 1, &best).ok());
  ASSERT_EQ(best.size(), 1u);
  // The leader's rank is its slowest measurement: its true time.
  test::FakeEvaluator truth;
  EvalRequest req;
  req.source = best[0].candidate.source;
  req.params = params_from_json(best[0].candidate.params_json);
  req.shape = shape;
  EXPECT_DOUBLE_EQ(*best[0].evaluation.median_us, truth.evaluate(req).timing->median_us);
  std::vector<EvaluationRecord> e;
  ASSERT_TRUE(db->evaluations_of(best[0].candidate.id, &e).ok());
  if (best[0].candidate.proposer != "seed") {
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[1].stage, "re-measured");
    EXPECT_NE(e[1].message.find("re-measurement of a new best"), std::string::npos);
  }
}

// Profiles every new best (after its re-measurement) and hands the parent's
// roofline line to the proposers; a profiler failure is recorded, not fatal.
class FakeProfiler : public Profiler {
 public:
  int calls = 0;
  bool fail_next = false;
  Status profile(const std::string&, const std::map<std::string, int64_t>&, const Shape&, int,
                 ProfileResult* out) override {
    ++calls;
    if (fail_next) {
      fail_next = false;
      return Status::error("ERR_NVGPUCTRPERM: no permission to read the counters");
    }
    out->tool = "fake-ncu";
    out->dram_pct = 40 + calls;
    out->issue_pct = 30;
    out->registers = 64;
    out->stalls = {{"long_scoreboard", 70}, {"wait", 30}};
    return Status();
  }
};

class RecordingMutator : public ParameterMutator {
 public:
  std::vector<std::string>* seen;
  explicit RecordingMutator(std::vector<std::string>* s) : seen(s) {}
  bool propose(const ProposalContext& ctx, Proposal* out, ProposalFailure* failure) override {
    seen->push_back(ctx.parent_profile);
    return ParameterMutator::propose(ctx, out, failure);
  }
};

TEST(LoopTest, NewBestsAreProfiledAndParentsCarryTheirProfile) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("profiles"), &db).ok());
  test::FakeEvaluator eval;
  FakeProfiler profiler;
  profiler.fail_next = true;  // the first best's profile fails
  std::vector<std::string> contexts;
  std::vector<WeightedProposer> proposers;
  proposers.push_back({std::make_unique<RecordingMutator>(&contexts), 1.0});
  LoopOptions o;
  o.budget = 30;
  o.seed = 42;
  OptimizationLoop loop(db.get(), &eval, std::move(proposers), o);
  loop.set_profiler(&profiler);
  int64_t run_id = 0;
  Shape shape = w4a16::shape(5120, 256, 64);
  ASSERT_TRUE(loop.start(shape, "{}", &run_id).ok());
  EXPECT_GE(profiler.calls, 2);
  std::vector<BestRow> best;
  ASSERT_TRUE(db->best(shape.key(), "Fake GPU", 1, &best).ok());
  std::vector<ProfileRecord> profiles;
  ASSERT_TRUE(db->profiles_of(best[0].candidate.id, &profiles).ok());
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].status, "ok");
  EXPECT_EQ(profiles[0].tool, "fake-ncu");
  EXPECT_EQ(profiles[0].summary.rfind("latency-bound: DRAM", 0), 0u) << profiles[0].summary;
  // Only new bests: far fewer profiles than candidates, the failure kept.
  int failed = 0, total = 0;
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  for (const auto& c : candidates) {
    std::vector<ProfileRecord> p;
    ASSERT_TRUE(db->profiles_of(c.id, &p).ok());
    total += static_cast<int>(p.size());
    for (const auto& r : p) failed += r.status == "failed";
  }
  EXPECT_EQ(total, profiler.calls);
  EXPECT_LT(total, 30);
  EXPECT_EQ(failed, 1);
  // The proposers saw the parent's line once it had one.
  ASSERT_FALSE(contexts.empty());
  EXPECT_NE(std::find_if(contexts.begin(), contexts.end(),
                         [](const std::string& c) {
                           return c.find("long scoreboard 70%") != std::string::npos;
                         }),
            contexts.end());
}

// Two workers on known GPUs: a new best's profile runs on the last worker's
// GPU beside the evaluations, that worker takes no request until it is
// done, and every profile is recorded by the end of the run (with its stage).
class TwoGpuWorkers : public test::FakeEvaluator {
 public:
  int beside_profile = 0;  // evaluations while a profile had worker 1's GPU
  int parallelism() const override { return 2; }
  int gpu_of(int worker) const override { return 10 + worker; }
  void evaluate_stream(const NextRequest& next, const RequestDone& done,
                       const std::map<int, std::function<bool()>>& lent) override {
    // Worker 0 alone takes the requests, one after another (as it does on
    // the pool while worker 1's GPU is lent).
    EvalRequest request;
    size_t tag = 0;
    while (next(&request, &tag)) {
      const auto gpu = lent.find(1);
      beside_profile += gpu != lent.end() && !gpu->second();
      done(tag, evaluate(request));
    }
  }
};

class SlowProfiler : public Profiler {
 public:
  std::vector<int> gpus;
  Status profile(const std::string&, const std::map<std::string, int64_t>&, const Shape&, int gpu,
                 ProfileResult* out) override {
    gpus.push_back(gpu);
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    out->tool = "fake-ncu";
    out->dram_pct = 50;
    return Status();
  }
};

TEST(LoopTest, ANewBestIsProfiledOnOneWorkersGpuBesideTheOthers) {
  std::unique_ptr<Database> db;
  ASSERT_TRUE(Database::open(test::temp_path("profile-beside"), &db).ok());
  TwoGpuWorkers eval;
  eval.delay_ms = 5;
  SlowProfiler profiler;
  LoopOptions o;
  o.budget = 40;
  o.seed = 3;
  OptimizationLoop loop(db.get(), &eval, mutator_only(), o);
  loop.set_profiler(&profiler);
  int64_t run_id = 0;
  ASSERT_TRUE(loop.start(w4a16::shape(5120, 256, 64), "{}", &run_id).ok());
  ASSERT_FALSE(profiler.gpus.empty());
  for (int gpu : profiler.gpus) EXPECT_EQ(gpu, 11);  // the last worker's GPU
  EXPECT_GT(eval.beside_profile, 0) << "evaluations went on while a profile ran";
  // Every profile recorded, each with its stage in the run's timeline.
  std::vector<CandidateRecord> candidates;
  ASSERT_TRUE(db->candidates_of_run(run_id, &candidates).ok());
  size_t profiles = 0;
  for (const auto& c : candidates) {
    std::vector<ProfileRecord> p;
    ASSERT_TRUE(db->profiles_of(c.id, &p).ok());
    profiles += p.size();
  }
  EXPECT_EQ(profiles, profiler.gpus.size());
  Timeline t;
  ASSERT_TRUE(build_timeline(*db, run_id, &t).ok());
  EXPECT_EQ(t.loop_stages["profile"].count, static_cast<int64_t>(profiler.gpus.size()));
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

// A measured `gen` kernel of another run: its own run on `shape_key`, the
// parameters, the time, on `device`. Returns the candidate's id.
int64_t measured_elsewhere(Database* db, const std::string& shape_key, const std::string& device,
                           const std::map<std::string, int64_t>& params, double us) {
  RunRecord run;
  run.shape = shape_key;
  EXPECT_TRUE(db->create_run(&run).ok());
  CandidateRecord c;
  c.run_id = run.id;
  c.name = "gen";
  c.source = test::w4a16_seed("gen").source;
  c.params_json = params_to_json(params);
  c.key = proposal_key(c.source, params);
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
  // The fake GPU with the sizes the contract's requirements need.
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
