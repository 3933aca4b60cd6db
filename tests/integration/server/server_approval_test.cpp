// Governed writes through `affordance serve`, the way the AI SDK's useChat does them: a turn
// stages a write and its stream carries `tool-approval-request`; the client records the decision
// on the tool part and resends the assistant message; the server applies the person's decision
// through the authority and continues the turn, which runs the approved write once and verifies it
// by a fresh read (`tool-output-available` on the staging call), or reports the denial
// (`tool-output-denied`). The replay provider stands in for the model (it plays
// scripts/write.json); the calendar is a real .ics file copied into the test's folder.
#include "server_process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace affordance::server::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kV7 = "x-ai-sdk-version: 7.0.173\r\n";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct WriteRig {
  TempDir dir;
  std::string connectors;
  std::unique_ptr<ServerProcess> server;
  std::string thread = "chat-approval";

  WriteRig() {
    connectors = dir / "connectors";
    std::filesystem::create_directories(connectors);
    for (const char* f : {"calendar.json", "calendar.ics"}) {
      std::filesystem::copy_file(Source(std::string("examples/connectors/") + f),
                                 connectors + "/" + f);
    }
    server = std::make_unique<ServerProcess>(dir / "data",
                                             Source("tests/integration/server/scripts/write.json"),
                                             std::vector<std::string>{}, connectors);
    ServerProcess::Spawn({AFFORDANCE_CLI, "grants", "grant", "calendar", "--write", "--data",
                          dir / "data", "--connectors", connectors});
  }
  int port() const { return server->port(); }
  // Decisions are the person's: the web UI's session header (a client's request decides
  // nothing: ServerSecurity.*).
  std::string Person() const { return PersonHeader(port()); }
  std::string ics() const { return ReadFile(connectors + "/calendar.ics"); }

  // The staging turn: returns its chunks.
  std::vector<json> Stage() {
    auto r =
        Http(port(), "POST", "/api/chat", ChatBody(thread, "Put a budget sync on Thursday."), kV7);
    EXPECT_EQ(r.status, 200) << r.body;
    return Chunks(r.body);
  }

  // What useChat sends after addToolApprovalResponse: the assistant message, its staging call's
  // part in state approval-responded.
  static std::string Decision(const std::string& call, const std::string& approval, bool approved,
                              const std::string& reason = "") {
    json a = {{"id", approval}, {"approved", approved}};
    if (!reason.empty()) a["reason"] = reason;
    json message = {{"id", "m-assistant"},
                    {"role", "assistant"},
                    {"parts",
                     {{{"type", "step-start"}},
                      {{"type", "tool-invoke_mutation"},
                       {"toolCallId", call},
                       {"state", "approval-responded"},
                       {"input", json::object()},
                       {"approval", a}}}}};
    return json{{"id", "chat-approval"},
                {"trigger", "submit-message"},
                {"messageId", "m-assistant"},
                {"messages", json::array({message})}}
        .dump();
  }
};

const json* Find(const std::vector<json>& chunks, const std::string& type) {
  for (const auto& c : chunks) {
    if (c.value("type", "") == type) return &c;
  }
  return nullptr;
}

TEST(ServerApproval, ReplayApprovedWriteContinuesTheTurnRunsOnceAndIsVerified) {
  WriteRig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const std::string before = rig.ics();

  auto staged = rig.Stage();
  const json* request = Find(staged, "tool-approval-request");
  ASSERT_NE(request, nullptr) << json(staged).dump();
  const std::string approval = (*request)["approvalId"];
  const std::string call = (*request)["toolCallId"];
  EXPECT_EQ(Find(staged, "finish")->value("finishReason", ""), "tool-calls");
  EXPECT_EQ(rig.ics(), before) << "staging dispatched nothing";

  auto r = Http(rig.port(), "POST", "/api/chat", WriteRig::Decision(call, approval, true),
                kV7 + rig.Person());
  ASSERT_EQ(r.status, 200) << r.body;
  auto chunks = Chunks(r.body);
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.front()["type"], "start");
  const json* outcome = Find(chunks, "tool-output-available");
  ASSERT_NE(outcome, nullptr) << r.body;
  EXPECT_EQ((*outcome)["toolCallId"], call);
  EXPECT_EQ((*outcome)["output"]["state"], "verified") << outcome->dump();
  EXPECT_EQ((*outcome)["output"]["decidedBy"].get<std::string>().rfind("user:", 0), 0u);
  const json* data = Find(chunks, "data-approval");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ((*data)["id"], approval);
  EXPECT_EQ((*data)["data"]["truth"], "verified");
  std::string text;
  for (const auto& c : chunks) {
    if (c["type"] == "text-delta") text += c["delta"].get<std::string>();
  }
  EXPECT_THAT(text, HasSubstr("The budget sync is in your calendar"));
  EXPECT_EQ(chunks.back()["type"], "finish");

  const std::string after = rig.ics();
  EXPECT_THAT(after, HasSubstr("SUMMARY:Budget sync"));
  size_t events = 0;
  for (size_t at = after.find("SUMMARY:Budget sync"); at != std::string::npos;
       at = after.find("SUMMARY:Budget sync", at + 1)) {
    ++events;
  }
  EXPECT_EQ(events, 1u);

  // A resent decision (a retried request) neither runs the write again nor starts a turn.
  auto again = Http(rig.port(), "POST", "/api/chat", WriteRig::Decision(call, approval, true),
                    kV7 + rig.Person());
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_THAT(again.body, HasSubstr("harness.nothing_to_continue"));
  // The opposite decision afterwards is refused too (the turn is over and the approval decided).
  auto flip = Http(rig.port(), "POST", "/api/chat", WriteRig::Decision(call, approval, false),
                   kV7 + rig.Person());
  EXPECT_EQ(flip.status, 409) << flip.body;
  EXPECT_EQ(rig.ics(), after);

  // The thread read back: the staging call's part now carries the verified outcome.
  auto thread = Http(rig.port(), "GET", "/api/threads/" + rig.thread);
  ASSERT_EQ(thread.status, 200) << thread.body;
  EXPECT_THAT(thread.body, HasSubstr("\"verified\""));
  EXPECT_THAT(thread.body, HasSubstr("The budget sync is in your calendar"));
}

TEST(ServerApproval, ReplayDeniedWriteRunsNothingAndTheCallIsDenied) {
  WriteRig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const std::string before = rig.ics();
  auto staged = rig.Stage();
  const json* request = Find(staged, "tool-approval-request");
  ASSERT_NE(request, nullptr);
  auto r = Http(rig.port(), "POST", "/api/chat",
                WriteRig::Decision((*request)["toolCallId"], (*request)["approvalId"], false,
                                   "not this week"),
                kV7 + rig.Person());
  ASSERT_EQ(r.status, 200) << r.body;
  auto chunks = Chunks(r.body);
  const json* denied = Find(chunks, "tool-output-denied");
  ASSERT_NE(denied, nullptr) << r.body;
  EXPECT_EQ(*denied,
            (json{{"type", "tool-output-denied"}, {"toolCallId", (*request)["toolCallId"]}}));
  EXPECT_EQ(Find(chunks, "tool-output-available"), nullptr);
  EXPECT_EQ(rig.ics(), before);
  // The scripted answer follows the decision its prompt shows (replay "cases"): after a denial it
  // says that nothing ran, and claims no write.
  std::string text;
  for (const auto& c : chunks) {
    if (c["type"] == "text-delta") text += c["delta"].get<std::string>();
  }
  EXPECT_THAT(text, HasSubstr("You denied the budget sync, so nothing ran"));
  EXPECT_THAT(text, Not(HasSubstr("in your calendar:")));
  EXPECT_THAT(text, Not(HasSubstr("Done")));

  // The thread read back: the staging call's part is denied.
  auto thread = Http(rig.port(), "GET", "/api/threads/" + rig.thread);
  EXPECT_THAT(thread.body, HasSubstr("output-denied"));
}

TEST(ServerApproval, ReplayAnOlderClientGetsTheDenialAsADataPart) {
  WriteRig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  auto staged = rig.Stage();
  const json* request = Find(staged, "tool-approval-request");
  ASSERT_NE(request, nullptr);
  auto r = Http(rig.port(), "POST", "/api/chat",
                WriteRig::Decision((*request)["toolCallId"], (*request)["approvalId"], false),
                "x-ai-sdk-version: 5.0.50\r\n" + rig.Person());
  ASSERT_EQ(r.status, 200) << r.body;
  auto chunks = Chunks(r.body);
  EXPECT_EQ(Find(chunks, "tool-output-denied"), nullptr) << r.body;
  EXPECT_NE(Find(chunks, "data-output-denied"), nullptr) << r.body;
}

TEST(ServerApproval, BadDecisionsAreClearErrorsAndDecideNothing) {
  WriteRig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const std::string before = rig.ics();
  auto staged = rig.Stage();
  const json* request = Find(staged, "tool-approval-request");
  ASSERT_NE(request, nullptr);
  const std::string call = (*request)["toolCallId"];
  const std::string approval = (*request)["approvalId"];

  auto unknown = Http(rig.port(), "POST", "/api/chat", WriteRig::Decision(call, "nope", true),
                      kV7 + rig.Person());
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_THAT(unknown.body, HasSubstr("server.unknown_approval"));

  // No decision on the assistant message.
  json none = json::parse(WriteRig::Decision(call, approval, true));
  none["messages"][0]["parts"][1]["state"] = "approval-requested";
  auto r = Http(rig.port(), "POST", "/api/chat", none.dump(), kV7 + rig.Person());
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(r.body, HasSubstr("server.no_decision"));

  // A malformed decision.
  json bad = json::parse(WriteRig::Decision(call, approval, true));
  bad["messages"][0]["parts"][1]["approval"]["approved"] = "yes";
  r = Http(rig.port(), "POST", "/api/chat", bad.dump(), kV7 + rig.Person());
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(r.body, HasSubstr("server.bad_request"));

  // An unknown chat id.
  json elsewhere = json::parse(WriteRig::Decision(call, approval, true));
  elsewhere["id"] = "no-such-chat";
  r = Http(rig.port(), "POST", "/api/chat", elsewhere.dump(), kV7 + rig.Person());
  EXPECT_EQ(r.status, 404) << r.body;

  // An approval of another thread cannot be decided through this one.
  auto other = Http(rig.port(), "POST", "/api/chat", ChatBody("chat-other", "Hello"), kV7);
  ASSERT_EQ(other.status, 200);
  json foreign = json::parse(WriteRig::Decision(call, approval, true));
  foreign["id"] = "chat-other";
  r = Http(rig.port(), "POST", "/api/chat", foreign.dump(), kV7 + rig.Person());
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_THAT(r.body, HasSubstr("server.unknown_approval"));

  EXPECT_EQ(rig.ics(), before) << "nothing was decided, nothing ran";
  EXPECT_TRUE(rig.server->alive());
  // The approval is still pending: deciding it now works.
  r = Http(rig.port(), "POST", "/api/chat", WriteRig::Decision(call, approval, true),
           kV7 + rig.Person());
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(rig.ics(), HasSubstr("SUMMARY:Budget sync"));
}

}  // namespace
}  // namespace affordance::server::testing
