// Authority: exactly-once execution, receipts, verification by a fresh read, and reconcile
// (authority.h states the contract). The order of the writes is the whole point:
//
//   1. approved -> executing, idempotency key + receipt "dispatching": one transaction, BEFORE
//      anything is sent (a crash after this point can never lead to a second dispatch: the row
//      is no longer "approved", and nothing moves it back)
//   2. dispatch once (ConnectorRoad::Mutate)
//   3. receipt + status: executed | failed | outcome_unknown (never a retry)
//   4. verify by a fresh read (executed only)
#include "authority/authority.h"
#include "base/process_state.h"

#include "connect/mutate.h"
#include "connect/schema.h"

#include <unistd.h>

namespace affordance::authority {

namespace {

using nlohmann::json;

std::string ThisExecutor() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return std::to_string(::getpid()) + "@" + host;
}

// True when the executor recorded on a row can no longer finish it: another host is never
// assumed dead; on this host, the process is gone.
bool ExecutorGone(const std::string& executor) {
  size_t at = executor.find('@');
  if (at == std::string::npos) return true;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  if (executor.substr(at + 1) != host) return false;
  pid_t pid = static_cast<pid_t>(std::atol(executor.substr(0, at).c_str()));
  if (pid == ::getpid()) return false;
  return ProcessGone(pid);
}

// "$name" strings are replaced by bindings[name]; anything else stays.
json Substitute(const json& value, const json& bindings, std::string& missing) {
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s.size() > 1 && s[0] == '$') {
      std::string name = s.substr(1);
      if (bindings.contains(name)) return bindings[name];
      missing = name;
    }
    return value;
  }
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items()) out[k] = Substitute(v, bindings, missing);
    return out;
  }
  return value;
}

}  // namespace

std::string_view TruthStateOf(const std::string& state) {
  if (state == "verified") return "verified";
  if (state == "executed") return "executed";
  if (state == "outcome_unknown" || state == "executing") return "execution_outcome_unknown";
  if (state == "approved") return "approved";
  if (state == "refused") return "refused";
  if (state == "denied") return "denied";
  if (state == "expired") return "expired";
  return "";
}

json EffectReport::ToJson() const {
  json j = {
      {"approvalId", approval.id},
      {"state", state},
      {"status", approval.status},
      {"connector", approval.connector},
      {"operation", approval.operation},
      {"args", approval.args},
      {"risk", approval.risk},
      {"stagedBy", approval.staged_by},
      {"decidedBy", approval.decided_by},
      {"idempotencyKey", approval.idempotency_key},
      // The one policy today: every mutation needs one human decision and runs at most once.
      {"policy", {{"requiresApproval", true}, {"approver", "a person"}, {"maxExecutions", 1}}},
      {"evidence", approval.evidence},
      {"effect", approval.effect},
      {"digest", approval.digest.empty() ? RequestDigest(approval.request) : approval.digest},
      {"createdMs", approval.created_ms},
      {"expiresMs", approval.expires_ms}};
  if (!approval.reason.empty()) j["reason"] = approval.reason;
  if (receipt) {
    j["receipt"] = {{"id", receipt->id},
                    {"outcome", receipt->outcome},
                    {"verification", receipt->verification},
                    {"request", receipt->request},
                    {"response", receipt->response},
                    {"evidence", receipt->evidence},
                    {"startedMs", receipt->started_ms},
                    {"finishedMs", receipt->finished_ms}};
  }
  return j;
}

std::string EffectReport::ModelText() const {
  std::string what = approval.connector + "." + approval.operation + " " + approval.args.dump();
  std::string rc =
      receipt ? " (receipt " + receipt->id + ", idempotency key " + receipt->idempotency_key + ")"
              : "";
  if (state == "pending") {
    return "staged " + what + " as approval " + approval.id +
           ". Nothing has run: it waits for a person to approve or deny it. Tell the user it is "
           "awaiting their approval; do not claim it is done.";
  }
  if (state == "denied") {
    return "denied: a person denied approval " + approval.id + " (" + what + ")" +
           (approval.reason.empty() ? "" : ": " + approval.reason) +
           ". Nothing ran. Do not retry it unless the user asks again.";
  }
  if (state == "expired") {
    return "expired (authority.approval_expired): approval " + approval.id + " (" + what +
           ") expired before a person decided" +
           (approval.reason.empty() ? "" : ": " + approval.reason) +
           ". Nothing ran. Tell the user it expired and was not done; it runs only if staged again "
           "and approved in time.";
  }
  if (state == "verified") {
    return "verified: " + what + " ran once and a fresh read confirmed the effect" + rc + ".";
  }
  if (state == "executed") {
    std::string tier = receipt ? receipt->verification : "unverified";
    return "executed but not verified (" + tier + "): " + what + " ran once" + rc +
           "; no fresh read has confirmed the effect. Say exactly that.";
  }
  if (state == "outcome_unknown" || state == "executing") {
    return "execution_outcome_unknown: " + what +
           " was dispatched but whether it took effect is "
           "unknown" +
           rc + ". It will not be retried; `affordance reconcile` resolves it.";
  }
  if (state == "not_executed") {
    return "not executed: reconcile found that " + what + " did not take effect" + rc + ".";
  }
  if (state == "refused") {
    return "refused: " + what + " was approved but refused before it ran (" + approval.reason +
           "). Nothing was dispatched. Tell the user why; it runs only if staged and approved "
           "again.";
  }
  if (state == "failed") {
    std::string why = receipt ? receipt->response.value("error", json::object()).dump() : "";
    return "failed: the source refused " + what + rc + (why.empty() ? "" : ": " + why) +
           ". Nothing changed.";
  }
  return state + ": " + what;
}

Result<EffectReport> Authority::Report(const std::string& id) {
  auto a = Load(id);
  if (!a) return a.error();
  EffectReport r;
  r.approval = *a;
  auto receipts = store_.ReceiptsOf(id);
  if (!receipts) return receipts.error();
  if (!receipts->empty()) r.receipt = receipts->back();
  r.state = a->status;
  // Past its expiry and still undecided: expired, whether or not anything has settled the row yet.
  if (a->status == "pending" && a->expires_ms != 0 && Now() >= a->expires_ms) r.state = "expired";
  if (a->status == "executed" && r.receipt && r.receipt->verification == "verified") {
    r.state = "verified";
  }
  return r;
}

Result<EffectReport> Authority::Finish(store::ApprovalRecord a, store::ReceiptRecord receipt,
                                       const std::string& from_status) {
  a.updated_ms = Now();
  Status s = store_.Batch([&]() -> Status {
    if (Status w = store_.PutReceipt(receipt); !w) return w;
    return store_.UpdateApproval(a, from_status);
  });
  if (!s) return s.error();
  return Report(a.id);
}

Result<int> Authority::RecoverAbandoned() {
  auto executing = store_.ListApprovals("executing", "");
  if (!executing) return executing.error();
  int recovered = 0;
  for (const auto& a : *executing) {
    if (!ExecutorGone(a.executor)) continue;
    auto receipts = store_.ReceiptsOf(a.id);
    if (!receipts) return receipts.error();
    store::ApprovalRecord next = a;
    next.status = "outcome_unknown";
    next.updated_ms = Now();
    Status s = store_.Batch([&]() -> Status {
      if (!receipts->empty()) {
        store::ReceiptRecord r = receipts->back();
        r.outcome = "outcome_unknown";
        r.finished_ms = Now();
        r.evidence["recovery"] = {{"executor_gone", a.executor}};
        if (Status w = store_.PutReceipt(r); !w) return w;
      }
      if (Status w = store_.UpdateApproval(next, "executing"); !w) return w;
      return Log("recover", a.id, Actor::System(),
                 {{"from", "executing"}, {"to", "outcome_unknown"}, {"executor", a.executor}});
    });
    if (!s) {
      if (s.error().code == "store.conflict") continue;  // another process moved it first
      return s.error();
    }
    ++recovered;
  }
  return recovered;
}

Error Authority::Refuse(const store::ApprovalRecord& a, Error why) {
  // Approved, but refused before anything was dispatched: a final state with its reason, in the
  // store and in Activity, so no door can go on calling it approved.
  store::ApprovalRecord next = a;
  next.status = "refused";
  next.reason = why.code + ": " + why.message;
  next.updated_ms = Now();
  (void)store_.Batch([&]() -> Status {
    if (Status w = store_.UpdateApproval(next, "approved"); !w) return w;
    return Log("refuse", a.id, Actor::System(),
               {{"code", why.code},
                {"message", why.message},
                {"connector", a.connector},
                {"operation", a.operation},
                {"args", a.args}});
  });
  return why;
}

Result<EffectReport> Authority::Execute(const std::string& id) {
  auto loaded = Load(id);
  if (!loaded) return loaded.error();
  store::ApprovalRecord a = *loaded;
  if (a.status == "pending") {
    return MakeError(ErrorKind::kConflict, "authority.not_approved",
                     "approval " + id +
                         " is pending; a person must approve it first: "
                         "affordance approvals approve " +
                         id);
  }
  if (a.status == "denied") {
    return MakeError(ErrorKind::kConflict, "authority.denied",
                     "approval " + id + " was denied; nothing runs");
  }
  if (a.status == "refused") {
    return MakeError(ErrorKind::kConflict, "authority.refused",
                     "approval " + id + " was refused before it ran (" + a.reason +
                         "); nothing runs. Stage it again for a new decision");
  }
  if (a.status != "approved") {
    return MakeError(ErrorKind::kConflict, "authority.already_executed",
                     "approval " + id + " is " + a.status +
                         "; an approval runs one effect once (see its receipt with: affordance "
                         "approvals show " +
                         id + ")");
  }
  // The approval must be for exactly this effect: the request the person approved must still be
  // the one the row describes (a row edited after the decision runs nothing).
  std::string request = RequestText(a.connector, a.operation, a.args);
  if (a.decided_request != request || a.request != request ||
      (!a.digest.empty() && a.digest != RequestDigest(request))) {
    return Refuse(
        a, MakeError("authority.approval_mismatch",
                     "approval " + id + " does not match the effect it would run; nothing ran",
                     "approved: " + a.decided_request + "; now: " + request));
  }
  auto found = Mutation(a.connector, a.operation);
  if (!found) return Refuse(a, found.error());
  const auto [m, op] = *found;
  if (Status v = connect::ValidateArgs(op->args_schema, a.args); !v) {
    return Refuse(a, MakeError(ErrorKind::kInvalid, "authority.bad_args", v.error().message));
  }
  if (Status v = connect::CheckMutationArgs(*m, *op, a.args); !v) {
    return Refuse(a, MakeError(ErrorKind::kInvalid, "authority.bad_args", v.error().message));
  }
  if (auto grant = Check(a.connector, a.operation, "write"); !grant) {
    return Refuse(a, grant.error());
  }

  // 1. Claim: the key and a "dispatching" receipt are durable before anything is sent.
  store::ApprovalRecord claimed = a;
  claimed.status = "executing";
  claimed.idempotency_key = IdempotencyKeyOf(a.id);
  claimed.executor = ThisExecutor();
  claimed.updated_ms = Now();
  store::ReceiptRecord receipt;
  receipt.id = "rc_" + a.id.substr(a.id.find('_') + 1);
  receipt.approval_id = a.id;
  receipt.idempotency_key = claimed.idempotency_key;
  receipt.request = {{"connector", a.connector},
                     {"operation", a.operation},
                     {"args", a.args},
                     {"idempotency_key", claimed.idempotency_key}};
  receipt.outcome = "dispatching";
  receipt.started_ms = Now();
  Status claim = store_.Batch([&]() -> Status {
    if (Status w = store_.UpdateApproval(claimed, "approved"); !w) return w;
    return store_.PutReceipt(receipt);
  });
  if (!claim) {
    if (claim.error().code == "store.conflict") {
      return MakeError(ErrorKind::kConflict, "authority.already_executed",
                       "approval " + id +
                           " is already being executed or was executed; an "
                           "approval runs one effect once");
    }
    return claim.error();
  }
  if (options_.probe) options_.probe("claimed");

  // 2. Dispatch once.
  connect::MutationOutcome out = road_->Mutate(*m, *op, a.args, claimed.idempotency_key);
  if (options_.probe) options_.probe("dispatched");

  // 3. The receipt says what happened.
  receipt.finished_ms = Now();
  receipt.response = out.response;
  receipt.outcome = connect::DispatchName(out.dispatch);
  if (out.dispatch != connect::MutationOutcome::Dispatch::kExecuted) {
    receipt.response["error"] = {{"code", out.error.code}, {"message", out.error.ToString()}};
  }
  store::ApprovalRecord done = claimed;
  done.status = receipt.outcome;
  // 4. Verify by a fresh read.
  if (out.dispatch == connect::MutationOutcome::Dispatch::kExecuted) Verify(*m, *op, done, receipt);
  (void)Log("execute", a.id, Actor::System(),
            {{"outcome", receipt.outcome},
             {"idempotency_key", receipt.idempotency_key},
             {"receipt", receipt.id}});
  if (!receipt.verification.empty()) {
    (void)Log("verify", a.id, Actor::System(),
              {{"verification", receipt.verification}, {"evidence", receipt.evidence}});
  }
  return Finish(done, receipt, "executing");
}

Result<std::optional<bool>> Authority::FreshRead(const connect::ConnectorManifest& m,
                                                 const connect::Operation& op,
                                                 const store::ApprovalRecord& a,
                                                 const json& response, json& evidence) {
  if (op.verify_operation.empty() && m.source.kind == connect::SourceKind::kIcs &&
      op.effect == "update") {
    // A calendar update (a recurring one above all) is verified by reading the file again: the
    // VEVENT its scope names holds every value it set.
    auto read = connect::ReadCalendarUpdate(m, a.args, response);
    if (!read) return read.error();
    evidence = *read;
    return std::optional<bool>(evidence.value("shows", false));
  }
  if (op.verify_operation.empty()) return std::optional<bool>();
  json bindings = a.args;
  bindings["idempotency_key"] = a.idempotency_key;
  if (response.is_object()) {
    for (const auto& [k, v] : response.items()) {
      if (!bindings.contains(k)) bindings[k] = v;
    }
  }
  std::string missing;
  json args = Substitute(op.verify_args, bindings, missing);
  json expect = Substitute(op.verify_expect, bindings, missing);
  evidence = {{"operation", op.verify_operation}, {"args", args}};
  if (!missing.empty()) {
    return MakeError("authority.verify_unbound", "the verify read needs \"$" + missing +
                                                     "\", which neither the args nor the "
                                                     "source's response has");
  }
  connect::ConnectorCommand cmd;
  cmd.connector = m.slug;
  cmd.request = {{"operation", op.verify_operation}, {"args", args}};
  cmd.limit = 20;
  if (m.Supports(connect::SourceMode::kLive)) cmd.mode = connect::SourceMode::kLive;
  auto read = road_->RunConnectorCommand(cmd);
  if (!read) {
    if (read.error().code != "connect.not_found") return read.error();
    evidence["rows"] = json::array();
  } else {
    evidence["rows"] = read->rows;
    evidence["freshness"] = read->mirror_snapshot.freshness.state;
  }
  bool any_match = false;
  for (const auto& row : evidence["rows"]) {
    bool match = true;
    for (const auto& [k, v] : expect.items()) match = match && row.contains(k) && row[k] == v;
    any_match = any_match || match;
  }
  bool shows = op.verify_absent ? evidence["rows"].empty() : any_match;
  evidence["expect"] = op.verify_absent ? json("absent") : expect;
  return std::optional<bool>(shows);
}

void Authority::Verify(const connect::ConnectorManifest& m, const connect::Operation& op,
                       const store::ApprovalRecord& a, store::ReceiptRecord& receipt) {
  json evidence;
  auto shows = FreshRead(m, op, a, receipt.response, evidence);
  receipt.verified_ms = Now();
  if (!shows) {
    receipt.verification = "verify_failed";
    evidence["error"] = {{"code", shows.error().code}, {"message", shows.error().message}};
  } else if (!shows->has_value()) {
    receipt.verification = "unverified";
    evidence = {{"reason", "the mutation declares no verify read"}};
  } else {
    receipt.verification = **shows ? "verified" : "verify_failed";
  }
  receipt.evidence["verify"] = evidence;
}

Result<EffectReport> Authority::Reconcile(const std::string& id) {
  auto loaded = Load(id);
  if (!loaded) return loaded.error();
  store::ApprovalRecord a = *loaded;
  const std::string from = a.status;
  if (from == "executing" && !ExecutorGone(a.executor)) {
    return MakeError("authority.cannot_reconcile",
                     "approval " + id + " is being executed by " + a.executor + " right now");
  }
  if (from != "outcome_unknown" && from != "executing") return Report(id);
  auto found = Mutation(a.connector, a.operation);
  if (!found) return found.error();
  const auto [m, op] = *found;
  auto receipts = store_.ReceiptsOf(id);
  if (!receipts) return receipts.error();
  store::ReceiptRecord receipt = receipts->empty() ? store::ReceiptRecord{} : receipts->back();
  if (receipt.id.empty()) {
    receipt.id = "rc_" + a.id.substr(a.id.find('_') + 1);
    receipt.approval_id = a.id;
    receipt.idempotency_key = a.idempotency_key;
    receipt.started_ms = Now();
  }
  json evidence = {{"from", from}};
  if (from == "executing") evidence["executor_gone"] = a.executor;
  std::optional<bool> happened;
  auto lookup = connect::LookupIdempotencyKey(*m, *op, a.idempotency_key);
  if (!lookup) return lookup.error();
  if (lookup->supported) {
    happened = lookup->found;
    evidence["by"] = "idempotency_key_lookup";
    evidence["lookup"] = lookup->response;
    if (lookup->found && lookup->response.is_object()) {
      for (const auto& [k, v] : lookup->response.items()) receipt.response[k] = v;
    }
  } else {
    json read;
    auto shows = FreshRead(*m, *op, a, receipt.response, read);
    if (!shows) return shows.error();
    evidence["by"] = "fresh_read";
    evidence["read"] = read;
    if (shows->has_value()) happened = **shows;  // FreshRead already inverts it for verify_absent
  }
  if (!happened) {
    return MakeError("authority.cannot_reconcile",
                     "approval " + id + " cannot be reconciled: " + a.connector + "." +
                         a.operation +
                         " has no idempotency-key lookup and no verify read; "
                         "check the source by hand");
  }
  receipt.outcome = *happened ? "executed" : "not_executed";
  receipt.finished_ms = Now();
  receipt.evidence["reconcile"] = evidence;
  a.status = receipt.outcome;
  if (*happened) Verify(*m, *op, a, receipt);
  (void)Log("reconcile", id, Actor::System(),
            {{"from", from}, {"outcome", receipt.outcome}, {"evidence", evidence}});
  if (*happened) {
    (void)Log("verify", id, Actor::System(), {{"verification", receipt.verification}});
  }
  return Finish(a, receipt, from);
}

Result<std::vector<EffectReport>> Authority::ReconcileAll() {
  std::vector<EffectReport> out;
  for (const char* status : {"executing", "outcome_unknown"}) {
    auto list = store_.ListApprovals(status, "");
    if (!list) return list.error();
    for (const auto& a : *list) {
      if (std::string(status) == "executing" && !ExecutorGone(a.executor)) continue;
      auto r = Reconcile(a.id);
      if (!r) return r.error();
      out.push_back(std::move(*r));
    }
  }
  return out;
}

}  // namespace affordance::authority
