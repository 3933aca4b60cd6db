// Authority: capability and permission are separate axes (docs/AUTHORITY.md). A connector can
// declare a mutation (capability); whether anything may run is decided here, through grants and a
// human decision, and every step leaves a durable record:
//
//   grant     a person grants read or write on a connector (or one operation), optionally expiring
//   read      needs a read grant (AuthorizeRead, called by the harness before every connector read)
//   stage     the model (invoke_mutation) or a person stages an exact mutation with schema-valid
//             args; needs a write grant; writes an approval request (status pending), runs nothing
//   decide    only a human Actor approves or denies, once (compare-and-set on the stored status);
//             the approval records the exact request it approved
//   execute   approved -> executing: the idempotency key and a "dispatching" receipt are committed
//             BEFORE dispatch; the source is called once; the receipt records the outcome:
//             executed, failed (the source definitely did not apply it) or outcome_unknown (a
//             timeout or crash after dispatch). Nothing is ever retried automatically
//   verify    after executed: a fresh read (the mutation's `verify`) proves the effect (verified)
//             or does not (verify_failed); without one the receipt says unverified
//   reconcile outcome_unknown (or an "executing" row whose process died) -> executed or
//             not_executed, by the source's idempotency-key lookup or the fresh read, with the
//             evidence in the receipt
// Every grant, read, stage, decision, execution, verification and reconcile appends to Activity.
//
// Errors (codes): authority.no_grant / authority.grant_expired (message names the grant to
// request), authority.unknown_mutation, authority.not_a_mutation, authority.bad_args,
// authority.unknown_approval, authority.not_human, authority.already_decided, authority.denied,
// authority.not_approved, authority.already_executed, authority.approval_mismatch,
// authority.cannot_reconcile, authority.unknown_grant, authority.no_connectors,
// authority.approval_expired, authority.refused, store.* errors.
//
// Thread safety: one Authority per thread; several processes may share one store (every state
// move is a compare-and-set on the stored status).
#pragma once

#include "base/result.h"
#include "connect/road.h"
#include "store/store.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::authority {

struct Actor {
  std::string name;  // "user:<login>", "model", "system"
  bool human = false;
  static Actor Model() { return {"model", false}; }
  static Actor System() { return {"system", false}; }
  static Actor User(const std::string& login) { return {"user:" + login, true}; }
  // The local user running this process ($USER).
  static Actor LocalUser();
};

struct AuthorityOptions {
  std::function<int64_t()> clock_ms;  // default store::NowMs
  // Test seam for fault injection: called with "claimed" (key and receipt committed, nothing
  // dispatched yet) and "dispatched" (the source answered, the receipt not yet written).
  std::function<void(std::string_view phase)> probe;
  // How long a staged effect waits for a decision (it also ends with the write grant that allowed
  // it, whichever is first). Approving it later is authority.approval_expired.
  int64_t approval_ttl_ms = 7LL * 24 * 3600 * 1000;
};

struct StageRequest {
  std::string connector;
  std::string operation;
  nlohmann::json args = nlohmann::json::object();
  nlohmann::json evidence = nlohmann::json::object();  // what the request rests on
  std::string thread_id, message_id, tool_call_id;     // the staging call, if a model staged it
};

// An approval with its latest receipt, and the weakest true state of its effect.
struct EffectReport {
  store::ApprovalRecord approval;
  std::optional<store::ReceiptRecord> receipt;
  // pending | approved | denied | expired | refused | executing | executed | verified | failed |
  // outcome_unknown | not_executed ("expired": no person decided before its expiry, or its
  // write grant ended first; nothing ran, like a denial)
  std::string state;
  nlohmann::json ToJson() const;
  // What the model reads as the staging call's result.
  std::string ModelText() const;
};

// "connector:<slug>" or "connector:<slug>:<operation>".
std::string GrantScope(const std::string& connector, const std::string& operation = "");
// The canonical text of an exact effect (what an approval approves).
std::string RequestText(const std::string& connector, const std::string& operation,
                        const nlohmann::json& args);
// SHA-256 of a request text, lowercase hex: the digest a person's decision names.
std::string RequestDigest(const std::string& request);
// The idempotency key an approval's one execution is dispatched with ("idem-<approval id>"): known
// when the write is staged, so the effect card can show the exact argv of a printed CLI.
std::string IdempotencyKeyOf(const std::string& approval_id);

class Authority {
 public:
  // `road` may be null (no connectors: staging and execution fail with authority.no_connectors).
  Authority(store::Store& store, connect::ConnectorRoad* road, AuthorityOptions options = {});

  // Grants. `operation` "" covers every operation of the connector. expires_ms 0 = never.
  Result<store::GrantRecord> Grant(const std::string& connector, const std::string& operation,
                                   const std::string& access, int64_t expires_ms, const Actor& by);
  Result<store::GrantRecord> Revoke(const std::string& grant_id, const Actor& by);
  // Grants not revoked (expired ones included, marked by their expires_ms).
  Result<std::vector<store::GrantRecord>> Grants();
  // The live grant covering access ("read" | "write") to connector/operation, or
  // authority.no_grant / authority.grant_expired naming the command that grants it.
  Result<store::GrantRecord> Check(const std::string& connector, const std::string& operation,
                                   const std::string& access);
  // Check(read) and an Activity "read" entry (allowed or refused).
  Status AuthorizeRead(const std::string& connector, const std::string& operation, const Actor& by);

  Result<store::ApprovalRecord> Stage(const StageRequest& request, const Actor& by);
  // `digest` (optional, a prefix of 8+ hex digits) names the request the person saw: a request
  // that differs is authority.approval_mismatch. After its expiry: authority.approval_expired.
  Result<store::ApprovalRecord> Approve(const std::string& approval_id, const Actor& by,
                                        const std::string& digest = "");
  Result<store::ApprovalRecord> Deny(const std::string& approval_id, const Actor& by,
                                     const std::string& reason);
  // Settles a pending approval whose expiry has passed: status "expired" (compare-and-set from
  // pending), its reason saying why (it waited its whole time, or the write grant that allowed it
  // ended first) and an Activity "expire" entry. Nothing runs, as for a denial. Returns the row as
  // it now is: unchanged when it is not pending or not yet due.
  Result<store::ApprovalRecord> Expire(const std::string& approval_id);
  // Runs an approved effect once (see the file comment).
  Result<EffectReport> Execute(const std::string& approval_id);
  Result<EffectReport> Reconcile(const std::string& approval_id);
  // At startup: every "executing" approval whose process is gone becomes outcome_unknown at once
  // (its receipt too, and an Activity "recover" entry), so no door shows it as still running.
  // Nothing is dispatched or read; `reconcile` settles them. Returns how many moved.
  Result<int> RecoverAbandoned();
  // Reconciles every outcome_unknown approval and every "executing" one whose process is gone.
  Result<std::vector<EffectReport>> ReconcileAll();
  Result<EffectReport> Report(const std::string& approval_id);
  // Records that the model has been told the outcome (the harness, once per approval).
  Status MarkReported(const std::string& approval_id);

  Status Log(const std::string& kind, const std::string& subject, const Actor& actor,
             nlohmann::json data);

 private:
  int64_t Now() const;
  Result<store::ApprovalRecord> Load(const std::string& approval_id);
  Result<std::pair<std::shared_ptr<const connect::ConnectorManifest>, const connect::Operation*>>
  Mutation(const std::string& connector, const std::string& operation);
  Result<store::ApprovalRecord> Decide(const std::string& approval_id, const Actor& by,
                                       bool approve, const std::string& reason,
                                       const std::string& digest);
  // The effect card of a request about to be staged, with the fresh read of an update or delete
  // and, for a calendar, the scope of a recurring event's change. Error (kInvalid): args the
  // fresh read shows cannot be written (an occurrence the series does not have).
  Result<nlohmann::json> Effect(const connect::ConnectorManifest& m, const connect::Operation& op,
                                const nlohmann::json& args, const std::string& key);
  // The first read of `operation` with `args`, live where the source allows (nullopt: no row).
  Result<std::optional<nlohmann::json>> ReadOne(const connect::ConnectorManifest& m,
                                                const std::string& operation,
                                                const nlohmann::json& args);
  // The fresh read of the mutation's `verify`: fills verification + evidence of `receipt`.
  void Verify(const connect::ConnectorManifest& m, const connect::Operation& op,
              const store::ApprovalRecord& a, store::ReceiptRecord& receipt);
  // Whether the `verify` read shows the effect now (nullopt: no verify declared).
  Result<std::optional<bool>> FreshRead(const connect::ConnectorManifest& m,
                                        const connect::Operation& op,
                                        const store::ApprovalRecord& a,
                                        const nlohmann::json& response, nlohmann::json& evidence);
  // approved -> refused (a final state) with `why` as its reason and an Activity "refuse" entry;
  // returns `why`.
  Error Refuse(const store::ApprovalRecord& a, Error why);
  Result<EffectReport> Finish(store::ApprovalRecord a, store::ReceiptRecord receipt,
                              const std::string& from_status);

  store::Store& store_;
  connect::ConnectorRoad* road_;
  AuthorityOptions options_;
};

// The truth state an EffectReport state maps to ("verified" -> verified, "executed" -> executed,
// "outcome_unknown" -> execution_outcome_unknown, "approved" -> approved, "refused" -> refused,
// "denied" -> denied); "" for the others.
std::string_view TruthStateOf(const std::string& effect_state);

}  // namespace affordance::authority
