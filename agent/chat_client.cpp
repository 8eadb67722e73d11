#include "agent/chat_client.h"

#include <curl/curl.h>

#include <chrono>
#include <cmath>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "sandbox/contract/json_fields.h"

namespace kopt {

using nlohmann::json;

namespace {

struct Response {
  std::string body;
  size_t limit = 0;
  bool too_large = false;
  double retry_after_s = -1;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* r = static_cast<Response*>(user);
  size_t n = size * count;
  if (r->body.size() + n > r->limit) {
    r->too_large = true;
    return 0;  // aborts the transfer
  }
  r->body.append(data, n);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* r = static_cast<Response*>(user);
  std::string h(data, size * count);
  const std::string key = "retry-after:";
  if (h.size() > key.size()) {
    std::string lower = h.substr(0, key.size());
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == key) {
      try {
        r->retry_after_s = std::stod(h.substr(key.size()));
      } catch (const std::exception&) {
      }
    }
  }
  return size * count;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

HttpChatClient::HttpChatClient(HttpChatOptions options) : options_(std::move(options)) {
  global_init();
}

Status HttpChatClient::complete(const std::vector<ChatMessage>& messages, ChatReply* reply) {
  *reply = ChatReply();
  json request{{"model", options_.model},
               {"temperature", options_.temperature},
               {"max_tokens", options_.max_tokens}};
  for (const auto& m : messages)
    request["messages"].push_back({{"role", m.role}, {"content", m.content}});
  const bool tools_offered = options_.offer_tools && !tools_refused_;
  if (tools_offered) {
    request["tools"] = json::array({{{"type", "function"},
                                     {"function",
                                      {{"name", "submit_kernel"},
                                       {"description",
                                        "Submit one kernel candidate: its complete source with "
                                        "the /* kopt: */ contract comment (or SEARCH/REPLACE "
                                        "edits or a unified diff of the parent), and the idea "
                                        "in one line."},
                                       {"parameters",
                                        {{"type", "object"},
                                         {"properties",
                                          {{"source", {{"type", "string"}}},
                                           {"contract", {{"type", "object"}}},
                                           {"idea", {{"type", "string"}}}}},
                                         {"required", json::array({"source"})}}}}}}});
    request["tool_choice"] = "auto";
  }
  const std::string payload = request.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string url = options_.base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/chat/completions";

  std::string last_error;
  double backoff = options_.backoff_s;
  for (int attempt = 0; attempt <= options_.retries; ++attempt) {
    ++reply->attempts;
    Response resp;
    resp.limit = options_.max_response_bytes;
    CURL* curl = curl_easy_init();
    if (!curl) return Status::error("model client: curl_easy_init failed");
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    if (!options_.api_key.empty())
      headers = curl_slist_append(headers, ("Authorization: Bearer " + options_.api_key).c_str());
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(payload.size()));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &resp);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &resp);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_s * 1000));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);

    bool retry = false;
    if (resp.too_large) {
      return Status::error("model answer larger than " +
                           std::to_string(options_.max_response_bytes >> 20) + " MiB");
    } else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
               rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_UNSUPPORTED_PROTOCOL ||
               rc == CURLE_URL_MALFORMAT) {
      // Nobody is listening there (or the address is wrong): say so at once,
      // naming the endpoint, rather than after every retry.
      reply->unreachable = true;
      return Status::error("model endpoint " + options_.base_url +
                           " unreachable: " + curl_easy_strerror(rc));
    } else if (rc != CURLE_OK) {
      last_error = std::string("transport: ") + curl_easy_strerror(rc);
      retry = true;
    } else if (status == 429 || status >= 500) {
      last_error = "HTTP " + std::to_string(status) + ": " + resp.body.substr(0, 200);
      retry = true;
    } else if (status == 400 && tools_offered && resp.body.find("tool") != std::string::npos) {
      // The endpoint takes no tools: ask again without them, from now on.
      tools_refused_ = true;
      return complete(messages, reply);
    } else if (status != 200) {
      return Status::error("model endpoint answered HTTP " + std::to_string(status) + ": " +
                           resp.body.substr(0, 300));
    } else {
      json j = json::parse(resp.body, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        return Status::error("model endpoint sent malformed JSON: " + resp.body.substr(0, 200));
      try {
        const json& choice = j.at("choices").at(0);
        const json& message = choice.at("message");
        const json content = get_or(message, "content", json());
        reply->text = content.is_string() ? content.get<std::string>() : "";
        // A tool call is the submission: its call object goes to the answer
        // parser, which unwraps it.
        const json calls = get_or(message, "tool_calls", json::array());
        if (calls.is_array() && !calls.empty() && calls[0].is_object() &&
            calls[0].contains("function") && calls[0]["function"].is_object())
          reply->text = calls[0]["function"].dump();
        else if (!content.is_string() && !message.contains("content"))
          throw json::other_error::create(501, "no content", nullptr);
        // Servers differ: finish_reason or the token counts may be null
        // or missing; the answer itself is what matters.
        reply->finish_reason = get_or(choice, "finish_reason", std::string());
        const json usage = get_or(j, "usage", json::object());
        reply->prompt_tokens = get_or(usage, "prompt_tokens", int64_t{0});
        reply->completion_tokens = get_or(usage, "completion_tokens", int64_t{0});
      } catch (const json::exception&) {
        return Status::error("model answer lacks choices[0].message.content: " +
                             resp.body.substr(0, 200));
      }
      return Status();
    }
    if (retry && attempt < options_.retries) {
      double wait = resp.retry_after_s >= 0 ? resp.retry_after_s : backoff;
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(wait, 300.0)));
      backoff *= 2;
    }
  }
  return Status::error("model endpoint failed after " + std::to_string(options_.retries + 1) +
                       " tries: " + last_error);
}

}  // namespace kopt
