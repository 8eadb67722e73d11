#include "agent/model_proposer.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "agent/answer_parser.h"
#include "agent/candidate_text.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/json_fields.h"

namespace kopt {
namespace embedded {
extern const char* const kPromptSystem;
extern const char* const kPromptUser;
extern const char* const kPromptContract;
}  // namespace embedded

namespace {

void replace_all(std::string* s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s->find(from, pos)) != std::string::npos; pos += to.size())
    s->replace(pos, from.size(), to);
}

// One compact line: verdict, time, bandwidth, and the resources on the
// measuring GPU (named by its architecture) and on gfx906.
std::string describe_metrics(const std::optional<EvaluationRecord>& e) {
  if (!e) return "not evaluated yet";
  std::string s = e->verdict;
  if (e->median_us)
    s += fmt::format(", {:.2f} us (spread {:.1f}%), {:.1f}% of read bandwidth", *e->median_us,
                     e->spread_pct, 100 * e->fraction_of_read_bw);
  nlohmann::json d = nlohmann::json::parse(e->record_json, nullptr, false);
  if (d.is_object()) {
    const EvalResult r = eval_result_from_json(d);
    for (const auto& [name, t] : r.targets) {
      if (name == kOfflineTarget) {
        if (t.compiled)
          s += fmt::format("; {}: {} VGPRs, {} B scratch, occupancy {}", name, t.registers,
                           t.spill_bytes, t.occupancy);
        else if (t.checked)
          s += "; " + name + ": does not build";
      } else if (t.checked) {
        s += fmt::format("; {}: {} regs, {} B spills", name, t.registers, t.spill_bytes);
      }
    }
  }
  return s;
}

std::string describe_device(const DeviceInfo& d) {
  if (d.name.empty()) return "unknown";
  return fmt::format(
      "{} ({}, {} multiprocessors, warp {}, {} MiB L2, {} KiB shared memory per block, measured "
      "read bandwidth "
      "{:.0f} GB/s). Candidates are verified and timed here; they are also compiled for gfx906 "
      "(AMD, wave64, no "
      "matrix cores), which must build without scratch.",
      d.name, d.arch, d.multiprocessors, d.warp_size, d.l2_bytes >> 20, d.max_shared_bytes >> 10,
      d.read_bandwidth_gbps);
}

// Up to two other candidates to learn from, chosen for diversity: the best
// of another kernel family (its whole source: a different structure), then
// the best sibling of the parent's family with other parameters or code
// (its diff against the parent). Each with its idea and its measurement.
std::string inspirations(const ProposalContext& ctx) {
  if (ctx.parents.empty()) return "none yet\n";
  const ScoredCandidate& parent = ctx.parents[0];
  const ScoredCandidate *other_family = nullptr, *sibling = nullptr;
  for (const auto& t : ctx.top) {
    if (t.candidate.id == parent.candidate.id || !t.evaluation) continue;
    if (t.candidate.name != parent.candidate.name) {
      if (!other_family) other_family = &t;
    } else if (!sibling && (t.candidate.source != parent.candidate.source ||
                            t.candidate.params_json != parent.candidate.params_json)) {
      sibling = &t;
    }
  }
  std::string out;
  constexpr size_t kMaxChars = 6000;  // a whole kernel, not a whole prompt
  if (other_family) {
    const auto& c = other_family->candidate;
    std::string source = c.source.substr(0, kMaxChars);
    if (source.size() < c.source.size()) source += "\n[... truncated]";
    out += fmt::format("## {} {} (another kernel family): {}\nIdea: {}\n```hip\n{}\n```\n", c.name,
                       c.params_json, describe_metrics(other_family->evaluation),
                       candidate_idea(c, nullptr), source);
  }
  if (sibling) {
    const auto& c = sibling->candidate;
    std::string diff = c.source == parent.candidate.source
                           ? "(same code; parameters " + c.params_json + " against the parent's " +
                                 parent.candidate.params_json + ")\n"
                           : unified_diff(parent.candidate.source, c.source).substr(0, kMaxChars);
    out += fmt::format("## {} {} (a variant of the parent): {}\nIdea: {}\n```diff\n{}```\n", c.name,
                       c.params_json, describe_metrics(sibling->evaluation),
                       candidate_idea(c, &parent.candidate), diff);
  }
  return out.empty() ? "none yet\n" : out;
}

}  // namespace

PromptTemplates PromptTemplates::builtin() {
  return {embedded::kPromptSystem, embedded::kPromptUser, embedded::kPromptContract};
}

Status PromptTemplates::from_directory(const std::string& dir, PromptTemplates* out) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::error("no prompt folder " + dir);
  PromptTemplates t = builtin();
  for (auto [name, slot] : {std::pair<const char*, std::string*>{"system.txt", &t.system},
                            {"user.txt", &t.user},
                            {"contract.txt", &t.contract}}) {
    const std::string path = dir + "/" + name;
    if (access(path.c_str(), F_OK) != 0) continue;
    std::ifstream f(path, std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    if (!f) return Status::error("cannot read " + path);
    *slot = text.str();
  }
  *out = std::move(t);
  return Status();
}

std::string render_prompt(const ProposalContext& ctx, const PromptTemplates& templates) {
  std::string p = templates.user;
  const ScoredCandidate* parent = ctx.parents.empty() ? nullptr : &ctx.parents[0];
  double floor_us = ctx.read_bandwidth_gbps > 0 ? static_cast<double>(shape_bytes(ctx.shape)) /
                                                      (ctx.read_bandwidth_gbps * 1e3)
                                                : 0;
  std::string top;
  for (const auto& t : ctx.top)
    top += fmt::format("- {} {}: {}\n", t.candidate.name, t.candidate.params_json,
                       describe_metrics(t.evaluation));
  replace_all(&p, "{{inspirations}}", inspirations(ctx));
  std::string failures;
  for (const auto& f : ctx.recent_failures) {
    failures += fmt::format("- {} at stage {}: {}\n", f.verdict, f.stage, f.message);
    if (f.first_bad_index >= 0)
      failures += fmt::format("  first wrong index {} ({}): expected {:.6g}, got {:.6g}\n",
                              f.first_bad_index, f.dataset, f.expected, f.got);
    if (!f.log.empty()) failures += "  log: " + f.log.substr(0, 600) + "\n";
  }
  for (const auto& a : ctx.recent_attempts)
    failures += fmt::format("- your answer could not be used ({}): {}\n",
                            a.model.empty() ? a.proposer : a.model, a.message.substr(0, 400));
  // The problem's task first: its text names the shape's variables.
  const Problem* problem = find_problem(ctx.shape.problem);
  replace_all(&p, "{{task}}", problem ? problem->task_prompt() : "");
  replace_all(&p, "{{contract}}", templates.contract);
  std::string variables;
  if (problem)
    for (const auto& v : problem->variables()) variables += (variables.empty() ? "" : ", ") + v;
  replace_all(&p, "{{variables}}", variables);
  replace_all(&p, "{{device}}", describe_device(ctx.device));
  replace_all(&p, "{{shape}}", ctx.shape.name());
  for (const auto& [name, value] : ctx.shape.vars)
    replace_all(&p, "{{" + name + "}}", std::to_string(value));
  replace_all(&p, "{{bytes}}", std::to_string(shape_bytes(ctx.shape)));
  replace_all(&p, "{{read_bw}}", fmt::format("{:.0f}", ctx.read_bandwidth_gbps));
  replace_all(&p, "{{floor_us}}", fmt::format("{:.2f}", floor_us));
  replace_all(&p, "{{parent_name}}",
              parent ? parent->candidate.name + " " + parent->candidate.params_json : "none");
  replace_all(&p, "{{parent_metrics}}", parent ? describe_metrics(parent->evaluation) : "none");
  replace_all(&p, "{{parent_profile}}",
              ctx.parent_profile.empty() ? "not profiled" : ctx.parent_profile);
  replace_all(&p, "{{top}}", top.empty() ? "none yet\n" : top);
  replace_all(&p, "{{failures}}", failures.empty() ? "none\n" : failures);
  // Last: the parent's source may itself contain braces.
  replace_all(&p, "{{parent_source}}", parent ? parent->candidate.source : "");
  return p;
}

ModelProposer::ModelProposer(std::string name, std::unique_ptr<ChatClient> client, double price_in,
                             double price_out, PromptTemplates templates)
    : name_(std::move(name)),
      client_(std::move(client)),
      price_in_(price_in),
      price_out_(price_out),
      templates_(std::move(templates)) {}

bool ModelProposer::propose(const ProposalContext& ctx, Proposal* out, ProposalFailure* failure) {
  if (ctx.parents.empty()) {
    failure->kind = "no_parent";
    failure->message = "no parent to show the model";
    return false;
  }
  const std::string prompt = render_prompt(ctx, templates_);
  return ask({{"system", templates_.system}, {"user", prompt}}, prompt, ctx.parents[0],
             ctx.parents[0].candidate.source, out, failure);
}

bool ModelProposer::repair(const ProposalContext& ctx, const Proposal& failed,
                           const std::string& what, Proposal* out, ProposalFailure* failure) {
  if (ctx.parents.empty() || failed.answer.empty()) return false;
  const std::string turn = fmt::format(
      "{}\n\nFix it. Answer as before: the complete kernel with its contract in one ```hip "
      "block, or SEARCH/REPLACE edits of the kernel you just wrote; then one sentence on what you "
      "fixed.",
      what);
  ScoredCandidate parent = ctx.parents[0];
  for (const auto& p : ctx.parents)
    if (!failed.parents.empty() && p.candidate.id == failed.parents[0]) parent = p;
  if (!ask({{"system", templates_.system},
            {"user", failed.prompt},
            {"assistant", failed.answer},
            {"user", turn}},
           failed.prompt + "\n\n[repair turn]\n" + turn, parent, failed.candidate->source(), out,
           failure))
    return false;
  out->parents = failed.parents;
  out->name = out->name.rfind("llm-", 0) == 0 ? failed.name + "-repair" : out->name;
  return true;
}

bool ModelProposer::ask(const std::vector<ChatMessage>& messages, const std::string& prompt,
                        const ScoredCandidate& parent, const std::string& base, Proposal* out,
                        ProposalFailure* failure) {
  ChatReply reply;
  Status s = client_->complete(messages, &reply);
  const int64_t tokens = reply.prompt_tokens + reply.completion_tokens;
  const double cost = (static_cast<double>(reply.prompt_tokens) * price_in_ +
                       static_cast<double>(reply.completion_tokens) * price_out_) /
                      1e6;
  if (!s.ok()) {
    failure->kind = reply.unreachable ? "model_unreachable" : "model_error";
    failure->message = s.message();
    failure->prompt = prompt;
    return false;
  }
  std::string source, kind;
  s = parse_model_answer(reply.text, base, &source, &kind);
  if (!s.ok()) {
    failure->kind = "malformed_answer";
    failure->message =
        s.message() + (reply.finish_reason == "length" ? " (the model hit its token limit)" : "");
    failure->prompt = prompt;
    failure->answer = reply.text;
    failure->tokens = tokens;
    failure->cost = cost;
    return false;
  }
  // Parameters the parent set are kept where the new contract still declares
  // them (the loop keeps those it declares).
  const bool edits_of_parent =
      kind == "edits" || kind == "diff" || kind == "tool-call+edits" || kind == "tool-call+diff";
  // The model's answer enters as a candidate here.
  out->candidate =
      enter_candidate(source, edits_of_parent ? params_from_json(parent.candidate.params_json)
                                              : std::map<std::string, int64_t>{});
  // The contract's own name carries the model's idea into the database
  // views; "llm-<kind>" only when the contract names nothing.
  const CandidateSpec& spec = out->candidate->candidate.spec;
  out->name = out->candidate->contract.ok() && !spec.name.empty() && spec.name != "unnamed" &&
                      spec.name != parent.candidate.name
                  ? spec.name
                  : "llm-" + kind;
  out->parents = {parent.candidate.id};
  out->proposer = name();
  out->model = name_;
  out->prompt = prompt;
  out->answer = reply.text;
  out->tokens = tokens;
  out->cost = cost;
  return true;
}

}  // namespace kopt
