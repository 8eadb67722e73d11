// The language-model proposer: renders the prompt templates
// (agent/prompts/*.txt) with the parent, its measurements, strong and
// diverse candidates and recent failures; asks the model; parses the answer.
#pragma once

#include <memory>
#include <string>

#include "agent/chat_client.h"
#include "agent/proposer.h"

namespace kopt {

// The three prompt templates: the built-in ones (agent/prompts/*.txt,
// embedded), or a user's from a folder (`kopt run --prompts DIR`), so they
// can be tuned without rebuilding kopt.
struct PromptTemplates {
  std::string system, user, contract;
  static PromptTemplates builtin();
  // system.txt, user.txt and contract.txt from `dir`; a file that is not
  // there keeps the built-in one; a folder that cannot be read is an error.
  static Status from_directory(const std::string& dir, PromptTemplates* out);
};

class ModelProposer : public Proposer {
 public:
  ModelProposer(std::string name, std::unique_ptr<ChatClient> client,
                double price_per_million_input = 0, double price_per_million_output = 0,
                PromptTemplates templates = PromptTemplates::builtin());
  std::string name() const override { return "llm"; }
  std::string model() const override { return name_; }
  bool propose(const ProposalContext& context, Proposal* out, ProposalFailure* failure) override;
  // The failure goes back to the model after its own answer, with the log;
  // its next answer is read like any other (edits apply to the failed kernel).
  bool repair(const ProposalContext& context, const Proposal& failed, const std::string& what,
              Proposal* out, ProposalFailure* failure) override;

 private:
  // Sends `messages`, parses the answer against `base` (the source edits
  // apply to) and fills `out` or `failure`.
  bool ask(const std::vector<ChatMessage>& messages, const std::string& prompt,
           const ScoredCandidate& parent, const std::string& base, Proposal* out,
           ProposalFailure* failure);

  std::string name_;
  std::unique_ptr<ChatClient> client_;
  double price_in_, price_out_;
  PromptTemplates templates_;
};

// The user prompt for a context (exposed for tests and `kopt db show`).
std::string render_prompt(const ProposalContext& context,
                          const PromptTemplates& templates = PromptTemplates::builtin());

}  // namespace kopt
