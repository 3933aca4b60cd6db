#include "server/ui_message.h"

#include <gtest/gtest.h>

namespace affordance::server {
namespace {

store::PartRecord Part(int64_t seq, std::string kind, std::string key, std::string state,
                       nlohmann::json data) {
  store::PartRecord p;
  p.seq = seq;
  p.kind = std::move(kind);
  p.key = std::move(key);
  p.state = std::move(state);
  p.data = std::move(data);
  return p;
}

TEST(ServerUiMessage, MapsEveryStoredPartKind) {
  store::MessageRecord m;
  m.id = "m_1";
  m.thread_id = "t_1";
  m.role = "assistant";
  m.status = "complete";
  m.meta = {{"status", "surface_composed"}};
  m.parts = {
      Part(0, "reasoning", "r", "emitted", {{"id", "r"}, {"text", "think"}}),
      Part(1, "text", "x", "persisted", {{"id", "x"}, {"text", "Hello"}}),
      Part(2, "tool", "c1", "executed",
           {{"toolName", "RunConnectorCommand"},
            {"input", {{"connector", "calendar"}}},
            {"status", "output-available"},
            {"output", {{"rows", {1, 2}}}},
            {"dataState", "mirrored"}}),
      Part(3, "tool", "c2", "parsed",
           {{"toolName", "Nope"},
            {"input", nlohmann::json::object()},
            {"status", "output-error"},
            {"errorCode", "harness.unknown_tool"},
            {"errorText", "no tool Nope"}}),
      Part(4, "tool", "c3", "interrupted", {{"toolName", "ToolSearch"}, {"status", "interrupted"}}),
      Part(5, "surface", "s1", "painted",
           {{"surfaceId", "s1"}, {"program", "root = X()"}, {"live", true}}),
      Part(6, "reality", "", "persisted", {{"text", "<reality>"}}),
  };
  auto ui = ToUiMessage(m);
  EXPECT_EQ(ui["id"], "m_1");
  EXPECT_EQ(ui["role"], "assistant");
  EXPECT_EQ(ui["metadata"]["threadId"], "t_1");
  const auto& parts = ui["parts"];
  ASSERT_EQ(parts.size(), 10u);  // reasoning, text, 3 x (tool + truth), surface, turn
  EXPECT_EQ(parts[0]["type"], "reasoning");
  EXPECT_EQ(parts[1]["text"], "Hello");
  EXPECT_EQ(parts[2]["type"], "tool-RunConnectorCommand");
  EXPECT_EQ(parts[2]["state"], "output-available");
  EXPECT_EQ(parts[2]["output"]["rows"][1], 2);
  EXPECT_EQ(parts[3]["type"], "data-truth");
  EXPECT_EQ(parts[3]["data"]["state"], "executed");
  EXPECT_EQ(parts[3]["data"]["dataState"], "mirrored");
  EXPECT_EQ(parts[4]["state"], "output-error");
  EXPECT_EQ(parts[4]["errorText"], "harness.unknown_tool: no tool Nope");
  EXPECT_FALSE(parts[5]["data"].contains("dataState"));
  EXPECT_EQ(parts[6]["state"], "output-error");  // interrupted: an explicit state, never open
  EXPECT_EQ(parts[6]["errorText"], "interrupted");
  EXPECT_EQ(parts[8]["type"], "data-surface");
  EXPECT_EQ(parts[8]["id"], "s1");
  EXPECT_EQ(parts[8]["data"]["state"], "painted");
  EXPECT_EQ(parts[9]["type"], "data-turn");
  EXPECT_EQ(parts[9]["data"]["status"], "surface_composed");
}

TEST(ServerUiMessage, StagedWritesReadBackAsApprovalStatesOfTheProtocol) {
  store::MessageRecord m;
  m.id = "m_1";
  m.thread_id = "t_1";
  m.role = "assistant";
  m.status = "complete";
  auto staged = [](const std::string& call, const std::string& approval) {
    return Part(0, "tool", call, "staged",
                {{"toolName", "invoke_mutation"},
                 {"input", {{"connector", "calendar"}}},
                 {"status", "approval-requested"},
                 {"approvalId", approval}});
  };
  m.parts = {staged("c1", "a1"), staged("c2", "a2"), staged("c3", "a3"),
             Part(3, "tool", "c4", "denied",
                  {{"toolName", "invoke_mutation"}, {"status", "output-denied"}})};
  Approvals approvals;
  approvals["a1"].status = "pending";
  approvals["a2"].status = "approved";
  approvals["a3"].status = "denied";
  approvals["a3"].reason = "not now";
  const auto parts = ToUiMessage(m, &approvals)["parts"];
  EXPECT_EQ(parts[0]["state"], "approval-requested");
  EXPECT_EQ(parts[0]["approval"], (nlohmann::ordered_json{{"id", "a1"}}));
  // Each staged call carries its effect card (data-approval) as the stream did.
  EXPECT_EQ(parts[2]["type"], "data-approval");
  EXPECT_EQ(parts[2]["id"], "a1");
  EXPECT_EQ(parts[2]["data"]["toolCallId"], "c1");
  EXPECT_EQ(parts[2]["data"]["state"], "pending");
  EXPECT_EQ(parts[3]["state"], "approval-responded");
  EXPECT_EQ(parts[3]["approval"]["approved"], true);
  EXPECT_EQ(parts[5]["data"]["state"], "approved");
  EXPECT_EQ(parts[6]["state"], "approval-responded");
  EXPECT_EQ(parts[6]["approval"]["approved"], false);
  EXPECT_EQ(parts[6]["approval"]["reason"], "not now");
  EXPECT_EQ(parts[8]["data"]["reason"], "not now");
  EXPECT_EQ(parts[9]["state"], "output-denied");
  EXPECT_FALSE(parts[9].contains("errorText"));
  // Without the approvals the staged call still asks for a decision.
  EXPECT_EQ(ToUiMessage(m)["parts"][2]["state"], "approval-requested");
}

// A run write read back: its data-approval says what the stream said (the report's `verified`),
// not only the row's `executed`; a row that moved on since the result was written says where it is.
TEST(ServerUiMessage, ARunWriteReadsBackWithTheStateTheStreamShowed) {
  store::MessageRecord m;
  m.id = "m_1";
  m.role = "assistant";
  m.status = "complete";
  m.parts = {
      Part(0, "tool", "c1", "verified",
           {{"toolName", "invoke_mutation"},
            {"status", "output-available"},
            {"approvalId", "a1"},
            {"output", {{"approvalId", "a1"}, {"state", "verified"}, {"status", "executed"}}}})};
  Approvals approvals;
  approvals["a1"].status = "executed";
  auto parts = ToUiMessage(m, &approvals)["parts"];
  ASSERT_EQ(parts[2]["type"], "data-approval");
  EXPECT_EQ(parts[2]["data"]["state"], "verified");
  EXPECT_EQ(parts[2]["data"]["status"], "executed");
  EXPECT_EQ(parts[2]["data"]["truth"], "verified");
  approvals["a1"].status = "not_executed";  // reconciled after the result was written
  parts = ToUiMessage(m, &approvals)["parts"];
  EXPECT_EQ(parts[2]["data"]["state"], "not_executed");
}

TEST(ServerUiMessage, SkipsTheMessageStillStreaming) {
  store::MessageRecord user, running;
  user.id = "m_u";
  user.role = "user";
  user.status = "complete";
  user.parts = {Part(0, "reality", "", "persisted", {{"text", "r"}}),
                Part(1, "text", "", "persisted", {{"text", "hi"}})};
  running.id = "m_a";
  running.role = "assistant";
  running.status = "running";
  auto all = ToUiMessages({user, running});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]["parts"].size(), 1u);  // the reality block is the model's, not the person's
  EXPECT_EQ(all[1]["parts"].size(), 0u);  // running: no data-turn yet
  EXPECT_EQ(ToUiMessages({user, running}, "m_a").size(), 1u);
}

}  // namespace
}  // namespace affordance::server
