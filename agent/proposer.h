// Proposers produce candidates (sandbox/contract/candidate.h) from parents: the
// built-in parameter mutator (offline) and the language-model proposer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "db/database.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/problem.h"

namespace kopt {

struct ScoredCandidate {
  CandidateRecord candidate;
  std::optional<EvaluationRecord> evaluation;
};

struct ProposalContext {
  Shape shape;
  double read_bandwidth_gbps = 0;
  DeviceInfo device;                     // the GPU that verifies and times every candidate
  std::vector<ScoredCandidate> parents;  // [0]: the main parent
  std::string parent_profile;        // the profiler's roofline line for parents[0], empty if none
  std::vector<ScoredCandidate> top;  // strong and diverse others
  std::vector<EvaluationRecord> recent_failures;  // newest first
  // Answers that produced no candidate (malformed, an edit that did not
  // apply...), newest first: the next prompt says why, so a model does not
  // repeat the same broken answer.
  std::vector<AttemptRecord> recent_attempts;
  const std::set<std::string>* seen_keys = nullptr;  // candidates already in this run
  Rng* rng = nullptr;
};

struct Proposal {
  std::string name;
  CandidateRef candidate;  // the source and parameter values, parsed where they entered
  std::vector<int64_t> parents;
  std::string proposer, model, prompt, answer;
  int64_t tokens = 0;
  double cost = 0;
};

// Why a proposer produced nothing; recorded in the attempt log.
struct ProposalFailure {
  std::string kind;  // malformed_answer, model_error, space_exhausted...
  std::string message;
  std::string prompt, answer;
  int64_t tokens = 0;
  double cost = 0;
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string name() const = 0;
  virtual std::string model() const { return ""; }
  // True with a proposal, false with a failure.
  virtual bool propose(const ProposalContext& context, Proposal* out, ProposalFailure* failure) = 0;
  // One repair turn: `failed` (a proposal of this proposer) did not compile,
  // was rejected or gave wrong results, or its answer could not be read, as
  // `what` says (in words for the model, with what to change); the proposer
  // may try again in the same conversation. False: no repair (the default).
  virtual bool repair(const ProposalContext& context, const Proposal& failed,
                      const std::string& what, Proposal* out, ProposalFailure* failure) {
    (void)context, (void)failed, (void)what, (void)out, (void)failure;
    return false;
  }
};

// Mutates and recombines the declared tunable parameters of its parents:
// one or two parameters moved (mostly to a neighbouring value), or a
// crossover of two parents that share a source. Never proposes a key the run
// has seen; when none is left it says so (kind "space_exhausted").
class ParameterMutator : public Proposer {
 public:
  std::string name() const override { return "mutator"; }
  bool propose(const ProposalContext& context, Proposal* out, ProposalFailure* failure) override;
};

// False when the contract does not parse with these parameters, or when they
// fail its requirements for this shape and device (a candidate the sandbox
// would only answer "unsupported_shape" for); true when they meet them, and
// when the device is not known yet (no GPU has answered): then the sandbox
// remains the judge of the requirements.
bool runs_on(const CandidateValue& candidate, const Shape& shape, const DeviceInfo& device);

// One "NAME=VALUE" with an integer VALUE (as `--param` and `--start` take
// them) into `out`; false with what is wrong ("expects NAME=VALUE, got 'x'",
// "value must be an integer: 'x'").
bool parse_param_assignment(const std::string& item, std::map<std::string, int64_t>* out,
                            std::string* error);

}  // namespace kopt
