// The Adapter (src/harness/adapter.cpp), the one place stream parts become product state: for each
// kind of part, the typed events it emits, the parts it persists in a real SQLite store and the
// ledger entry it keeps. No model: the parts are written here as a provider would stream them.
#include "harness/adapter.h"

#include "store/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace affordance::harness {
namespace {

using formats::PartType;
using formats::StreamPart;
using ::testing::ElementsAre;

class AdapterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("affordance-adapter-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    auto store = store::OpenSqlite((dir_ / "affordance.db").string());
    ASSERT_TRUE(store.ok()) << store.error().ToString();
    store_ = std::move(*store);
    auto thread = store_->CreateThread("t");
    ASSERT_TRUE(thread.ok());
    auto message = store_->AddMessage(thread->id, "assistant", "running", {});
    ASSERT_TRUE(message.ok());
    message_ = *message;
    adapter_ = std::make_unique<Adapter>(*store_, message_,
                                         [this](const Event& e) { events_.push_back(e); });
  }
  void TearDown() override {
    adapter_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static StreamPart Part(PartType type, std::string id = "", std::string delta = "") {
    StreamPart p = StreamPart::Of(type, std::move(id));
    p.delta = std::move(delta);
    return p;
  }
  void Call(const std::string& id, const std::string& name, nlohmann::json input) {
    StreamPart p = StreamPart::Of(PartType::kToolCall, id);
    p.tool_name = name;
    p.input_text = input.dump();
    p.input = std::move(input);
    adapter_->OnPart(p);
  }
  void EndStep(const std::string& reason = "tool-calls") {
    StreamPart usage = StreamPart::Of(PartType::kFinishStep);
    usage.usage.prompt_tokens = 120;
    usage.usage.cached_prompt_tokens = 100;
    usage.usage.generated_tokens = 7;
    usage.tokens = {1, 2, 3};
    adapter_->OnPart(usage);
    StreamPart finish = StreamPart::Of(PartType::kFinish);
    finish.finish_reason = reason;
    adapter_->OnPart(finish);
  }
  std::vector<EventKind> Kinds() const {
    std::vector<EventKind> out;
    for (const auto& e : events_) out.push_back(e.kind);
    return out;
  }
  store::MessageRecord Stored() {
    auto thread = store_->LoadThread(message_.thread_id);
    EXPECT_TRUE(thread.ok());
    return thread->back();
  }
  const store::PartRecord* StoredPart(const store::MessageRecord& m, const std::string& kind,
                                      const std::string& key) {
    for (const auto& p : m.parts) {
      if (p.kind == kind && p.key == key) return &p;
    }
    return nullptr;
  }

  std::filesystem::path dir_;
  std::unique_ptr<store::Store> store_;
  store::MessageRecord message_;
  std::unique_ptr<Adapter> adapter_;
  std::vector<Event> events_;
};

TEST_F(AdapterTest, TextStreamsAsTypedEventsAndIsPersistedWhenItCloses) {
  adapter_->Start();
  adapter_->BeginStep(0);
  adapter_->OnPart(Part(PartType::kStartStep));
  adapter_->OnPart(Part(PartType::kTextStart, "p0"));
  adapter_->OnPart(Part(PartType::kTextDelta, "p0", "Hel"));
  adapter_->OnPart(Part(PartType::kTextDelta, "p0", "lo"));
  adapter_->OnPart(Part(PartType::kTextEnd, "p0"));
  EndStep("stop");
  EXPECT_THAT(Kinds(),
              ElementsAre(EventKind::kStart, EventKind::kStartStep, EventKind::kTextStart,
                          EventKind::kTextDelta, EventKind::kTextDelta, EventKind::kTextEnd));
  EXPECT_EQ(events_[0].id, message_.id);
  EXPECT_EQ(events_[0].thread_id, message_.thread_id);
  EXPECT_EQ(events_[3].text, "Hel");
  EXPECT_EQ(events_[3].id, "p0");

  const auto stored = Stored();
  const auto* text = StoredPart(stored, "text", "p0");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->data.value("text", ""), "Hello");
  EXPECT_FALSE(text->open);
  const auto& step = adapter_->ledger().back();
  EXPECT_EQ(step.end, StepEntry::End::kFinished);
  EXPECT_EQ(step.finish_reason, "stop");
  EXPECT_EQ(step.prompt_tokens, 120);
  EXPECT_EQ(step.cached_prompt_tokens, 100);
  ASSERT_EQ(stored.steps.size(), 1u);
  EXPECT_EQ(stored.steps[0].status, "finished");
  EXPECT_THAT(stored.steps[0].tokens, ElementsAre(1, 2, 3));
}

TEST_F(AdapterTest, ACallIsParsedThenExecutedWithItsTruthAndDataState) {
  adapter_->Start();
  adapter_->BeginStep(0);
  StreamPart start = StreamPart::Of(PartType::kToolInputStart, "c1");
  start.tool_name = "RunConnectorCommand";
  adapter_->OnPart(start);
  adapter_->OnPart(Part(PartType::kToolInputDelta, "c1", "{\"connector\""));
  Call("c1", "RunConnectorCommand", {{"connector", "calendar"}});
  EndStep();
  EXPECT_EQ(StoredPart(Stored(), "tool", "c1")->state, "parsed");

  ToolOutcome read = ToolOutcome::Ok({{"rows", 2}});
  read.data_state = DataState::kMirrored;
  read.connector = "calendar";
  adapter_->ToolResult(0, "RunConnectorCommand", read, "rows: 2");
  adapter_->FinishStep();

  EXPECT_THAT(Kinds(),
              ElementsAre(EventKind::kStart, EventKind::kToolInputStart, EventKind::kToolInputDelta,
                          EventKind::kToolInputAvailable, EventKind::kToolOutputAvailable,
                          EventKind::kTruth, EventKind::kFinishStep));
  EXPECT_EQ(events_[1].tool_name, "RunConnectorCommand");
  EXPECT_EQ(events_[3].value["connector"], "calendar");
  EXPECT_EQ(events_[4].value["rows"], 2);
  EXPECT_EQ(events_[5].id, "c1");
  EXPECT_EQ(events_[5].state, "executed");
  EXPECT_EQ(events_[5].data_state, "mirrored");

  const auto stored = Stored();
  const auto* tool = StoredPart(stored, "tool", "c1");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->state, "executed");
  EXPECT_FALSE(tool->open);
  EXPECT_EQ(tool->data.value("status", ""), "output-available");
  // Wrapped as evidence with the result's reference, which the model may cite.
  EXPECT_EQ(tool->data.value("resultText", ""),
            "<tool-result ref=\"r1\" tool=\"RunConnectorCommand\" trust=\"untrusted\">\nrows: "
            "2\n</tool-result>");
  EXPECT_EQ(tool->data.value("ref", ""), "r1");
  EXPECT_EQ(tool->data.value("dataState", ""), "mirrored");
  EXPECT_EQ(adapter_->ledger().back().calls[0].outcome, CallEntry::Outcome::kOk);
}

TEST_F(AdapterTest, AMalformedCallAFailedCallAStagedWriteAndACancelledCallEachSayWhatHappened) {
  adapter_->Start();
  adapter_->BeginStep(0);
  StreamPart malformed = StreamPart::Of(PartType::kToolInputError, "c0");
  malformed.tool_name = "ToolSearch";
  malformed.input_text = "{oops";
  malformed.error_text = "not JSON";
  adapter_->OnPart(malformed);
  Call("c1", "ToolSearch", {{"query", "x"}});
  Call("c2", "invoke_mutation", {{"connector", "calendar"}});
  Call("c3", "ListComponents", nlohmann::json::object());
  EndStep();

  adapter_->ToolResult(0, "ToolSearch", ToolOutcome::Fail(MakeError("harness.malformed_call", "x")),
                       "error");
  adapter_->ToolResult(1, "ToolSearch", ToolOutcome::Fail(MakeError("harness.bad_args", "no")),
                       "error harness.bad_args");
  ToolOutcome staged = ToolOutcome::Ok({{"approvalId", "apr_1"}});
  staged.approval_id = "apr_1";
  staged.state = TruthState::kParsed;
  adapter_->ToolResult(2, "invoke_mutation", staged, "staged");
  adapter_->CloseUnrun(3, CallEntry::Outcome::kCancelled,
                       "the turn was cancelled before this call ran");

  const std::vector<EventKind> kinds = Kinds();
  const std::vector<EventKind> after_calls(kinds.begin() + 5, kinds.end());
  // c0: its error was shown when it arrived (tool-input-error), no second chunk; its truth state
  // is what the stream proved (emitted). Every call ends with an explicit state; the staged
  // write also carries its effect card (data-approval).
  EXPECT_THAT(after_calls,
              ElementsAre(EventKind::kTruth, EventKind::kToolOutputError, EventKind::kTruth,
                          EventKind::kToolApprovalRequest, EventKind::kTruth, EventKind::kApproval,
                          EventKind::kToolOutputError, EventKind::kTruth));
  EXPECT_EQ(events_[1].kind, EventKind::kToolInputError);
  EXPECT_EQ(events_[1].input_text, "{oops");
  EXPECT_EQ(events_[1].text, "not JSON");
  EXPECT_EQ(events_[5].id, "c0");
  EXPECT_EQ(events_[5].state, "emitted");
  EXPECT_EQ(events_[6].text.rfind("harness.bad_args: ", 0), 0u) << events_[6].text;
  EXPECT_EQ(events_[8].approval_id, "apr_1");
  EXPECT_EQ(events_[10].id, "apr_1");
  EXPECT_EQ(events_[10].value["toolCallId"], "c2");
  EXPECT_EQ(events_[11].text, "harness.cancelled: the turn was cancelled before this call ran");
  EXPECT_EQ(events_[11].state, "cancelled");
  EXPECT_EQ(events_[12].state, "parsed");  // complete, never run

  const auto stored = Stored();
  EXPECT_EQ(StoredPart(stored, "tool", "c0")->data.value("status", ""), "input-error");
  EXPECT_EQ(StoredPart(stored, "tool", "c0")->data.value("errorCode", ""),
            "harness.malformed_call");
  EXPECT_EQ(StoredPart(stored, "tool", "c1")->data.value("status", ""), "output-error");
  EXPECT_EQ(StoredPart(stored, "tool", "c2")->data.value("status", ""), "approval-requested");
  EXPECT_EQ(StoredPart(stored, "tool", "c2")->data.value("approvalId", ""), "apr_1");
  EXPECT_EQ(StoredPart(stored, "tool", "c3")->data.value("status", ""), "cancelled");
  for (const auto& p : stored.parts) EXPECT_FALSE(p.open) << p.key;
  const auto& calls = adapter_->ledger().back().calls;
  EXPECT_EQ(calls[0].outcome, CallEntry::Outcome::kInputError);
  EXPECT_EQ(calls[1].outcome, CallEntry::Outcome::kToolError);
  EXPECT_EQ(calls[2].approval_id, "apr_1");
  EXPECT_EQ(calls[3].outcome, CallEntry::Outcome::kCancelled);
}

TEST_F(AdapterTest, FinishClosesOpenPartsAndCarriesTheReportThenExactlyOneEnd) {
  adapter_->Start();
  adapter_->BeginStep(0);
  adapter_->OnPart(Part(PartType::kTextStart, "p0"));
  adapter_->OnPart(Part(PartType::kTextDelta, "p0", "half"));
  StreamPart start = StreamPart::Of(PartType::kToolInputStart, "c1");
  start.tool_name = "ToolSearch";
  adapter_->OnPart(start);
  StreamPart abort = StreamPart::Of(PartType::kAbort);
  abort.error_text = "cancelled";
  adapter_->OnPart(abort);

  TurnReport report;
  report.thread_id = message_.thread_id;
  report.message_id = message_.id;
  report.status = TurnStatus::kCancelled;
  report.text = "half";
  report.ledger = adapter_->ledger();
  adapter_->Finish(report);

  ASSERT_GE(events_.size(), 2u);
  const Event& turn = events_[events_.size() - 2];
  EXPECT_EQ(turn.kind, EventKind::kTurn);
  ASSERT_NE(turn.report, nullptr);
  EXPECT_EQ(turn.report->status, TurnStatus::kCancelled);
  EXPECT_EQ(turn.report->text, "half");
  EXPECT_EQ(turn.value.value("status", ""), "cancelled");
  EXPECT_EQ(events_.back().kind, EventKind::kAbort);
  EXPECT_EQ(events_.back().text, "cancelled");

  const auto stored = Stored();
  EXPECT_EQ(stored.status, "complete");
  EXPECT_EQ(stored.meta.value("status", ""), "cancelled");
  for (const auto& p : stored.parts) EXPECT_FALSE(p.open) << p.key;
  EXPECT_EQ(StoredPart(stored, "text", "p0")->data.value("text", ""), "half");
  EXPECT_EQ(StoredPart(stored, "tool", "c1")->data.value("status", ""), "cancelled");
  EXPECT_EQ(stored.steps[0].status, "aborted");
  EXPECT_EQ(adapter_->ledger().back().error_code, "harness.cancelled");
}

TEST_F(AdapterTest, AProviderErrorEndsWithErrorThenFinishAndADeltaWithoutAStartIsKept) {
  adapter_->Start();
  adapter_->BeginStep(0);
  adapter_->OnPart(Part(PartType::kTextDelta, "p9", "orphan"));  // no text-start: still kept
  StreamPart error = StreamPart::Of(PartType::kError);
  error.error_code = "model.http_status";
  error.error_text = "502 from the engine";
  adapter_->OnPart(error);
  TurnReport report;
  report.status = TurnStatus::kProviderError;
  report.ledger = adapter_->ledger();
  adapter_->Finish(report);
  const auto n = events_.size();
  ASSERT_GE(n, 3u);
  EXPECT_EQ(events_[n - 3].kind, EventKind::kTurn);
  EXPECT_EQ(events_[n - 2].kind, EventKind::kError);
  EXPECT_EQ(events_[n - 2].text, "model.http_status: 502 from the engine");
  EXPECT_EQ(events_[n - 1].kind, EventKind::kFinish);
  EXPECT_EQ(events_[n - 1].text, "error");
  const auto stored = Stored();
  const auto* orphan = StoredPart(stored, "text", "p9");
  ASSERT_NE(orphan, nullptr);
  EXPECT_EQ(orphan->data.value("text", ""), "orphan");
  EXPECT_FALSE(orphan->open);
}

TEST_F(AdapterTest, ApprovalsAndEarlierOutcomesAreTypedEvents) {
  adapter_->Start("m_earlier");
  adapter_->EmitToolOutcome("c0", false, {{"state", "verified"}});
  adapter_->EmitToolOutcome("c1", true, {});
  adapter_->EmitApproval("apr_1", {{"approvalId", "apr_1"}, {"state", "verified"}});
  EXPECT_THAT(Kinds(), ElementsAre(EventKind::kStart, EventKind::kToolOutputAvailable,
                                   EventKind::kToolOutputDenied, EventKind::kApproval));
  EXPECT_EQ(events_[0].id, "m_earlier");
  EXPECT_EQ(events_[1].value["state"], "verified");
  EXPECT_TRUE(events_[2].value.is_null());
  EXPECT_EQ(events_[3].id, "apr_1");
}

}  // namespace
}  // namespace affordance::harness
