// kopt report's HTML from a database built in the test: every section is
// there, links resolve to anchors, and text a model or a kernel wrote is
// escaped (a failure message is untrusted input).
#include "agent/report.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "agent/candidate_text.h"
#include "agent/svg_plot.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Database::open(test::temp_path("report.db"), &db).ok());
    RunRecord run;
    run.shape = "w4a16_gemv:512x1024";
    run.proposers = "mutator, llm:coder";
    run.tokens_used = 1234;
    run.cost = 0.05;
    ASSERT_TRUE(db->create_run(&run).ok());
    run_id = run.id;
    const std::string source =
        R"(/* kopt: {"name": "k", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}],
      "params": {"R": {"values": [1, 2], "default": 1}}} */
KOPT_KERNEL void gemv() {}
)";
    seed = add("k", "seed", "", source, "{}", {}, "ok", 10.0, "");
    child = add("k", "mutator", "", source, R"({"R":2})", {seed}, "ok", 8.0, "");
    const std::string idea =
        R"(/* kopt: {"name": "tiled", "description": "x in registers, <b>bold</b> idea",
      "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]} */
KOPT_KERNEL void gemv() { /* new */ }
)";
    grandchild = add("tiled", "llm", "coder", idea, "{}", {child}, "ok", 6.0, "");
    add("bad", "llm", "coder", idea, "{}", {child}, "wrong_result", 0,
        "<script>alert('x')</script> wrong");
    AttemptRecord a;
    a.run_id = run_id;
    a.proposer = "llm";
    a.model = "coder";
    a.kind = "malformed_answer";
    a.message = "no kopt block & <no> code";
    ASSERT_TRUE(db->add_attempt(&a).ok());
  }
  int64_t add(const std::string& name, const std::string& proposer, const std::string& model,
              const std::string& source, const std::string& params, std::vector<int64_t> parents,
              const std::string& verdict, double us, const std::string& message) {
    CandidateRecord c;
    c.run_id = run_id;
    c.name = name;
    c.proposer = proposer;
    c.model = model;
    c.source = source;
    c.params_json = params;
    c.key = name + params + std::to_string(parents.size()) + verdict;
    c.parents = std::move(parents);
    EXPECT_TRUE(db->add_candidate(&c).ok());
    nlohmann::json extra = {{"stage", verdict == "ok" ? "time" : "verify"}, {"message", message}};
    if (us > 0)
      extra["timing"] = {{"median_us", us}, {"gbps", 300 / us}, {"fraction_of_read_bw", 0.1 / us}};
    EvaluationRecord e =
        test::evaluation_of(c, "w4a16_gemv:512x1024", "Test GPU", verdict, std::nullopt, extra);
    EXPECT_TRUE(db->add_evaluation(&e).ok());
    return c.id;
  }
  std::unique_ptr<Database> db;
  int64_t run_id = 0, seed = 0, child = 0, grandchild = 0;
};

TEST_F(ReportTest, HasEverySectionAndItsPlots) {
  std::string html;
  ASSERT_TRUE(build_report(*db, ReportOptions{"test.db", 0, {}, "now", ""}, &html).ok());
  for (const char* id : {"shapes", "progress", "bandwidth", "lineage", "failures", "models"})
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(count(html, "class=\"kopt-plot\""), 3u);
  EXPECT_NE(html.find("6.00"), std::string::npos);   // the best, 6 µs
  EXPECT_NE(html.find("1.67×"), std::string::npos);  // best seed 10 µs / 6 µs
  EXPECT_NE(html.find("parameters: R 1 → 2"), std::string::npos)
      << "the mutator step's idea (default 1)";
  EXPECT_NE(html.find("tiled: x in registers, &lt;b&gt;bold&lt;/b&gt; idea"), std::string::npos)
      << "the model's idea";
  EXPECT_NE(html.find("1.250×"), std::string::npos);  // 10 -> 8
  EXPECT_NE(html.find("1234"), std::string::npos);    // tokens
}

TEST_F(ReportTest, EveryInternalLinkHasItsAnchor) {
  std::string html;
  ASSERT_TRUE(build_report(*db, ReportOptions{"test.db", 0, {}, "now", ""}, &html).ok());
  std::set<std::string> ids, links;
  const std::regex id_re(R"re(id="([^"]+)")re"), link_re(R"re(href="#([^"]+)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), id_re);
       it != std::sregex_iterator(); ++it)
    ids.insert((*it)[1]);
  for (auto it = std::sregex_iterator(html.begin(), html.end(), link_re);
       it != std::sregex_iterator(); ++it)
    links.insert((*it)[1]);
  EXPECT_TRUE(links.count("diff-" + std::to_string(child)));
  EXPECT_TRUE(links.count("diff-" + std::to_string(grandchild)));
  for (const auto& l : links) EXPECT_TRUE(ids.count(l)) << "#" << l << " leads nowhere";
}

TEST_F(ReportTest, TextFromCandidatesAndModelsIsEscaped) {
  std::string html;
  ASSERT_TRUE(build_report(*db, ReportOptions{"<db>", 0, {}, "now", ""}, &html).ok());
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; wrong"), std::string::npos);
  EXPECT_NE(html.find("no kopt block &amp; &lt;no&gt; code"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
}

TEST_F(ReportTest, FiltersByRunAndShape) {
  std::string html;
  EXPECT_FALSE(build_report(*db, ReportOptions{"test.db", 99, {}, "now", ""}, &html).ok());
  ASSERT_TRUE(build_report(*db, ReportOptions{"test.db", 0, {"4096x4096"}, "now", ""}, &html).ok());
  EXPECT_NE(html.find("0 run(s)"), std::string::npos);
  EXPECT_FALSE(build_report(*db, ReportOptions{"test.db", 0, {"abc"}, "now", ""}, &html).ok());
}

// The idea shown by the report and by kopt db show/lineage.
TEST(CandidateIdeaTest, ParameterMovesOrTheContractAndTheModelsSentence) {
  CandidateRecord parent, moved, model;
  parent.proposer = "seed";
  const std::string source =
      R"(/* kopt: {"name": "k", "launches": [{"kernel": "g", "grid": [1], "block": [1]}],
    "params": {"A": {"values": [1, 2], "default": 1}, "B": {"values": [3, 4], "default": 3}}} */)";
  parent.set_candidate(enter_candidate(source, {}));
  moved = parent;
  moved.proposer = "mutator";
  moved.set_candidate(enter_candidate(source, {{"A", 1}, {"B", 4}}));
  EXPECT_EQ(candidate_idea(parent, nullptr), "seed");
  EXPECT_EQ(candidate_idea(moved, &parent), "parameters: B 3 → 4");
  model.proposer = "llm";
  model.set_candidate(
      enter_candidate(R"(/* kopt: {"name": "wide", "description": "two columns per lane",
    "launches": [{"kernel": "g", "grid": [1], "block": [1]}]} */)",
                      {}));
  model.answer =
      "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\nLoads are now 16 bytes wide. So fewer "
      "requests.\n";
  EXPECT_EQ(candidate_idea(model, &parent),
            "wide: two columns per lane — Loads are now 16 bytes wide.");
}

TEST(SvgPlotTest, DrawsSeriesAndReferenceLinesAndSaysWhenEmpty) {
  PlotOptions o;
  o.title = "t & <u>";
  o.lines.push_back({5, "ceiling", "#f00"});
  const std::string svg = svg_plot({{"a", "#00f", {{1, 2, "p<1>"}, {2, 1, ""}}, true}}, o);
  EXPECT_EQ(count(svg, "<circle"), 2u);
  EXPECT_NE(svg.find("<path"), std::string::npos);
  EXPECT_NE(svg.find("ceiling"), std::string::npos);
  EXPECT_NE(svg.find("t &amp; &lt;u&gt;"), std::string::npos);
  EXPECT_NE(svg_plot({}, o).find("no data"), std::string::npos);
}

}  // namespace
}  // namespace kopt
