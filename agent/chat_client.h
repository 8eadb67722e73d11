// The language-model seam: an OpenAI-compatible chat-completions client over
// libcurl, behind an interface so tests and offline runs use fakes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sandbox/contract/status.h"

namespace kopt {

struct ChatMessage {
  std::string role;  // system | user | assistant
  std::string content;
};

struct ChatReply {
  std::string text;
  std::string finish_reason;  // "stop", "length" (truncated)...
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int attempts = 0;  // HTTP requests made (retries included)
  // Set when the endpoint cannot be reached at all (connection refused,
  // unknown host): retrying will not help, and the loop may stop early.
  bool unreachable = false;
};

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  virtual Status complete(const std::vector<ChatMessage>& messages, ChatReply* reply) = 0;
};

struct HttpChatOptions {
  std::string base_url;  // ".../v1"; "/chat/completions" is appended
  std::string model;
  std::string api_key;  // empty: no Authorization header
  double temperature = 0.7;
  int64_t max_tokens = 8192;
  double timeout_s = 120;
  int retries = 3;         // after the first try, on 429, 5xx and transport errors
  double backoff_s = 1.0;  // doubled each retry; a Retry-After header wins
  size_t max_response_bytes = 8 * 1024 * 1024;
  // Offer a submit_kernel tool (source, contract, idea) to endpoints that
  // take tools; one that refuses them (HTTP 400 naming tools) is asked
  // again without, and never offered them again. Answers in text still work.
  bool offer_tools = true;
};

class HttpChatClient : public ChatClient {
 public:
  explicit HttpChatClient(HttpChatOptions options);
  Status complete(const std::vector<ChatMessage>& messages, ChatReply* reply) override;

 private:
  HttpChatOptions options_;
  bool tools_refused_ = false;
};

}  // namespace kopt
