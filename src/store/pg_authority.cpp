// PgStore: the authority tables (schema version 2), as authority_store.cpp. UpdateApproval is one
// conditional UPDATE, so of two nodes deciding (or claiming) one approval exactly one wins.
// Activity's seq follows commit order across nodes: AppendActivity holds a lock against other
// appenders until its transaction ends, so no entry can commit after a later-numbered one.
#include "store/internal/codec.h"
#include "store/internal/pg_store.h"

namespace affordance::store::internal {

namespace {

constexpr std::string_view kApprovalColumns =
    "SELECT id, thread_id, message_id, tool_call_id, connector, operation, risk, args, evidence, "
    "staged_by, status, request, decided_request, decided_by, reason, idempotency_key, executor, "
    "reported, created_ms, updated_ms, decided_ms, effect, digest, expires_ms FROM approvals ";

Result<ApprovalRecord> ApprovalRow(const PgRows& s, int r) {
  ApprovalRecord a;
  a.id = s.Str(r, 0);
  a.thread_id = s.Str(r, 1);
  a.message_id = s.Str(r, 2);
  a.tool_call_id = s.Str(r, 3);
  a.connector = s.Str(r, 4);
  a.operation = s.Str(r, 5);
  a.risk = s.Str(r, 6);
  auto args = DecodeJson(s.Text(r, 7), "the args of approval " + a.id);
  if (!args) return args.error();
  a.args = std::move(*args);
  auto evidence = DecodeJson(s.Text(r, 8), "the evidence of approval " + a.id);
  if (!evidence) return evidence.error();
  a.evidence = std::move(*evidence);
  a.staged_by = s.Str(r, 9);
  a.status = s.Str(r, 10);
  a.request = s.Str(r, 11);
  a.decided_request = s.Str(r, 12);
  a.decided_by = s.Str(r, 13);
  a.reason = s.Str(r, 14);
  a.idempotency_key = s.Str(r, 15);
  a.executor = s.Str(r, 16);
  a.reported = s.Int(r, 17) != 0;
  a.created_ms = s.Int(r, 18);
  a.updated_ms = s.Int(r, 19);
  a.decided_ms = s.Int(r, 20);
  auto effect = DecodeJson(s.Text(r, 21), "the effect of approval " + a.id);
  if (!effect) return effect.error();
  a.effect = std::move(*effect);
  a.digest = s.Str(r, 22);
  a.expires_ms = s.Int(r, 23);
  return a;
}

Result<ReceiptRecord> ReceiptRow(const PgRows& s, int row) {
  ReceiptRecord r;
  r.id = s.Str(row, 0);
  r.approval_id = s.Str(row, 1);
  r.idempotency_key = s.Str(row, 2);
  for (auto [col, field] : {std::pair{3, &r.request}, {4, &r.response}, {7, &r.evidence}}) {
    auto j = DecodeJson(s.Text(row, col), "receipt " + r.id);
    if (!j) return j.error();
    *field = std::move(*j);
  }
  r.outcome = s.Str(row, 5);
  r.verification = s.Str(row, 6);
  r.started_ms = s.Int(row, 8);
  r.finished_ms = s.Int(row, 9);
  r.verified_ms = s.Int(row, 10);
  return r;
}

Error Conflict(const std::string& message) { return MakeError("store.conflict", message); }

// pg_advisory_xact_lock key of Activity appends ("affdactv").
constexpr int64_t kActivityLock = 0x6166666461637476;

// The 24 columns of an approval as parameters $1..$24 (the order of kApprovalColumns).
Result<std::vector<std::string>> ApprovalParams(const ApprovalRecord& a) {
  auto args = EncodeJson(a.args, "approval args");
  if (!args) return args.error();
  auto evidence = EncodeJson(a.evidence, "approval evidence");
  if (!evidence) return evidence.error();
  auto effect = EncodeJson(a.effect, "approval effect");
  if (!effect) return effect.error();
  // clang-format off
  return std::vector<std::string>{
      a.id, a.thread_id, a.message_id, a.tool_call_id,                      // $1..$4
      a.connector, a.operation, a.risk, *args, *evidence, a.staged_by,      // $5..$10
      a.status, a.request, a.decided_request, a.decided_by, a.reason,       // $11..$15
      a.idempotency_key, a.executor, PgParam(a.reported),                   // $16..$18
      PgParam(a.created_ms), PgParam(a.updated_ms), PgParam(a.decided_ms),  // $19..$21
      *effect, a.digest, PgParam(a.expires_ms)};                            // $22..$24
  // clang-format on
}

}  // namespace

// ---- grants -------------------------------------------------------------------------------------

Status PgStore::PutGrant(const GrantRecord& g) {
  if (g.id.empty() || g.scope.empty() || (g.access != "read" && g.access != "write")) {
    return MakeError("store.bad_input", "a grant needs an id, a scope and access read or write");
  }
  return Transact(true, [&]() -> Status {
    auto rows = Query(
        "INSERT INTO grants(id, scope, access, granted_by, created_ms, expires_ms, revoked_ms, "
        "revoked_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO UPDATE SET "
        "scope = excluded.scope, access = excluded.access, granted_by = excluded.granted_by, "
        "created_ms = excluded.created_ms, expires_ms = excluded.expires_ms, "
        "revoked_ms = excluded.revoked_ms, revoked_by = excluded.revoked_by",
        "cannot write grant " + g.id, g.id, g.scope, g.access, g.granted_by, g.created_ms,
        g.expires_ms, g.revoked_ms, g.revoked_by);
    if (!rows) return rows.error();
    return {};
  });
}

Result<std::vector<GrantRecord>> PgStore::ListGrants() {
  return Transact(false, [&]() -> Result<std::vector<GrantRecord>> {
    auto rows = Query(
        "SELECT id, scope, access, granted_by, created_ms, expires_ms, revoked_ms, revoked_by "
        "FROM grants ORDER BY created_ms, id COLLATE \"C\"",
        "cannot read grants");
    if (!rows) return rows.error();
    std::vector<GrantRecord> out;
    out.reserve(static_cast<size_t>(rows->size()));
    for (int r = 0; r < rows->size(); ++r) {
      out.push_back({rows->Str(r, 0), rows->Str(r, 1), rows->Str(r, 2), rows->Str(r, 3),
                     rows->Int(r, 4), rows->Int(r, 5), rows->Int(r, 6), rows->Str(r, 7)});
    }
    return out;
  });
}

// ---- approvals ----------------------------------------------------------------------------------

Status PgStore::AddApproval(const ApprovalRecord& a) {
  if (a.id.empty() || a.connector.empty() || a.operation.empty() || a.request.empty()) {
    return MakeError("store.bad_input",
                     "an approval needs an id, a connector, an operation and "
                     "its request");
  }
  auto params = ApprovalParams(a);
  if (!params) return params.error();
  return Transact(true, [&]() -> Status {
    auto rows = conn_->Run(
        "INSERT INTO approvals(id, thread_id, message_id, tool_call_id, connector, operation, "
        "risk, args, evidence, staged_by, status, request, decided_request, decided_by, reason, "
        "idempotency_key, executor, reported, created_ms, updated_ms, decided_ms, effect, digest, "
        "expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, "
        "$16, $17, $18, $19, $20, $21, $22, $23, $24)",
        *params, "cannot write approval " + a.id);
    if (!rows) {
      if (rows.error().code == "store.conflict") {
        return Conflict("approval " + a.id + " already exists");
      }
      return rows.error();
    }
    return {};
  });
}

Result<ApprovalRecord> PgStore::GetApproval(const std::string& id) {
  return Transact(false, [&]() -> Result<ApprovalRecord> {
    static const std::string sql = std::string(kApprovalColumns) + "WHERE id = $1";
    auto rows = Query(sql, "cannot read approval " + id, id);
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("approval", id);
    return ApprovalRow(*rows, 0);
  });
}

Result<std::vector<ApprovalRecord>> PgStore::ListApprovals(const std::string& status,
                                                           const std::string& thread_id) {
  return Transact(false, [&]() -> Result<std::vector<ApprovalRecord>> {
    static const std::string sql = std::string(kApprovalColumns) +
                                   "WHERE ($1 = '' OR status = $1) AND ($2 = '' OR thread_id = $2) "
                                   "ORDER BY created_ms DESC, id COLLATE \"C\"";
    auto rows = Query(sql, "cannot read approvals", status, thread_id);
    if (!rows) return rows.error();
    std::vector<ApprovalRecord> out;
    for (int r = 0; r < rows->size(); ++r) {
      auto a = ApprovalRow(*rows, r);
      if (!a) return a.error();
      out.push_back(std::move(*a));
    }
    return out;
  });
}

Status PgStore::UpdateApproval(const ApprovalRecord& a, const std::string& expected_status) {
  auto params = ApprovalParams(a);
  if (!params) return params.error();
  params->push_back(expected_status);
  return Transact(true, [&]() -> Status {
    auto rows = conn_->Run(
        "UPDATE approvals SET thread_id = $2, message_id = $3, tool_call_id = $4, connector = $5, "
        "operation = $6, risk = $7, args = $8, evidence = $9, staged_by = $10, status = $11, "
        "request = $12, decided_request = $13, decided_by = $14, reason = $15, "
        "idempotency_key = $16, executor = $17, reported = $18, created_ms = $19, "
        "updated_ms = $20, decided_ms = $21, effect = $22, digest = $23, expires_ms = $24 "
        "WHERE id = $1 AND status = $25",
        *params, "cannot write approval " + a.id);
    if (!rows) {
      if (rows.error().code == "store.conflict") {
        return Conflict("the idempotency key " + a.idempotency_key + " is already in use");
      }
      return rows.error();
    }
    if (rows->affected() == 1) return {};
    auto current = GetApproval(a.id);
    if (!current) return current.error();
    return Conflict("approval " + a.id + " is " + current->status + ", not " + expected_status);
  });
}

// ---- receipts -----------------------------------------------------------------------------------

Status PgStore::PutReceipt(const ReceiptRecord& r) {
  auto request = EncodeJson(r.request, "receipt request");
  if (!request) return request.error();
  auto response = EncodeJson(r.response, "receipt response");
  if (!response) return response.error();
  auto evidence = EncodeJson(r.evidence, "receipt evidence");
  if (!evidence) return evidence.error();
  return Transact(true, [&]() -> Status {
    auto rows = Query(
        "INSERT INTO receipts(id, approval_id, idempotency_key, request, response, outcome, "
        "verification, evidence, started_ms, finished_ms, verified_ms) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO UPDATE SET "
        "approval_id = excluded.approval_id, idempotency_key = excluded.idempotency_key, "
        "request = excluded.request, response = excluded.response, outcome = excluded.outcome, "
        "verification = excluded.verification, evidence = excluded.evidence, "
        "started_ms = excluded.started_ms, finished_ms = excluded.finished_ms, "
        "verified_ms = excluded.verified_ms",
        "cannot write receipt " + r.id, r.id, r.approval_id, r.idempotency_key, *request, *response,
        r.outcome, r.verification, *evidence, r.started_ms, r.finished_ms, r.verified_ms);
    if (!rows) return rows.error();
    return {};
  });
}

Result<std::vector<ReceiptRecord>> PgStore::ReceiptsOf(const std::string& approval_id) {
  return Transact(false, [&]() -> Result<std::vector<ReceiptRecord>> {
    auto rows = Query(
        "SELECT id, approval_id, idempotency_key, request, response, outcome, verification, "
        "evidence, started_ms, finished_ms, verified_ms FROM receipts WHERE approval_id = $1 "
        "ORDER BY started_ms, id COLLATE \"C\"",
        "cannot read receipts", approval_id);
    if (!rows) return rows.error();
    std::vector<ReceiptRecord> out;
    for (int i = 0; i < rows->size(); ++i) {
      auto r = ReceiptRow(*rows, i);
      if (!r) return r.error();
      out.push_back(std::move(*r));
    }
    return out;
  });
}

// ---- activity -----------------------------------------------------------------------------------

Result<int64_t> PgStore::AppendActivity(const ActivityRecord& e) {
  if (e.kind.empty()) return MakeError("store.bad_input", "an Activity entry needs a kind");
  auto data = EncodeJson(e.data, "activity data");
  if (!data) return data.error();
  return Transact(true, [&]() -> Result<int64_t> {
    // Appenders queue here until the holder commits, so seq (taken after the lock) increases in
    // commit order. An advisory lock rather than LOCK TABLE: it needs no privilege beyond INSERT
    // (a deployment may deny UPDATE on the log) and is in nobody else's way.
    if (auto s = Query("SELECT pg_advisory_xact_lock($1)", "cannot lock the Activity log",
                       kActivityLock);
        !s) {
      return s.error();
    }
    auto rows = Query(
        "INSERT INTO activity(at_ms, kind, subject, actor, data) VALUES ($1, $2, $3, $4, $5) "
        "RETURNING seq",
        "cannot append to Activity", e.at_ms ? e.at_ms : NowMs(), e.kind, e.subject, e.actor,
        *data);
    if (!rows) return rows.error();
    return rows->Int(0, 0);
  });
}

Result<std::vector<ActivityRecord>> PgStore::ListActivity(const ActivityFilter& f) {
  return Transact(false, [&]() -> Result<std::vector<ActivityRecord>> {
    auto rows = Query(
        "SELECT seq, at_ms, kind, subject, actor, data FROM (SELECT * FROM activity "
        "WHERE ($1 = '' OR kind = $1) AND ($2 = '' OR subject = $2) AND at_ms >= $3 "
        "ORDER BY seq DESC LIMIT CASE WHEN $4::bigint < 0 THEN NULL ELSE $4::bigint END) newest "
        "ORDER BY seq",  // a negative limit is none, as in SQLite
        "cannot read Activity", f.kind, f.subject, f.since_ms, f.limit);
    if (!rows) return rows.error();
    std::vector<ActivityRecord> out;
    for (int r = 0; r < rows->size(); ++r) {
      ActivityRecord e{rows->Int(r, 0), rows->Int(r, 1), rows->Str(r, 2), rows->Str(r, 3),
                       rows->Str(r, 4)};
      auto data = DecodeJson(rows->Text(r, 5), "activity " + std::to_string(e.seq));
      if (!data) return data.error();
      e.data = std::move(*data);
      out.push_back(std::move(e));
    }
    return out;
  });
}

}  // namespace affordance::store::internal
