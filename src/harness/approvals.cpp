// Harness::ResolveApprovals: the seam between a human decision and the model. Runs between
// turns, before the next turn's first model step (harness.h).
#include "harness/frame_text.h"
#include "harness/harness.h"

namespace affordance::harness {

namespace {

// Final states: the model is told once. Others (approved but refused to run, executing,
// outcome_unknown) are written again on the next turn until they settle.
bool Settled(const std::string& state) {
  return state == "verified" || state == "executed" || state == "denied" || state == "expired" ||
         state == "failed" || state == "not_executed" || state == "refused";
}

}  // namespace

std::vector<nlohmann::ordered_json> Harness::ResolveApprovals(const std::string& thread_id) {
  std::vector<nlohmann::ordered_json> chunks;
  auto approvals = store_.ListApprovals("", thread_id);
  if (!approvals) return chunks;
  for (auto a : *approvals) {
    if (a.reported || a.tool_call_id.empty()) continue;
    if (a.status == "pending") {
      // Undecided past its expiry (its time, or its write grant, ran out): settled like a denial,
      // so the model is told it expired instead of reading that it still waits.
      auto settled = authority_->Expire(a.id);
      if (!settled || settled->status != "expired") continue;
      a = std::move(*settled);
    }
    std::optional<Error> refused;
    if (a.status == "approved") {
      if (auto ran = authority_->Execute(a.id); !ran) refused = ran.error();
    }
    auto report = authority_->Report(a.id);
    if (!report) continue;
    std::string text = report->ModelText();
    if (refused && report->state != "refused") {  // e.g. the store failed: said as it is
      text = "approved, but it could not run: error " + refused->code + ": " + refused->ToString() +
             ". Nothing was dispatched.";
    }
    auto message = store_.LoadMessage(a.message_id);
    if (!message) continue;
    for (auto p : message->parts) {
      if (p.kind != "tool" || p.key != a.tool_call_id) continue;
      // Expired is a denial by time: the call's result says so, and nothing ran.
      const bool denied = report->state == "denied" || report->state == "expired";
      // Refused (a final state with its reason) is an outcome like any other; only an error that
      // left the approval where it was is an error of this call.
      const bool stuck = refused && report->state == "approved";
      p.data["status"] = denied ? "output-denied" : stuck ? "output-error" : "output-available";
      if (stuck) {
        p.data["errorCode"] = refused->code;
        p.data["errorText"] = refused->ToString();
      }
      p.data["output"] = report->ToJson();
      // The call keeps its reference: a citation of it now reads the outcome.
      p.data["resultText"] =
          EvidenceText(p.data.value("toolName", "invoke_mutation"), text, p.data.value("ref", ""));
      if (auto truth = authority::TruthStateOf(report->state); !truth.empty()) {
        p.state = std::string(truth);
      }
      p.open = false;
      if (!store_.PutPart(message->id, p)) break;
      if (Settled(report->state)) (void)authority_->MarkReported(a.id);
      nlohmann::ordered_json chunk = nlohmann::ordered_json::parse(report->ToJson().dump());
      chunk["toolCallId"] = a.tool_call_id;
      if (!p.state.empty()) chunk["truth"] = p.state;
      chunks.push_back(std::move(chunk));
      break;
    }
  }
  return chunks;
}

}  // namespace affordance::harness
