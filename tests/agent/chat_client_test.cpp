// The real libcurl client against a real HTTP server on loopback.
#include "agent/chat_client.h"

#include <gtest/gtest.h>

#include <chrono>

#include "agent/answer_parser.h"
#include "tests/agent/fakes.h"

namespace kopt {
namespace {

HttpChatOptions options_for(const test::ReplayServer& s) {
  HttpChatOptions o;
  o.base_url = s.base_url();
  o.model = "replay";
  o.api_key = "secret";
  o.timeout_s = 5;
  o.retries = 3;
  o.backoff_s = 0.01;
  return o;
}

TEST(ChatClientTest, ReturnsTheAnswerAndTokens) {
  test::ReplayServer server({{200, test::chat_body("hello kernel")}});
  HttpChatClient client(options_for(server));
  ChatReply reply;
  ASSERT_TRUE(client.complete({{"user", "hi"}}, &reply).ok());
  EXPECT_EQ(reply.text, "hello kernel");
  EXPECT_EQ(reply.prompt_tokens, 100);
  EXPECT_EQ(reply.completion_tokens, 50);
  auto sent = nlohmann::json::parse(server.request(0));
  EXPECT_EQ(sent["model"], "replay");
  EXPECT_EQ(sent["messages"][0]["content"], "hi");
}

// Servers that send null or oddly typed bookkeeping fields still deliver the answer.
TEST(ChatClientTest, NullFinishReasonAndUsageKeepTheAnswer) {
  test::ReplayServer server(
      {{200, R"({"choices": [{"message": {"role": "assistant", "content": "kernel"},
                                                    "finish_reason": null}],
                                       "usage": {"prompt_tokens": null, "completion_tokens": "12"}})"}});
  HttpChatClient client(options_for(server));
  ChatReply reply;
  Status s = client.complete({{"user", "hi"}}, &reply);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(reply.text, "kernel");
  EXPECT_EQ(reply.prompt_tokens, 0);
  EXPECT_EQ(reply.finish_reason, "");
}

TEST(ChatClientTest, RetriesRateLimitsAndServerErrors) {
  test::ReplayServer server(
      {{429, "slow down", 0, "0"}, {500, "oops"}, {503, "busy"}, {200, test::chat_body("ok")}});
  HttpChatClient client(options_for(server));
  ChatReply reply;
  ASSERT_TRUE(client.complete({{"user", "hi"}}, &reply).ok());
  EXPECT_EQ(reply.text, "ok");
  EXPECT_EQ(reply.attempts, 4);
}

TEST(ChatClientTest, GivesUpAfterTheRetries) {
  test::ReplayServer server({{500, "always broken"}});
  HttpChatOptions o = options_for(server);
  o.retries = 2;
  HttpChatClient client(o);
  ChatReply reply;
  Status s = client.complete({{"user", "hi"}}, &reply);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HTTP 500"), std::string::npos) << s.message();
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(ChatClientTest, ClientErrorsAreNotRetried) {
  test::ReplayServer server({{401, "{\"error\": \"bad key\"}"}});
  HttpChatClient client(options_for(server));
  ChatReply reply;
  Status s = client.complete({{"user", "hi"}}, &reply);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("401"), std::string::npos);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(ChatClientTest, SlowAnswersTimeOut) {
  test::ReplayServer server({{200, test::chat_body("late"), 1500}});
  HttpChatOptions o = options_for(server);
  o.timeout_s = 0.3;
  o.retries = 0;
  HttpChatClient client(o);
  ChatReply reply;
  Status s = client.complete({{"user", "hi"}}, &reply);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("transport"), std::string::npos) << s.message();
}

TEST(ChatClientTest, HugeAndMalformedAnswersAreErrors) {
  {
    test::ReplayServer server({{200, test::chat_body(std::string(3 << 20, 'x'))}});
    HttpChatOptions o = options_for(server);
    o.max_response_bytes = 1 << 20;
    HttpChatClient client(o);
    ChatReply reply;
    Status s = client.complete({{"user", "hi"}}, &reply);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("larger"), std::string::npos);
  }
  for (const char* body :
       {"not json", "{\"choices\": []}", "[1,2]", "{\"choices\": [{\"message\": {}}]}"}) {
    test::ReplayServer server({{200, body}});
    HttpChatClient client(options_for(server));
    ChatReply reply;
    EXPECT_FALSE(client.complete({{"user", "hi"}}, &reply).ok()) << body;
  }
}

TEST(ChatClientTest, UnreachableEndpointIsAClearError) {
  HttpChatOptions o;
  o.base_url = "http://127.0.0.1:1/v1";
  o.retries = 3;
  o.backoff_s = 5;  // a refused connection is not retried, so this never waits
  o.timeout_s = 2;
  HttpChatClient client(o);
  ChatReply reply;
  const auto start = std::chrono::steady_clock::now();
  Status s = client.complete({{"user", "hi"}}, &reply);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(reply.unreachable);
  EXPECT_NE(s.message().find("http://127.0.0.1:1/v1 unreachable"), std::string::npos)
      << s.message();
  o.base_url = "http://no-such-host.invalid/v1";
  HttpChatClient unknown(o);
  ChatReply r2;
  s = unknown.complete({{"user", "hi"}}, &r2);
  EXPECT_TRUE(r2.unreachable) << s.message();
  EXPECT_NE(s.message().find("no-such-host.invalid"), std::string::npos) << s.message();
}

// The endpoint is offered a submit_kernel tool; a tool call (content null)
// becomes the answer, and the parser takes the source out of it.
TEST(ChatClientTest, AToolCallIsTheAnswer) {
  const std::string kernel = "/* kopt: {\"launches\": []} */\nKOPT_KERNEL void gemv() {}\n";
  nlohmann::json body{
      {"choices",
       {{{"message",
          {{"role", "assistant"},
           {"content", nullptr},
           {"tool_calls",
            {{{"id", "call_1"},
              {"type", "function"},
              {"function",
               {{"name", "submit_kernel"},
                {"arguments", nlohmann::json{{"source", kernel}, {"idea", "x"}}.dump()}}}}}}}},
         {"finish_reason", "tool_calls"}}}}};
  test::ReplayServer server({{200, body.dump()}});
  HttpChatClient client(options_for(server));
  ChatReply reply;
  Status s = client.complete({{"user", "hi"}}, &reply);
  ASSERT_TRUE(s.ok()) << s.message();
  auto sent = nlohmann::json::parse(server.request(0));
  EXPECT_EQ(sent["tools"][0]["function"]["name"], "submit_kernel");
  std::string src, kind;
  ASSERT_TRUE(parse_model_answer(reply.text, "", &src, &kind).ok()) << reply.text;
  EXPECT_EQ(src, kernel);
  EXPECT_EQ(kind, "tool-call");
}

// An endpoint that refuses tools is asked again without them, and not
// offered them again.
TEST(ChatClientTest, AnEndpointThatRefusesToolsGetsTextRequests) {
  test::ReplayServer server({{400, "{\"error\": \"tools are not supported by this model\"}"},
                             {200, test::chat_body("plain answer")}});
  HttpChatClient client(options_for(server));
  ChatReply reply;
  ASSERT_TRUE(client.complete({{"user", "hi"}}, &reply).ok());
  EXPECT_EQ(reply.text, "plain answer");
  ASSERT_EQ(server.request_count(), 2u);
  EXPECT_TRUE(nlohmann::json::parse(server.request(0)).contains("tools"));
  EXPECT_FALSE(nlohmann::json::parse(server.request(1)).contains("tools"));
  ASSERT_TRUE(client.complete({{"user", "again"}}, &reply).ok());
  EXPECT_FALSE(nlohmann::json::parse(server.request(2)).contains("tools"));
}

}  // namespace
}  // namespace kopt
