#include "agent/model_proposer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "agent/answer_parser.h"
#include "sandbox/candidate.h"

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

std::string describe_metrics(const std::optional<EvaluationRecord>& e) {
  if (!e) return "not evaluated yet";
  std::string s = e->verdict;
  if (e->median_us)
    s += fmt::format(", {:.2f} us median (spread {:.1f}%), {:.0f} GB/s = {:.1f}% of read bandwidth",
                     *e->median_us, e->spread_pct, e->gbps, 100 * e->fraction_of_read_bw);
  nlohmann::json d = nlohmann::json::parse(e->details_json, nullptr, false);
  if (d.is_object()) {
    if (d.contains("nvidia") && d["nvidia"].value("checked", false))
      s += fmt::format("; sm_90: {} registers, {} B spills", d["nvidia"].value("registers", 0),
                       d["nvidia"].value("local_bytes", 0));
    if (d.contains("amd") && d["amd"].value("compiled", false))
      s += fmt::format("; gfx906: {} VGPRs, {} SGPRs, {} B scratch, occupancy {}",
                       d["amd"].value("vgprs", 0), d["amd"].value("sgprs", 0),
                       d["amd"].value("scratch_bytes", 0), d["amd"].value("occupancy", 0));
    else if (d.contains("amd"))
      s += "; gfx906: " + d["amd"].value("note", std::string("not checked"));
  }
  return s;
}

}  // namespace

std::string system_prompt() { return embedded::kPromptSystem; }

std::string render_prompt(const ProposalContext& ctx) {
  std::string p = embedded::kPromptUser;
  const ScoredCandidate* parent = ctx.parents.empty() ? nullptr : &ctx.parents[0];
  double floor_us = ctx.read_bandwidth_gbps > 0 ? static_cast<double>(shape_bytes(ctx.shape)) /
                                                      (ctx.read_bandwidth_gbps * 1e3)
                                                : 0;
  std::string top;
  for (const auto& t : ctx.top)
    top += fmt::format("- {} {}: {}\n", t.candidate.name, t.candidate.params_json,
                       describe_metrics(t.evaluation));
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
  replace_all(&p, "{{shape}}", ctx.shape.name());
  replace_all(&p, "{{K}}", std::to_string(ctx.shape.K));
  replace_all(&p, "{{N}}", std::to_string(ctx.shape.N));
  replace_all(&p, "{{G}}", std::to_string(ctx.shape.G));
  replace_all(&p, "{{bytes}}", std::to_string(shape_bytes(ctx.shape)));
  replace_all(&p, "{{read_bw}}", fmt::format("{:.0f}", ctx.read_bandwidth_gbps));
  replace_all(&p, "{{floor_us}}", fmt::format("{:.2f}", floor_us));
  replace_all(&p, "{{contract}}", embedded::kPromptContract);
  replace_all(&p, "{{parent_name}}",
              parent ? parent->candidate.name + " " + parent->candidate.params_json : "none");
  replace_all(&p, "{{parent_metrics}}", parent ? describe_metrics(parent->evaluation) : "none");
  replace_all(&p, "{{top}}", top.empty() ? "none yet\n" : top);
  replace_all(&p, "{{failures}}", failures.empty() ? "none\n" : failures);
  // Last: the parent's source may itself contain braces.
  replace_all(&p, "{{parent_source}}", parent ? parent->candidate.source : "");
  return p;
}

ModelProposer::ModelProposer(std::string name, std::unique_ptr<ChatClient> client, double price_in,
                             double price_out)
    : name_(std::move(name)),
      client_(std::move(client)),
      price_in_(price_in),
      price_out_(price_out) {}

bool ModelProposer::propose(const ProposalContext& ctx, Proposal* out, ProposalFailure* failure) {
  if (ctx.parents.empty()) {
    failure->kind = "no_parent";
    failure->message = "no parent to show the model";
    return false;
  }
  const std::string prompt = render_prompt(ctx);
  ChatReply reply;
  Status s = client_->complete({{"system", system_prompt()}, {"user", prompt}}, &reply);
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
  s = parse_model_answer(reply.text, ctx.parents[0].candidate.source, &source, &kind);
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
  out->source = source;
  // The contract's own name carries the model's idea into the database
  // views; "llm-<kind>" only when the contract names nothing.
  Candidate parsed;
  out->name = parse_candidate(source, {}, &parsed).ok() && !parsed.spec.name.empty() &&
                      parsed.spec.name != "unnamed" &&
                      parsed.spec.name != ctx.parents[0].candidate.name
                  ? parsed.spec.name
                  : "llm-" + kind;
  // Parameters the parent set are kept where the new contract still declares them.
  out->params = kind == "edits" ? params_from_json(ctx.parents[0].candidate.params_json)
                                : std::map<std::string, int64_t>{};
  out->parents = {ctx.parents[0].candidate.id};
  out->proposer = name();
  out->model = name_;
  out->prompt = prompt;
  out->answer = reply.text;
  out->tokens = tokens;
  out->cost = cost;
  return true;
}

}  // namespace kopt
