// The language-model proposer: renders the prompt templates
// (agent/prompts/*.txt) with the parent, its measurements, strong and
// diverse candidates and recent failures; asks the model; parses the answer.
#pragma once

#include <memory>
#include <string>

#include "agent/chat_client.h"
#include "agent/proposer.h"

namespace kopt {

class ModelProposer : public Proposer {
 public:
  ModelProposer(std::string name, std::unique_ptr<ChatClient> client,
                double price_per_million_input = 0, double price_per_million_output = 0);
  std::string name() const override { return "llm"; }
  std::string model() const override { return name_; }
  bool propose(const ProposalContext& context, Proposal* out, ProposalFailure* failure) override;

 private:
  std::string name_;
  std::unique_ptr<ChatClient> client_;
  double price_in_, price_out_;
};

// The user prompt for a context (exposed for tests and `kopt db show`).
std::string render_prompt(const ProposalContext& context);
std::string system_prompt();

}  // namespace kopt
