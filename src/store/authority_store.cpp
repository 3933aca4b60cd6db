// SqliteStore: the authority tables (schema version 2): grants, approvals, receipts and the
// append-only Activity log. The rules of who may move which state live in src/authority; this
// file keeps the rows and the one compare-and-set (UpdateApproval) those rules rely on.
#include "store/internal/codec.h"
#include "store/internal/sqlite_store.h"

namespace affordance::store::internal {

namespace {

constexpr std::string_view kApprovalColumns =
    "SELECT id, thread_id, message_id, tool_call_id, connector, operation, risk, args, evidence, "
    "staged_by, status, request, decided_request, decided_by, reason, idempotency_key, executor, "
    "reported, created_ms, updated_ms, decided_ms, effect, digest, expires_ms FROM approvals ";

Result<ApprovalRecord> ApprovalRow(const Statement& s) {
  ApprovalRecord a;
  a.id = s.Text(0);
  a.thread_id = s.Text(1);
  a.message_id = s.Text(2);
  a.tool_call_id = s.Text(3);
  a.connector = s.Text(4);
  a.operation = s.Text(5);
  a.risk = s.Text(6);
  auto args = DecodeJson(s.Text(7), "the args of approval " + a.id);
  if (!args) return args.error();
  a.args = std::move(*args);
  auto evidence = DecodeJson(s.Text(8), "the evidence of approval " + a.id);
  if (!evidence) return evidence.error();
  a.evidence = std::move(*evidence);
  a.staged_by = s.Text(9);
  a.status = s.Text(10);
  a.request = s.Text(11);
  a.decided_request = s.Text(12);
  a.decided_by = s.Text(13);
  a.reason = s.Text(14);
  a.idempotency_key = s.Text(15);
  a.executor = s.Text(16);
  a.reported = s.Int(17) != 0;
  a.created_ms = s.Int(18);
  a.updated_ms = s.Int(19);
  a.decided_ms = s.Int(20);
  auto effect = DecodeJson(s.Text(21), "the effect of approval " + a.id);
  if (!effect) return effect.error();
  a.effect = std::move(*effect);
  a.digest = s.Text(22);
  a.expires_ms = s.Int(23);
  return a;
}

Result<ReceiptRecord> ReceiptRow(const Statement& s) {
  ReceiptRecord r;
  r.id = s.Text(0);
  r.approval_id = s.Text(1);
  r.idempotency_key = s.Text(2);
  for (auto [col, field] : {std::pair{3, &r.request}, {4, &r.response}, {7, &r.evidence}}) {
    auto j = DecodeJson(s.Text(col), "receipt " + r.id);
    if (!j) return j.error();
    *field = std::move(*j);
  }
  r.outcome = s.Text(5);
  r.verification = s.Text(6);
  r.started_ms = s.Int(8);
  r.finished_ms = s.Int(9);
  r.verified_ms = s.Int(10);
  return r;
}

Error Conflict(const std::string& message) { return MakeError("store.conflict", message); }

}  // namespace

// ---- grants -------------------------------------------------------------------------------------

Status SqliteStore::PutGrant(const GrantRecord& g) {
  if (g.id.empty() || g.scope.empty() || (g.access != "read" && g.access != "write")) {
    return MakeError("store.bad_input", "a grant needs an id, a scope and access read or write");
  }
  return Transact(true, [&]() -> Status {
    auto prepared = conn_->Prepare(
        "INSERT OR REPLACE INTO grants(id, scope, access, granted_by, created_ms, expires_ms, "
        "revoked_ms, revoked_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, g.id).Bind(2, g.scope).Bind(3, g.access).Bind(4, g.granted_by);
    st.Bind(5, g.created_ms).Bind(6, g.expires_ms).Bind(7, g.revoked_ms).Bind(8, g.revoked_by);
    if (st.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot write grant " + g.id);
    return {};
  });
}

Result<std::vector<GrantRecord>> SqliteStore::ListGrants() {
  return Transact(false, [&]() -> Result<std::vector<GrantRecord>> {
    auto prepared = conn_->Prepare(
        "SELECT id, scope, access, granted_by, created_ms, expires_ms, revoked_ms, revoked_by "
        "FROM grants ORDER BY created_ms, id");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    std::vector<GrantRecord> out;
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      out.push_back({std::string(st.Text(0)), std::string(st.Text(1)), std::string(st.Text(2)),
                     std::string(st.Text(3)), st.Int(4), st.Int(5), st.Int(6),
                     std::string(st.Text(7))});
    }
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read grants");
    return out;
  });
}

// ---- approvals ----------------------------------------------------------------------------------

Status SqliteStore::BindApproval(Statement& st, const ApprovalRecord& a) {
  auto args = EncodeJson(a.args, "approval args");
  if (!args) return args.error();
  auto evidence = EncodeJson(a.evidence, "approval evidence");
  if (!evidence) return evidence.error();
  st.Bind(1, a.id).Bind(2, a.thread_id).Bind(3, a.message_id).Bind(4, a.tool_call_id);
  st.Bind(5, a.connector).Bind(6, a.operation).Bind(7, a.risk).Bind(8, *args).Bind(9, *evidence);
  st.Bind(10, a.staged_by).Bind(11, a.status).Bind(12, a.request).Bind(13, a.decided_request);
  st.Bind(14, a.decided_by).Bind(15, a.reason).Bind(16, a.idempotency_key).Bind(17, a.executor);
  st.Bind(18, int64_t{a.reported ? 1 : 0}).Bind(19, a.created_ms).Bind(20, a.updated_ms);
  auto effect = EncodeJson(a.effect, "approval effect");
  if (!effect) return effect.error();
  st.Bind(21, a.decided_ms).Bind(22, *effect).Bind(23, a.digest).Bind(24, a.expires_ms);
  return {};
}

Status SqliteStore::AddApproval(const ApprovalRecord& a) {
  if (a.id.empty() || a.connector.empty() || a.operation.empty() || a.request.empty()) {
    return MakeError("store.bad_input",
                     "an approval needs an id, a connector, an operation and "
                     "its request");
  }
  return Transact(true, [&]() -> Status {
    auto prepared = conn_->Prepare(
        "INSERT INTO approvals(id, thread_id, message_id, tool_call_id, connector, operation, "
        "risk, args, evidence, staged_by, status, request, decided_request, decided_by, reason, "
        "idempotency_key, executor, reported, created_ms, updated_ms, decided_ms, effect, digest, "
        "expires_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
        "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    if (auto s = BindApproval(st, a); !s) return s;
    int rc = st.Step();
    if (rc == SQLITE_CONSTRAINT) return Conflict("approval " + a.id + " already exists");
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot write approval " + a.id);
    return {};
  });
}

Result<ApprovalRecord> SqliteStore::GetApproval(const std::string& id) {
  return Transact(false, [&]() -> Result<ApprovalRecord> {
    static const std::string sql = std::string(kApprovalColumns) + "WHERE id = ?1";
    auto prepared = conn_->Prepare(sql);
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, id);
    int rc = st.Step();
    if (rc == SQLITE_DONE) return NotFound("approval", id);
    if (rc != SQLITE_ROW) return IoError(conn_->db(), "cannot read approval " + id);
    return ApprovalRow(st);
  });
}

Result<std::vector<ApprovalRecord>> SqliteStore::ListApprovals(const std::string& status,
                                                               const std::string& thread_id) {
  return Transact(false, [&]() -> Result<std::vector<ApprovalRecord>> {
    static const std::string sql = std::string(kApprovalColumns) +
                                   "WHERE (?1 = '' OR status = ?1) AND (?2 = '' OR thread_id = ?2) "
                                   "ORDER BY created_ms DESC, id";
    auto prepared = conn_->Prepare(sql);
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, status).Bind(2, thread_id);
    std::vector<ApprovalRecord> out;
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      auto a = ApprovalRow(st);
      if (!a) return a.error();
      out.push_back(std::move(*a));
    }
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read approvals");
    return out;
  });
}

Status SqliteStore::UpdateApproval(const ApprovalRecord& a, const std::string& expected_status) {
  return Transact(true, [&]() -> Status {
    auto prepared = conn_->Prepare(
        "UPDATE approvals SET thread_id = ?2, message_id = ?3, tool_call_id = ?4, connector = ?5, "
        "operation = ?6, risk = ?7, args = ?8, evidence = ?9, staged_by = ?10, status = ?11, "
        "request = ?12, decided_request = ?13, decided_by = ?14, reason = ?15, "
        "idempotency_key = ?16, executor = ?17, reported = ?18, created_ms = ?19, "
        "updated_ms = ?20, decided_ms = ?21, effect = ?22, digest = ?23, expires_ms = ?24 "
        "WHERE id = ?1 AND status = ?25");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    if (auto s = BindApproval(st, a); !s) return s;
    st.Bind(25, expected_status);
    int rc = st.Step();
    if (rc == SQLITE_CONSTRAINT) {
      return Conflict("the idempotency key " + a.idempotency_key + " is already in use");
    }
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot write approval " + a.id);
    if (sqlite3_changes(conn_->db()) == 1) return {};
    auto current = GetApproval(a.id);
    if (!current) return current.error();
    return Conflict("approval " + a.id + " is " + current->status + ", not " + expected_status);
  });
}

// ---- receipts -----------------------------------------------------------------------------------

Status SqliteStore::PutReceipt(const ReceiptRecord& r) {
  auto request = EncodeJson(r.request, "receipt request");
  if (!request) return request.error();
  auto response = EncodeJson(r.response, "receipt response");
  if (!response) return response.error();
  auto evidence = EncodeJson(r.evidence, "receipt evidence");
  if (!evidence) return evidence.error();
  return Transact(true, [&]() -> Status {
    auto prepared = conn_->Prepare(
        "INSERT OR REPLACE INTO receipts(id, approval_id, idempotency_key, request, response, "
        "outcome, verification, evidence, started_ms, finished_ms, verified_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, r.id).Bind(2, r.approval_id).Bind(3, r.idempotency_key).Bind(4, *request);
    st.Bind(5, *response).Bind(6, r.outcome).Bind(7, r.verification).Bind(8, *evidence);
    st.Bind(9, r.started_ms).Bind(10, r.finished_ms).Bind(11, r.verified_ms);
    if (st.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot write receipt " + r.id);
    return {};
  });
}

Result<std::vector<ReceiptRecord>> SqliteStore::ReceiptsOf(const std::string& approval_id) {
  return Transact(false, [&]() -> Result<std::vector<ReceiptRecord>> {
    auto prepared = conn_->Prepare(
        "SELECT id, approval_id, idempotency_key, request, response, outcome, verification, "
        "evidence, started_ms, finished_ms, verified_ms FROM receipts WHERE approval_id = ?1 "
        "ORDER BY started_ms, id");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, approval_id);
    std::vector<ReceiptRecord> out;
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      auto r = ReceiptRow(st);
      if (!r) return r.error();
      out.push_back(std::move(*r));
    }
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read receipts");
    return out;
  });
}

// ---- activity -----------------------------------------------------------------------------------

Result<int64_t> SqliteStore::AppendActivity(const ActivityRecord& e) {
  if (e.kind.empty()) return MakeError("store.bad_input", "an Activity entry needs a kind");
  auto data = EncodeJson(e.data, "activity data");
  if (!data) return data.error();
  return Transact(true, [&]() -> Result<int64_t> {
    auto prepared = conn_->Prepare(
        "INSERT INTO activity(at_ms, kind, subject, actor, data) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, e.at_ms ? e.at_ms : NowMs()).Bind(2, e.kind).Bind(3, e.subject).Bind(4, e.actor);
    st.Bind(5, *data);
    if (st.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot append to Activity");
    return static_cast<int64_t>(sqlite3_last_insert_rowid(conn_->db()));
  });
}

Result<std::vector<ActivityRecord>> SqliteStore::ListActivity(const ActivityFilter& f) {
  return Transact(false, [&]() -> Result<std::vector<ActivityRecord>> {
    auto prepared = conn_->Prepare(
        "SELECT seq, at_ms, kind, subject, actor, data FROM (SELECT * FROM activity "
        "WHERE (?1 = '' OR kind = ?1) AND (?2 = '' OR subject = ?2) AND at_ms >= ?3 "
        "ORDER BY seq DESC LIMIT ?4) ORDER BY seq");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, f.kind).Bind(2, f.subject).Bind(3, f.since_ms).Bind(4, f.limit);
    std::vector<ActivityRecord> out;
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      ActivityRecord e{st.Int(0), st.Int(1), std::string(st.Text(2)), std::string(st.Text(3)),
                       std::string(st.Text(4))};
      auto data = DecodeJson(st.Text(5), "activity " + std::to_string(e.seq));
      if (!data) return data.error();
      e.data = std::move(*data);
      out.push_back(std::move(e));
    }
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read Activity");
    return out;
  });
}

}  // namespace affordance::store::internal
