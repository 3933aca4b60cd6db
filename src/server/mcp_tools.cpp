#include "server/mcp_tools.h"

#include "connect/effect.h"

#include "authority/authority.h"
#include "authority/capability.h"
#include "base/version.h"
#include "connect/effect.h"
#include "surface/artifact.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace affordance::server {
namespace {

using authority::Access;
using authority::Capability;
using authority::DeclareCapability;
using authority::Mode;
using mcp::ToolResult;
using nlohmann::json;

// ---- declarations (door "mcp")
// --------------------------------------------------------------------

json Obj(json properties, json required = json::array(), bool closed = true) {
  json j = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) j["required"] = std::move(required);
  if (closed) j["additionalProperties"] = false;
  return j;
}

json Str(std::string description, int min_length = 0) {
  json j = {{"type", "string"}, {"description", std::move(description)}};
  if (min_length > 0) j["minLength"] = static_cast<uint64_t>(min_length);  // schema.h: unsigned
  return j;
}

const json kAnyObject = {{"type", "object"}};
const json kObjects = {{"type", "array"}, {"items", {{"type", "object"}}}};

// What an approval looks like in every result (authority::EffectReport::ToJson).
json ApprovalSchema() {
  return {{"type", "object"},
          {"properties",
           {{"approvalId", {{"type", "string"}}},
            {"state", {{"type", "string"}}},
            {"status", {{"type", "string"}}},
            {"connector", {{"type", "string"}}},
            {"operation", {{"type", "string"}}},
            {"args", kAnyObject},
            {"risk", {{"type", "string"}}},
            {"stagedBy", {{"type", "string"}}},
            {"decidedBy", {{"type", "string"}}},
            {"effect", kAnyObject},
            {"digest", {{"type", "string"}}},
            {"expiresMs", {{"type", "integer"}}},
            {"receipt", kAnyObject}}},
          {"required", {"approvalId", "state", "status", "connector", "operation", "args"}}};
}

json GrantSchema() {
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "string"}}},
            {"scope", {{"type", "string"}}},
            {"access", {{"enum", {"read", "write"}}}},
            {"grantedBy", {{"type", "string"}}},
            {"createdMs", {{"type", "integer"}}},
            {"expiresMs", {{"type", "integer"}}},
            {"revokedMs", {{"type", "integer"}}},
            {"revokedBy", {{"type", "string"}}}}},
          {"required", {"id", "scope", "access", "grantedBy"}}};
}

Capability Mcp(std::string name, std::string object, std::string action, Access access, Mode mode,
               std::string description, json params, json result, std::string grant = "",
               std::string receipt = "", std::string proof = "") {
  return authority::MakeCapability("mcp", std::move(name), std::move(object), std::move(action),
                                   access, mode, std::move(description), std::move(params),
                                   std::move(result), std::move(grant), std::move(receipt),
                                   std::move(proof));
}

const json kConnector = Str("connector slug (list_connectors names them)", 1);
const json kAccessEnum = {{"enum", {"read", "write"}}, {"description", "read or write"}};

// ask: one harness turn, through the TurnHub.
void DeclareAsk() {
  DeclareCapability(Mcp(
      "ask", "thread", "converse", Access::kClient, Mode::kLocalState,
      "Ask affordance in natural language. Runs one harness turn (the model reads governed "
      "connector data, may compose OpenUI surfaces or stage writes) and returns its final text, "
      "the surfaces it composed, the truth state of every tool call and the turn's report. Give "
      "`thread` to continue a conversation; without it a new thread is created.",
      Obj({{"message", Str("what to ask, in words", 1)},
           {"thread", Str("a thread id from an earlier ask (optional)", 1)}},
          {"message"}),
      Obj({{"threadId", {{"type", "string"}}},
           {"messageId", {{"type", "string"}}},
           {"status", Str("the turn's terminal status (answered, surface_composed, "
                          "awaiting_approval, cancelled, ...)")},
           {"text", Str("the prose of the turn's last step")},
           {"surfaces", kObjects},
           {"truth", kObjects},
           {"approvals", kObjects},
           {"claims",
            {{"type", "array"},
             {"description",
              "each claim of the prose with its evidence class: source (cited, the call served "
              "data), effect (cited, its write executed or verified), unresolved (cited, but the "
              "call failed, its read is partial, it was denied or refused or expired, or a "
              "citation names no result), inference "
              "(not cited)"},
             {"items",
              {{"type", "object"},
               {"properties",
                {{"class", {{"enum", {"source", "effect", "unresolved", "inference"}}}},
                 {"text", {{"type", "string"}}},
                 {"refs", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                 {"invalid", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
               {"required", {"class", "text", "refs"}}}}}},
           {"turn", kAnyObject}},
          {"threadId", "messageId", "status", "text", "surfaces", "truth", "claims", "turn"},
          false),
      "connector:<slug>:read for the reads the model makes", "",
      "the turn's messages and parts, persisted by the harness (data-turn)"));
}

// Governed connector data: reads under a grant, and asking a person for one.
void DeclareConnectorTools() {
  DeclareCapability(Mcp(
      "read_connector", "connector", "read", Access::kClient, Mode::kRead,
      "Read governed connector data (RunConnectorCommand): `request` is words (a string) or "
      "{\"operation\": name, \"args\": {...}}. Needs a read grant (request_grant asks a person "
      "for one). Returns rows with their operation ledger, query handles, freshness and counts.",
      Obj({{"connector", kConnector},
           {"request",
            {{"type", {"string", "object"}}, {"description", "words, or {operation, args}"}}},
           {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 500}}},
           {"mode", {{"enum", {"auto", "local", "live"}}}}},
          {"connector", "request"}),
      Obj({{"connector", {{"type", "string"}}},
           {"status", {{"type", "string"}}},
           {"rows", {{"type", "array"}}}},
          {"connector", "status", "rows"}, false),
      "connector:<slug>:read", "Activity entry (read)"));
  DeclareCapability(
      Mcp("list_connectors", "connector", "list", Access::kClient, Mode::kRead,
          "The configured connectors: their operations (reads, and mutations with risk and args "
          "schema), mirror freshness, credential state, and the grants in force for each.",
          Obj(json::object()), Obj({{"connectors", kObjects}}, {"connectors"}, false)));
  DeclareCapability(
      Mcp("request_grant", "grant", "request", Access::kClient, Mode::kLocalState,
          "Ask a person for read or write access to a connector (or one operation). Records the "
          "request in Activity (kind grant_request) and returns the command a person runs to grant "
          "it. It grants nothing: only a person does.",
          Obj({{"connector", kConnector},
               {"operation", Str("only this operation (optional)", 1)},
               {"access", kAccessEnum},
               {"reason", Str("why the access is needed, shown to the person")}},
              {"connector", "access"}),
          Obj({{"scope", {{"type", "string"}}},
               {"access", {{"type", "string"}}},
               {"granted", {{"type", "boolean"}}},
               {"grant", GrantSchema()},
               {"grantCommand", {{"type", "string"}}}},
              {"scope", "access", "granted", "grantCommand"}, false),
          "", "Activity entry (grant_request)", "the Activity entry"));
}

// Staged writes and their approval requests (deciding them is the operator's).
void DeclareApprovalTools() {
  DeclareCapability(Mcp(
      "stage_action", "approval", "stage", Access::kClient, Mode::kStagedWrite,
      "Stage an exact write (a connector mutation with schema-valid args). Needs a write grant. "
      "Nothing runs: a durable approval request (status pending) waits for a person to approve "
      "or deny it; show_approval follows it.",
      Obj({{"connector", kConnector},
           {"operation", Str("the mutation (list_connectors shows each with its args schema)", 1)},
           {"args", kAnyObject},
           {"evidence", {{"type", "object"}, {"description", "what the request rests on"}}}},
          {"connector", "operation", "args"}),
      Obj({{"approval", ApprovalSchema()},
           {"effectText", {{"type", "string"}}},
           {"message", {{"type", "string"}}}},
          {"approval", "message"}, false),
      "connector:<slug>:write", "approval request apr_... + Activity entry (stage)",
      "the pending approval row"));
  DeclareCapability(
      Mcp("list_approvals", "approval", "list", Access::kClient, Mode::kRead,
          "Approval requests, newest first, each with its effect state and latest receipt.",
          Obj({{"status", Str("only this status (pending, approved, denied, executed, ...)", 1)},
               {"thread", Str("only requests staged in this thread", 1)}}),
          Obj({{"approvals", {{"type", "array"}, {"items", ApprovalSchema()}}}}, {"approvals"},
              false)));
  DeclareCapability(
      Mcp("show_approval", "approval", "read", Access::kClient, Mode::kRead,
          "One approval request: the exact effect, who staged and decided it, its receipt "
          "(idempotency key, request, response, outcome, verification) and the weakest true state.",
          Obj({{"id", Str("approval id (apr_...)", 1)}}, {"id"}),
          Obj({{"approval", ApprovalSchema()},
               {"effectText", {{"type", "string"}}},
               {"message", {{"type", "string"}}}},
              {"approval", "message"}, false)));
}

// The append-only Activity log.
void DeclareActivityTools() {
  DeclareCapability(
      Mcp("read_activity", "activity", "read", Access::kClient, Mode::kRead,
          "The append-only Activity log: grants, grant requests, reads, stages, decisions, "
          "executions, verifications, reconciles.",
          Obj({{"kind", Str("only this kind (grant, read, stage, approve, ...)", 1)},
               {"subject", Str("only this subject (an approval, grant or connector scope)", 1)},
               {"sinceMs", {{"type", "integer"}, {"minimum", 0}}},
               {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}}}),
          Obj({{"activity", kObjects}}, {"activity"}, false)));
}

// OpenUI Lang programs stored as artifact versions.
void DeclareArtifactTools() {
  DeclareCapability(Mcp(
      "compose_ui", "surface", "compose", Access::kClient, Mode::kLocalState,
      "Validate an OpenUI Lang program and store it as a version of a durable artifact (syntax, "
      "component library, product checks, Query()/Mutation() handles against the configured "
      "connectors). A program that does not validate stores nothing and its problems come back "
      "with codes. Give `artifact` (an id or app slug) to write its next version; `patch: true` "
      "merges an edit-mode patch into that artifact's head.",
      Obj({{"program", Str("OpenUI Lang text", 1)},
           {"kind", {{"enum", {"inline", "panel", "live_app", "live-app"}}}},
           {"appSlug", Str("live_app only: [a-z0-9][a-z0-9-]{0,63}", 1)},
           {"title", Str("a title for the artifact")},
           {"artifact", Str("an artifact id or app slug to write the next version of", 1)},
           {"patch", {{"type", "boolean"}}},
           {"thread", Str("a thread whose connector reads ground the program (optional)", 1)}},
          {"program"}),
      Obj({{"artifact", kAnyObject}, {"bindings", kAnyObject}}, {"artifact", "bindings"}, false),
      "", "artifact version (a_..., version N)", "the artifact version row (open_artifact)"));
  DeclareCapability(Mcp(
      "open_artifact", "artifact", "read", Access::kClient, Mode::kRead,
      "Open a stored artifact (an id, or a live app's slug) at its head or a given version: its "
      "OpenUI Lang body, lineage, bindings (queries, mutations, sources) and whether it is live.",
      Obj({{"id", Str("artifact id (a_...) or live-app slug", 1)},
           {"version", {{"type", "integer"}, {"minimum", 0}}}},
          {"id"}),
      Obj({{"artifact", kAnyObject}}, {"artifact"}, false)));
}

// The operator session only: the human plane (decisions and grants).
void DeclareOperatorTools() {
  DeclareCapability(Mcp(
      "approve_action", "approval", "decide", Access::kPerson, Mode::kApprovedExecution,
      "Operator only: approve one staged effect (once). With execute: true it runs now, exactly "
      "once, and the result carries the receipt; otherwise the thread's next turn runs it.",
      Obj({{"id", Str("approval id (apr_...)", 1)},
           {"execute", {{"type", "boolean"}}},
           {"digest", Str("the request digest show_approval gave (8+ hex digits): refused if the "
                          "request differs",
                          8)}},
          {"id"}),
      Obj({{"approval", ApprovalSchema()},
           {"effectText", {{"type", "string"}}},
           {"message", {{"type", "string"}}}},
          {"approval", "message"}, false),
      "connector:<slug>:write", "approval decision; receipt rc_... when executed",
      "receipt (idempotency key, request, response, outcome) + fresh-read verification"));
  DeclareCapability(Mcp(
      "deny_action", "approval", "decide", Access::kPerson, Mode::kLocalState,
      "Operator only: deny one staged effect (once); nothing runs, the model is told why.",
      Obj({{"id", Str("approval id (apr_...)", 1)}, {"reason", Str("told to the model")}}, {"id"}),
      Obj({{"approval", ApprovalSchema()},
           {"effectText", {{"type", "string"}}},
           {"message", {{"type", "string"}}}},
          {"approval", "message"}, false),
      "", "Activity entry (deny)", "the approval's status denied"));
  DeclareCapability(
      Mcp("grant", "grant", "grant", Access::kPerson, Mode::kLocalState,
          "Operator only: grant read or write access to a connector (or one operation), optionally "
          "expiring.",
          Obj({{"connector", kConnector},
               {"operation", Str("only this operation (optional)", 1)},
               {"access", kAccessEnum},
               {"expiresInS", {{"type", "integer"}, {"minimum", 1}}}},
              {"connector", "access"}),
          Obj({{"grant", GrantSchema()}}, {"grant"}, false), "", "Activity entry (grant)",
          "the grant row and its Activity entry"));
  DeclareCapability(Mcp("revoke_grant", "grant", "revoke", Access::kPerson, Mode::kLocalState,
                        "Operator only: revoke a grant.",
                        Obj({{"id", Str("grant id (g_...)", 1)}}, {"id"}),
                        Obj({{"grant", GrantSchema()}}, {"grant"}, false), "",
                        "Activity entry (revoke)", "the grant's revokedMs"));
}

// Every MCP tool, declared at static initialisation (affordance capabilities lists them in this
// order).
const bool declared = [] {
  DeclareAsk();
  DeclareConnectorTools();
  DeclareApprovalTools();
  DeclareActivityTools();
  DeclareArtifactTools();
  DeclareOperatorTools();
  return true;
}();

// ---- helpers ------------------------------------------------------------------------------------

authority::Actor ActorOf(const mcp::Session& s) {
  if (s.operator_session()) {
    authority::Actor local = authority::Actor::LocalUser();
    return {local.name + "@mcp", true};
  }
  return {"mcp:" + s.client_name(), false};
}

std::string Arg(const json& args, const char* name) {
  auto it = args.find(name);
  return it != args.end() && it->is_string() ? it->get<std::string>() : "";
}

ToolResult Report(authority::Authority& auth, const std::string& id) {
  auto r = auth.Report(id);
  if (!r) return ToolResult::Fail(r.error());
  // The effect card in words (this machine's time zone), as the terminal and the CLI show it.
  std::string effect;
  for (const auto& line :
       connect::EffectLines(r->approval.effect, r->approval.expires_ms, store::NowMs())) {
    effect += (effect.empty() ? "" : "\n") + line;
  }
  return ToolResult::Ok(
      {{"approval", r->ToJson()}, {"effectText", effect}, {"message", r->ModelText()}});
}

json PlainJson(const nlohmann::ordered_json& j) {
  return json::parse(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Collects one turn's events for `ask` and answers when the turn ends: the prose and status come
// from the turn's TurnReport (kTurn), the surfaces, truth states and approvals from their events.
class AskCollector : public TurnSubscriber {
 public:
  AskCollector(std::string thread_id, mcp::ToolReply reply)
      : thread_id_(std::move(thread_id)), reply_(std::move(reply)) {}

  void OnEvent(const harness::Event& e) override {
    using harness::EventKind;
    std::lock_guard lock(mu_);
    switch (e.kind) {
      case EventKind::kStart:
        message_id_ = e.id;
        break;
      case EventKind::kSurface:
        if (!surfaces_.count(e.id)) surface_order_.push_back(e.id);
        surfaces_[e.id] = PlainJson(e.value);
        break;
      case EventKind::kTruth: {
        json truth = {{"toolCallId", e.id}, {"state", e.state}};
        if (!e.data_state.empty()) truth["dataState"] = e.data_state;
        truth_.push_back(std::move(truth));
        break;
      }
      case EventKind::kApproval:
        approvals_.push_back(PlainJson(e.value));
        break;
      case EventKind::kTurn:
        report_ = e.report;
        turn_ = PlainJson(e.value);
        break;
      case EventKind::kError:
        error_ = e.text;
        break;
      default:
        break;
    }
  }

  void OnEnd() override {
    ToolResult result;
    {
      std::lock_guard lock(mu_);
      if (!report_) {
        result = ToolResult::Fail(MakeError(
            "mcp.turn_failed", error_.empty() ? "the turn did not run" : error_, thread_id_));
      } else {
        const harness::TurnStatus status = report_->status;
        const std::string name(harness::TurnStatusName(status));
        if (status == harness::TurnStatus::kProviderError ||
            status == harness::TurnStatus::kHarnessError || !error_.empty()) {
          result = ToolResult::Fail(
              MakeError("mcp.turn_failed",
                        "the turn ended with " + name + (error_.empty() ? "" : ": " + error_),
                        thread_id_ + " " + message_id_));
        } else {
          json surfaces = json::array();
          for (const auto& id : surface_order_) surfaces.push_back(surfaces_[id]);
          // Each claim of the prose with its evidence class (docs/HARNESS.md "Evidence on
          // claims"), so a client sees "done" next to a denial as what it is.
          json claims = json::array();
          for (const auto& c : report_->claims) claims.push_back(c.ToJson());
          result = ToolResult::Ok({{"threadId", thread_id_},
                                   {"messageId", message_id_},
                                   {"status", name},
                                   {"text", report_->text},
                                   {"surfaces", surfaces},
                                   {"truth", truth_},
                                   {"approvals", approvals_},
                                   {"claims", claims},
                                   {"turn", turn_}});
        }
      }
    }
    reply_(std::move(result));
  }

 private:
  std::mutex mu_;
  const std::string thread_id_;
  mcp::ToolReply reply_;
  std::string message_id_, error_;
  std::map<std::string, json> surfaces_;
  std::vector<std::string> surface_order_;
  json truth_ = json::array();
  json approvals_ = json::array();
  json turn_;
  std::shared_ptr<const harness::TurnReport> report_;
};

}  // namespace

mcp::ServerInfo ProductInfo() {
  mcp::ServerInfo info;
  info.version = Version();
  info.instructions =
      "affordance: a local runtime for model-native apps. Use ask for questions in words; "
      "list_connectors and read_connector for governed data (reads need a grant: request_grant "
      "asks a person); stage_action to propose a write (a person approves it; show_approval "
      "follows it); read_activity for what happened. Never claim a write is done unless its "
      "approval state says executed or verified.";
  return info;
}

ProductTools::ProductTools(ProductToolsOptions options) : o_(options) {}

std::map<std::string, mcp::ToolFn> ProductTools::Functions() {
  auto sync = [this](ToolResult (ProductTools::*fn)(const mcp::ToolCall&)) -> mcp::ToolFn {
    return [this, fn](const mcp::ToolCall& c, mcp::ToolReply reply) { reply((this->*fn)(c)); };
  };
  return {
      {"ask", [this](const mcp::ToolCall& c, mcp::ToolReply reply) { Ask(c, std::move(reply)); }},
      {"read_connector", sync(&ProductTools::ReadConnector)},
      {"list_connectors", sync(&ProductTools::ListConnectors)},
      {"request_grant", sync(&ProductTools::RequestGrant)},
      {"stage_action", sync(&ProductTools::StageAction)},
      {"list_approvals", sync(&ProductTools::ListApprovals)},
      {"show_approval", sync(&ProductTools::ShowApproval)},
      {"read_activity", sync(&ProductTools::ReadActivity)},
      {"compose_ui", sync(&ProductTools::ComposeUi)},
      {"open_artifact", sync(&ProductTools::OpenArtifact)},
      {"approve_action", sync(&ProductTools::ApproveAction)},
      {"deny_action", sync(&ProductTools::DenyAction)},
      {"grant", sync(&ProductTools::GrantAccess)},
      {"revoke_grant", sync(&ProductTools::RevokeGrant)},
  };
}

void ProductTools::Ask(const mcp::ToolCall& c, mcp::ToolReply reply) {
  if (o_.hub == nullptr) {
    return reply(ToolResult::Fail(MakeError("mcp.no_turns", "this server runs no turns")));
  }
  const std::string text = Arg(c.arguments, "message");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return reply(ToolResult::Fail(
        MakeError(ErrorKind::kInvalid, "harness.empty_message", "the message has no text")));
  }
  std::string thread = Arg(c.arguments, "thread");
  if (thread.empty()) {
    auto created = o_.store->CreateThread("");  // titled by the harness (ThreadTitle)
    if (!created) return reply(ToolResult::Fail(created.error()));
    thread = created->id;
  } else if (!o_.store->GetThread(thread).ok()) {
    return reply(ToolResult::Fail(MakeError(ErrorKind::kNotFound, "server.unknown_thread",
                                            "no thread with this id", thread)));
  }
  auto turn = o_.hub->Submit(thread, text);
  if (!turn) return reply(ToolResult::Fail(turn.error()));
  (*turn)->Subscribe(std::make_shared<AskCollector>(thread, std::move(reply)));
  // The client's notifications/cancelled stops the turn (persisted as cancelled, like an abort).
  c.control->OnCancel([weak = std::weak_ptr<ActiveTurn>(*turn)] {
    if (auto t = weak.lock()) t->Cancel();
  });
}

ToolResult ProductTools::ReadConnector(const mcp::ToolCall& c) {
  if (o_.road == nullptr) {
    return ToolResult::Fail(MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                                      "no connector is configured (start with --connectors DIR)"));
  }
  auto command = connect::ParseConnectorCommand(c.arguments);
  if (!command) return ToolResult::Fail(command.error());
  if (o_.road->Find(command->connector) != nullptr) {
    std::string operation;
    if (command->request.is_object()) operation = command->request.value("operation", "");
    authority::Authority auth(*o_.store, o_.road);
    if (Status s = auth.AuthorizeRead(command->connector, operation, ActorOf(*c.session)); !s) {
      return ToolResult::Fail(s.error());
    }
  }
  auto result = o_.road->RunConnectorCommand(*command, nullptr);
  if (!result) return ToolResult::Fail(result.error());
  return ToolResult::Ok(connect::ToJson(*result));
}

ToolResult ProductTools::ListConnectors(const mcp::ToolCall&) {
  json out = json::array();
  if (o_.road == nullptr) return ToolResult::Ok({{"connectors", out}});
  authority::Authority auth(*o_.store, o_.road);
  auto grants = auth.Grants();
  if (!grants) return ToolResult::Fail(grants.error());
  for (const auto& m : o_.road->manifests()) {
    json ops = json::array();
    for (const auto& op : m.operations) {
      json j = {{"name", op.name},
                {"kind", connect::ToString(op.kind)},
                {"description", op.description},
                {"risk", connect::ToString(op.risk)},
                {"args", op.args_schema.is_null() ? json::object() : op.args_schema}};
      ops.push_back(std::move(j));
    }
    json g = json::array();
    const std::string scope = authority::GrantScope(m.slug);
    for (const auto& grant : *grants) {
      if (grant.scope == scope || grant.scope.rfind(scope + ":", 0) == 0) {
        g.push_back(grant.ToJson());
      }
    }
    json entry = {{"slug", m.slug},
                  {"title", m.title},
                  {"description", m.description},
                  {"operations", ops},
                  {"grants", g}};
    if (auto snap = o_.road->Snapshot(m.slug)) {
      entry["freshness"] = {{"state", snap->freshness.state},
                            {"syncedAt", snap->freshness.synced_at},
                            {"ageS", snap->freshness.age_s},
                            {"maxAgeS", snap->freshness.max_age_s},
                            {"mirrorRows", snap->freshness.mirror_rows}};
      entry["credentialState"] = snap->credential_state;
    }
    out.push_back(std::move(entry));
  }
  return ToolResult::Ok({{"connectors", out}});
}

ToolResult ProductTools::RequestGrant(const mcp::ToolCall& c) {
  const std::string connector = Arg(c.arguments, "connector");
  const std::string operation = Arg(c.arguments, "operation");
  const std::string access = Arg(c.arguments, "access");
  if (o_.road == nullptr || o_.road->Find(connector) == nullptr) {
    return ToolResult::Fail(
        MakeError(ErrorKind::kNotFound, "connect.unknown_connector", "no connector " + connector));
  }
  if (!operation.empty() && o_.road->Find(connector)->FindOperation(operation) == nullptr) {
    return ToolResult::Fail(MakeError(ErrorKind::kNotFound, "connect.unknown_operation",
                                      "connector " + connector + " has no operation " + operation));
  }
  const std::string scope = authority::GrantScope(connector, operation);
  const std::string command = "affordance grants grant " + connector +
                              (operation.empty() ? "" : " --operation " + operation) + " --" +
                              access;
  authority::Authority auth(*o_.store, o_.road);
  json out = {{"scope", scope}, {"access", access}, {"grantCommand", command}};
  if (auto live = auth.Check(connector, operation, access)) {
    out["granted"] = true;
    out["grant"] = live->ToJson();
    return ToolResult::Ok(out);
  }
  json data = {{"access", access}, {"reason", Arg(c.arguments, "reason")}, {"command", command}};
  if (Status s = auth.Log("grant_request", scope, ActorOf(*c.session), data); !s) {
    return ToolResult::Fail(s.error());
  }
  out["granted"] = false;
  return ToolResult::Ok(out);
}

ToolResult ProductTools::StageAction(const mcp::ToolCall& c) {
  authority::Authority auth(*o_.store, o_.road);
  authority::StageRequest req;
  req.connector = Arg(c.arguments, "connector");
  req.operation = Arg(c.arguments, "operation");
  req.args = c.arguments.value("args", json::object());
  req.evidence = c.arguments.value("evidence", json::object());
  req.evidence["staged_from"] = "mcp";
  auto staged = auth.Stage(req, ActorOf(*c.session));
  if (!staged) return ToolResult::Fail(staged.error());
  return Report(auth, staged->id);
}

ToolResult ProductTools::ListApprovals(const mcp::ToolCall& c) {
  auto list = o_.store->ListApprovals(Arg(c.arguments, "status"), Arg(c.arguments, "thread"));
  if (!list) return ToolResult::Fail(list.error());
  authority::Authority auth(*o_.store, o_.road);
  json out = json::array();
  for (const auto& a : *list) {
    auto r = auth.Report(a.id);
    if (!r) return ToolResult::Fail(r.error());
    out.push_back(r->ToJson());
  }
  return ToolResult::Ok({{"approvals", out}});
}

ToolResult ProductTools::ShowApproval(const mcp::ToolCall& c) {
  authority::Authority auth(*o_.store, o_.road);
  return Report(auth, Arg(c.arguments, "id"));
}

ToolResult ProductTools::ReadActivity(const mcp::ToolCall& c) {
  store::ActivityFilter f;
  f.kind = Arg(c.arguments, "kind");
  f.subject = Arg(c.arguments, "subject");
  f.since_ms = c.arguments.value("sinceMs", int64_t{0});
  f.limit = c.arguments.value("limit", int64_t{200});
  auto entries = o_.store->ListActivity(f);
  if (!entries) return ToolResult::Fail(entries.error());
  json out = json::array();
  for (const auto& e : *entries) out.push_back(e.ToJson());
  return ToolResult::Ok({{"activity", out}});
}

ToolResult ProductTools::ComposeUi(const mcp::ToolCall& c) {
  surface::ComposeRequest req;
  req.program = Arg(c.arguments, "program");
  if (c.arguments.contains("kind")) req.kind = Arg(c.arguments, "kind");
  req.app_slug = Arg(c.arguments, "appSlug");
  req.title = Arg(c.arguments, "title");
  req.artifact = Arg(c.arguments, "artifact");
  req.patch = c.arguments.value("patch", false);
  req.handles = surface::HandlesOf(o_.road);
  const std::string thread = Arg(c.arguments, "thread");
  if (!thread.empty()) {
    auto messages = o_.store->LoadThread(thread);
    if (!messages) return ToolResult::Fail(messages.error());
    req.thread_id = thread;
    req.evidence = surface::EvidenceOfThread(*messages, "");
  }
  surface::Composed composed = surface::SaveProgram(*o_.store, req);
  if (!composed.ok()) {
    json errors = json::array();
    for (const auto& e : composed.errors) {
      json j = {{"code", e.code}, {"message", e.message}};
      if (!e.component.empty()) j["component"] = e.component;
      if (!e.path.empty()) j["path"] = e.path;
      if (e.statement_id) j["statement"] = *e.statement_id;
      errors.push_back(std::move(j));
    }
    ToolResult r = ToolResult::Fail(*composed.error);
    r.error_data = {{"errors", errors}};
    return r;
  }
  auto opened = surface::OpenArtifact(*o_.store, composed.artifact.id, composed.version.version);
  if (!opened) return ToolResult::Fail(opened.error());
  return ToolResult::Ok({{"artifact", opened->ToJson()}, {"bindings", composed.bindings.ToJson()}});
}

ToolResult ProductTools::OpenArtifact(const mcp::ToolCall& c) {
  auto opened = surface::OpenArtifact(*o_.store, Arg(c.arguments, "id"),
                                      c.arguments.value("version", int64_t{0}));
  if (!opened) return ToolResult::Fail(opened.error());
  return ToolResult::Ok({{"artifact", opened->ToJson()}});
}

ToolResult ProductTools::ApproveAction(const mcp::ToolCall& c) {
  authority::Authority auth(*o_.store, o_.road);
  const std::string id = Arg(c.arguments, "id");
  auto decided = auth.Approve(id, ActorOf(*c.session), Arg(c.arguments, "digest"));
  if (!decided) return ToolResult::Fail(decided.error());
  if (c.arguments.value("execute", false)) {
    auto ran = auth.Execute(id);
    if (!ran) return ToolResult::Fail(ran.error());
  }
  return Report(auth, id);
}

ToolResult ProductTools::DenyAction(const mcp::ToolCall& c) {
  authority::Authority auth(*o_.store, o_.road);
  const std::string id = Arg(c.arguments, "id");
  auto decided = auth.Deny(id, ActorOf(*c.session), Arg(c.arguments, "reason"));
  if (!decided) return ToolResult::Fail(decided.error());
  return Report(auth, id);
}

ToolResult ProductTools::GrantAccess(const mcp::ToolCall& c) {
  authority::Authority auth(*o_.store, o_.road);
  const int64_t expires_in = c.arguments.value("expiresInS", int64_t{0});
  const int64_t expires = expires_in > 0 ? store::NowMs() + expires_in * 1000 : 0;
  auto g = auth.Grant(Arg(c.arguments, "connector"), Arg(c.arguments, "operation"),
                      Arg(c.arguments, "access"), expires, ActorOf(*c.session));
  if (!g) return ToolResult::Fail(g.error());
  return ToolResult::Ok({{"grant", g->ToJson()}});
}

ToolResult ProductTools::RevokeGrant(const mcp::ToolCall& c) {
  authority::Authority auth(*o_.store, o_.road);
  auto g = auth.Revoke(Arg(c.arguments, "id"), ActorOf(*c.session));
  if (!g) return ToolResult::Fail(g.error());
  return ToolResult::Ok({{"grant", g->ToJson()}});
}

}  // namespace affordance::server
