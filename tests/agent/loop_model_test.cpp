// The loop with model proposers: the real HTTP client against a loopback
// server replaying answers, failures recorded, repair turns for failed
// kernels and for answers that could not be read.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "agent/candidate_text.h"
#include "agent/loop.h"
#include "agent/model_proposer.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "tests/agent/fakes.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

using test::mutator_only;

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

}  // namespace
}  // namespace kopt
