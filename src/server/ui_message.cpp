#include "server/ui_message.h"

#include "harness/evidence.h"

namespace affordance::server {
namespace {

using ojson = nlohmann::ordered_json;

ojson Ordered(const nlohmann::json& j) { return ojson::parse(j.dump()); }

std::string ToolState(const std::string& status) {
  if (status == "output-available") return "output-available";
  if (status == "approval-requested") return "approval-requested";
  if (status == "output-denied") return "output-denied";
  if (status == "input-streaming") return "input-streaming";
  if (status == "input-available") return "input-available";
  return "output-error";  // output-error, input-error, cancelled, interrupted
}

void AddTool(const store::PartRecord& p, const Approvals* approvals, ojson& parts) {
  const nlohmann::json& d = p.data;
  const std::string name = d.value("toolName", "");
  std::string state = ToolState(d.value("status", ""));
  ojson part = {{"type", "tool-" + name}, {"toolCallId", p.key}, {"state", state}};
  part["input"] = d.contains("input") ? Ordered(d["input"]) : ojson::object();
  if (state == "approval-requested") {
    // Staged, waiting for a person. Decided since (e.g. `affordance approvals approve`) but not
    // yet run by a continuation: the decision is shown, so no second one is asked for.
    const std::string id = d.value("approvalId", "");
    ojson approval = {{"id", id}};
    const auto it = approvals ? approvals->find(id) : Approvals::const_iterator();
    if (approvals && it != approvals->end() && it->second.status == "expired") {
      // Expired undecided (its result not yet rewritten by a turn): closed like a denial.
      state = "output-denied";
      approval["approved"] = false;
      if (!it->second.reason.empty()) approval["reason"] = it->second.reason;
    } else if (approvals && it != approvals->end() && it->second.status != "pending") {
      state = "approval-responded";
      approval["approved"] = it->second.status != "denied";
      if (!it->second.reason.empty()) approval["reason"] = it->second.reason;
    }
    part["state"] = state;
    part["approval"] = std::move(approval);
  } else if (state == "output-available") {
    part["output"] = d.contains("output") ? Ordered(d["output"]) : ojson(nullptr);
  } else if (state == "output-error") {
    std::string text = d.value("errorText", "");
    if (text.empty()) text = d.value("status", "error");
    const std::string code = d.value("errorCode", "");
    part["errorText"] = code.empty() ? text : code + ": " + text;
  }
  parts.push_back(std::move(part));
  ojson truth = {{"toolCallId", p.key}, {"state", p.state}};
  if (d.contains("dataState") && d["dataState"].is_string()) truth["dataState"] = d["dataState"];
  if (d.contains("ref") && d["ref"].is_string()) truth["ref"] = d["ref"];
  parts.push_back({{"type", "data-truth"}, {"id", p.key}, {"data", std::move(truth)}});
  const std::string approval_id = d.value("approvalId", "");
  if (const auto it = approvals ? approvals->find(approval_id) : Approvals::const_iterator();
      !approval_id.empty() && approvals && it != approvals->end()) {
    // The effect card the person decided on, as the stream's data-approval carried it.
    const store::ApprovalRecord& a = it->second;
    // The report's state (verified, not only executed) when the call's result was written from
    // the row as it still is; else the row's status, which has moved on since.
    std::string state = a.status;
    if (const auto out = d.find("output"); out != d.end() && out->is_object() &&
                                           out->value("approvalId", "") == approval_id &&
                                           out->value("status", "") == a.status) {
      state = out->value("state", a.status);
    }
    ojson data = {
        {"approvalId", approval_id},   {"toolCallId", p.key},     {"state", state},
        {"status", a.status},          {"truth", p.state},        {"connector", a.connector},
        {"operation", a.operation},    {"args", Ordered(a.args)}, {"risk", a.risk},
        {"effect", Ordered(a.effect)}, {"digest", a.digest},      {"createdMs", a.created_ms},
        {"expiresMs", a.expires_ms}};
    if (!a.decided_by.empty()) data["decidedBy"] = a.decided_by;
    if (!a.reason.empty()) data["reason"] = a.reason;
    parts.push_back({{"type", "data-approval"}, {"id", approval_id}, {"data", std::move(data)}});
  }
}

}  // namespace

ojson ToUiMessage(const store::MessageRecord& m, const Approvals* approvals) {
  ojson parts = ojson::array();
  for (const auto& p : m.parts) {
    if (p.kind == "text" || p.kind == "reasoning") {
      const std::string text = p.data.value("text", "");
      ojson part = {{"type", p.kind}, {"text", text}, {"state", "done"}};
      // The citations as they were resolved when the model wrote them (text-end's, the same).
      if (p.kind == "text" && p.data.contains("citations")) {
        ojson cited = Ordered(harness::AiSdkCitations(text, p.data["citations"]));
        if (!cited.empty()) part["citations"] = std::move(cited);
      }
      parts.push_back(std::move(part));
    } else if (p.kind == "tool") {
      AddTool(p, approvals, parts);
    } else if (p.kind == "surface") {
      ojson data = Ordered(p.data);
      data["state"] = p.state;
      parts.push_back({{"type", "data-surface"}, {"id", p.key}, {"data", std::move(data)}});
    }
  }
  if (m.role == "assistant" && m.status != "running" && !m.meta.empty()) {
    ojson data = Ordered(m.meta);
    // A turn that never wrote its report (the process died: recovery marked it interrupted)
    // still says how it ended.
    if (!data.contains("status")) data["status"] = m.status;
    if (m.status == "interrupted" && !data.contains("error")) {
      data["error"] = {{"code", "harness.interrupted"},
                       {"message",
                        "the process running this turn stopped before it finished; "
                        "what it wrote before is kept"}};
    }
    parts.push_back({{"type", "data-turn"}, {"id", m.id}, {"data", std::move(data)}});
  }
  return {{"id", m.id},
          {"role", m.role},
          {"metadata", {{"threadId", m.thread_id}, {"status", m.status}}},
          {"parts", std::move(parts)}};
}

ojson ToUiMessages(const std::vector<store::MessageRecord>& messages,
                   const std::string& skip_message_id, const Approvals* approvals) {
  ojson out = ojson::array();
  bool continues = false;  // the previous stored message was the assistant's
  for (const auto& m : messages) {
    if (!skip_message_id.empty() && m.id == skip_message_id) continue;
    ojson ui = ToUiMessage(m, approvals);
    if (continues && m.role == "assistant") {
      // A continuation (after an approval decision) is part of the same response.
      ojson& into = out.back();
      for (auto& p : ui["parts"]) into["parts"].push_back(std::move(p));
      into["metadata"]["status"] = ui["metadata"]["status"];
    } else {
      out.push_back(std::move(ui));
    }
    continues = m.role == "assistant";
  }
  return out;
}

}  // namespace affordance::server
