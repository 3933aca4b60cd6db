// Authority: grants, staging and human decisions (execution, verification and reconcile are in
// execute.cpp). authority.h states the contract.
#include "authority/authority.h"

#include "base/nearest.h"

#include "connect/effect.h"
#include "connect/mutate.h"
#include "connect/printed_cli.h"
#include "connect/schema.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace affordance::authority {

namespace {

using nlohmann::json;

std::string AccessFlag(const std::string& access) { return "--" + access; }

std::string GrantCommand(const std::string& connector, const std::string& operation,
                         const std::string& access) {
  return "affordance grants grant " + connector +
         (operation.empty() ? "" : " --operation " + operation) + " " + AccessFlag(access);
}

bool Covers(const store::GrantRecord& g, const std::string& connector, const std::string& operation,
            const std::string& access) {
  if (g.revoked_ms != 0 || g.access != access) return false;
  return g.scope == GrantScope(connector) ||
         (!operation.empty() && g.scope == GrantScope(connector, operation));
}

}  // namespace

Actor Actor::LocalUser() {
  const char* user = std::getenv("USER");
  return User(user && *user ? user : "local");
}

std::string GrantScope(const std::string& connector, const std::string& operation) {
  return "connector:" + connector + (operation.empty() ? "" : ":" + operation);
}

std::string RequestText(const std::string& connector, const std::string& operation,
                        const json& args) {
  // nlohmann::json objects are ordered maps: dump() is canonical for equal values.
  return json{{"connector", connector}, {"operation", operation}, {"args", args}}.dump();
}

std::string RequestDigest(const std::string& request) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(request.data(), request.size(), md, &len, EVP_sha256(), nullptr);
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", md[i]);
    hex += byte;
  }
  return hex;
}

Authority::Authority(store::Store& store, connect::ConnectorRoad* road, AuthorityOptions options)
    : store_(store), road_(road), options_(std::move(options)) {
  if (!options_.clock_ms) options_.clock_ms = store::NowMs;
}

int64_t Authority::Now() const { return options_.clock_ms(); }

Status Authority::Log(const std::string& kind, const std::string& subject, const Actor& actor,
                      json data) {
  store::ActivityRecord e;
  e.at_ms = Now();
  e.kind = kind;
  e.subject = subject;
  e.actor = actor.name;
  e.data = std::move(data);
  auto seq = store_.AppendActivity(e);
  if (!seq) return seq.error();
  return {};
}

// ---- grants -------------------------------------------------------------------------------------

Result<store::GrantRecord> Authority::Grant(const std::string& connector,
                                            const std::string& operation, const std::string& access,
                                            int64_t expires_ms, const Actor& by) {
  if (!by.human) {
    return MakeError(
        ErrorKind::kForbidden, "authority.not_human",
        "only a person can grant access; " + by.name + " cannot grant itself anything");
  }
  if (access != "read" && access != "write") {
    return MakeError(ErrorKind::kInvalid, "authority.bad_grant",
                     "access must be read or write, not \"" + access + "\"");
  }
  if (road_ != nullptr) {
    auto m = road_->Find(connector);
    if (m == nullptr) {
      std::vector<std::string> slugs;
      for (const auto& c : road_->manifests()) slugs.push_back(c.slug);
      return MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                       "no connector \"" + connector + "\"" + DidYouMean(connector, slugs));
    }
    if (!operation.empty() && m->FindOperation(operation) == nullptr) {
      return MakeError(ErrorKind::kNotFound, "connect.unknown_operation",
                       connector + " has no operation \"" + operation + "\"");
    }
  }
  // A grant already in force that covers this one (same scope and access, lasting at least as
  // long) is the answer: granting twice adds no second row.
  auto existing = store_.ListGrants();
  if (!existing) return existing.error();
  const std::string scope = GrantScope(connector, operation);
  for (const auto& e : *existing) {
    if (e.scope != scope || e.access != access || !e.in_force(Now())) continue;
    if (e.expires_ms == 0 || (expires_ms != 0 && e.expires_ms >= expires_ms)) return e;
  }
  store::GrantRecord g;
  g.id = store::NewId("g_");
  g.scope = scope;
  g.access = access;
  g.granted_by = by.name;
  g.created_ms = Now();
  g.expires_ms = expires_ms;
  if (Status s = store_.Batch([&]() -> Status {
        if (Status w = store_.PutGrant(g); !w) return w;
        return Log("grant", g.id, by,
                   {{"scope", g.scope}, {"access", access}, {"expires_ms", expires_ms}});
      });
      !s) {
    return s.error();
  }
  return g;
}

Result<store::GrantRecord> Authority::Revoke(const std::string& grant_id, const Actor& by) {
  if (!by.human)
    return MakeError(ErrorKind::kForbidden, "authority.not_human",
                     "only a person can revoke a grant");
  auto all = store_.ListGrants();
  if (!all) return all.error();
  for (auto g : *all) {
    if (g.id != grant_id) continue;
    if (g.revoked_ms != 0) return g;
    g.revoked_ms = Now();
    g.revoked_by = by.name;
    if (Status s = store_.Batch([&]() -> Status {
          if (Status w = store_.PutGrant(g); !w) return w;
          return Log("revoke", g.id, by, {{"scope", g.scope}, {"access", g.access}});
        });
        !s) {
      return s.error();
    }
    return g;
  }
  return MakeError(ErrorKind::kNotFound, "authority.unknown_grant", "no grant \"" + grant_id + "\"",
                   "list them with: affordance grants list");
}

Result<std::vector<store::GrantRecord>> Authority::Grants() {
  auto all = store_.ListGrants();
  if (!all) return all.error();
  std::vector<store::GrantRecord> out;
  for (auto& g : *all) {
    if (g.revoked_ms == 0) out.push_back(std::move(g));
  }
  return out;
}

Result<store::GrantRecord> Authority::Check(const std::string& connector,
                                            const std::string& operation,
                                            const std::string& access) {
  auto all = store_.ListGrants();
  if (!all) return all.error();
  const store::GrantRecord* expired = nullptr;
  for (const auto& g : *all) {
    if (!Covers(g, connector, operation, access)) continue;
    if (g.expires_ms == 0 || g.expires_ms > Now()) return g;
    expired = &g;
  }
  std::string what = access + " grant for connector " + connector +
                     (operation.empty() ? "" : " (operation " + operation + ")");
  if (expired != nullptr) {
    return MakeError(ErrorKind::kForbidden, "authority.grant_expired",
                     "the " + what + " (" + expired->id +
                         ") has expired; ask the user to grant "
                         "it again: " +
                         GrantCommand(connector, "", access));
  }
  return MakeError(
      ErrorKind::kForbidden, "authority.no_grant",
      "no " + what + "; ask the user to grant it: " + GrantCommand(connector, "", access));
}

Status Authority::AuthorizeRead(const std::string& connector, const std::string& operation,
                                const Actor& by) {
  auto grant = Check(connector, operation, "read");
  json data = {{"connector", connector}, {"operation", operation}, {"allowed", grant.ok()}};
  if (grant)
    data["grant"] = grant->id;
  else
    data["error"] = grant.error().code;
  if (Status s = Log("read", GrantScope(connector), by, data); !s) return s;
  if (!grant) return grant.error();
  return {};
}

// ---- staging and decisions ----------------------------------------------------------------------

Result<std::pair<std::shared_ptr<const connect::ConnectorManifest>, const connect::Operation*>>
Authority::Mutation(const std::string& connector, const std::string& operation) {
  if (road_ == nullptr) {
    return MakeError("authority.no_connectors", "no connectors are configured");
  }
  auto m = road_->Find(connector);
  if (m == nullptr) {
    std::string slugs;
    std::vector<std::string> names;
    for (const auto& c : road_->manifests()) {
      slugs += (slugs.empty() ? "" : ", ") + c.slug;
      names.push_back(c.slug);
    }
    return MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                     "no connector \"" + connector + "\"" + DidYouMean(connector, names),
                     "connectors: " + slugs);
  }
  std::string mutations;
  for (const auto& op : m->operations) {
    if (op.kind == connect::OperationKind::kMutation) {
      mutations += (mutations.empty() ? "" : ", ") + op.name;
    }
  }
  const connect::Operation* op = m->FindOperation(operation);
  if (op == nullptr) {
    return MakeError(ErrorKind::kNotFound, "authority.unknown_mutation",
                     connector + " has no mutation \"" + operation + "\"",
                     "its mutations: " + (mutations.empty() ? "none" : mutations));
  }
  if (op->kind != connect::OperationKind::kMutation) {
    return MakeError(ErrorKind::kInvalid, "authority.not_a_mutation",
                     operation + " is a read of " + connector +
                         "; read it with RunConnectorCommand, nothing needs approval",
                     "its mutations: " + (mutations.empty() ? "none" : mutations));
  }
  return std::make_pair(m, op);
}

Result<store::ApprovalRecord> Authority::Stage(const StageRequest& r, const Actor& by) {
  auto found = Mutation(r.connector, r.operation);
  if (!found) return found.error();
  const auto [m, op] = *found;
  if (Status v = connect::ValidateArgs(op->args_schema, r.args); !v) {
    return MakeError(ErrorKind::kInvalid, "authority.bad_args",
                     "the arguments of " + r.connector + "." + r.operation +
                         " do not match its schema: " + v.error().message,
                     op->args_schema.dump());
  }
  // A value the source would refuse or read differently (an hour 99, a 30 February) is refused
  // here, before a card shows it to anyone.
  if (Status v = connect::CheckMutationArgs(*m, *op, r.args); !v) {
    return MakeError(ErrorKind::kInvalid, "authority.bad_args",
                     "the arguments of " + r.connector + "." + r.operation +
                         " cannot be written: " + v.error().message);
  }
  auto grant = Check(r.connector, r.operation, "write");
  if (!grant) return grant.error();
  store::ApprovalRecord a;
  a.id = store::NewId("apr_");
  a.thread_id = r.thread_id;
  a.message_id = r.message_id;
  a.tool_call_id = r.tool_call_id;
  a.connector = r.connector;
  a.operation = r.operation;
  a.risk = connect::ToString(op->risk);
  a.args = r.args;
  a.evidence = r.evidence.is_object() ? r.evidence : json{{"note", r.evidence}};
  a.staged_by = by.name;
  a.status = "pending";
  a.request = RequestText(r.connector, r.operation, r.args);
  a.digest = RequestDigest(a.request);
  auto effect = Effect(*m, *op, r.args, IdempotencyKeyOf(a.id));
  if (!effect) {
    return MakeError(ErrorKind::kInvalid, "authority.bad_args",
                     "the arguments of " + r.connector + "." + r.operation +
                         " cannot be written: " + effect.error().message);
  }
  a.effect = std::move(*effect);
  a.created_ms = a.updated_ms = Now();
  a.expires_ms = a.created_ms + options_.approval_ttl_ms;
  if (grant->expires_ms != 0) a.expires_ms = std::min(a.expires_ms, grant->expires_ms);
  if (Status s = store_.Batch([&]() -> Status {
        if (Status w = store_.AddApproval(a); !w) return w;
        return Log("stage", a.id, by,
                   {{"connector", a.connector},
                    {"operation", a.operation},
                    {"args", a.args},
                    {"risk", a.risk},
                    {"digest", a.digest},
                    {"summary", a.effect.value("summary", "")}});
      });
      !s) {
    return s.error();
  }
  return a;
}

Result<store::ApprovalRecord> Authority::Load(const std::string& id) {
  auto a = store_.GetApproval(id);
  if (!a && a.error().code == "store.not_found") {
    return MakeError(ErrorKind::kNotFound, "authority.unknown_approval",
                     "no approval request \"" + id + "\"",
                     "list them with: affordance approvals list");
  }
  return a;
}

Result<std::optional<json>> Authority::ReadOne(const connect::ConnectorManifest& m,
                                               const std::string& operation, const json& args) {
  connect::ConnectorCommand cmd;
  cmd.connector = m.slug;
  cmd.request = {{"operation", operation}, {"args", args}};
  cmd.limit = 1;
  if (m.Supports(connect::SourceMode::kLive)) cmd.mode = connect::SourceMode::kLive;
  auto read = road_->RunConnectorCommand(cmd);
  if (!read) {
    if (read.error().code == "connect.not_found") return std::optional<json>();
    return read.error();
  }
  if (read->rows.empty()) return std::optional<json>();
  return std::optional<json>(read->rows.front());
}

std::string IdempotencyKeyOf(const std::string& approval_id) { return "idem-" + approval_id; }

Result<json> Authority::Effect(const connect::ConnectorManifest& m, const connect::Operation& op,
                               const json& args, const std::string& key) {
  auto what = connect::BeforeReadOf(op, args);
  std::optional<json> before;
  json read = json::object();
  if (what) {
    Result<std::optional<json>> row =
        what->operation.empty() ? connect::ReadCalendarEvent(m, what->args.value("uid", ""))
                                : ReadOne(m, what->operation, what->args);
    read["read"] = what->operation.empty() ? "the calendar file" : what->operation;
    read["atMs"] = Now();
    if (!row) {
      read["error"] = row.error().code + ": " + row.error().message;
    } else {
      read["found"] = row->has_value();
      before = *row;
    }
  }
  json scope = nullptr;
  if (m.source.kind == connect::SourceKind::kIcs) {
    auto described = connect::DescribeCalendarScope(m, op, args, Now() / 1000);
    if (!described) {
      if (described.error().kind == ErrorKind::kInvalid) return described.error();
      read["error"] = described.error().code + ": " + described.error().message;
    } else if (described->has_value()) {
      scope = **described;
      // One occurrence: its own values are the before values, not the series' first one's.
      if (scope.contains("current")) {
        before = scope["current"];
        scope.erase("current");
      }
    }
  }
  json effect = connect::DescribeMutation(m, op, args, before, scope);
  if (what) effect["before"] = read;
  if (m.source.kind == connect::SourceKind::kPrintedCli) {
    // The exact argv the approval runs: what a flag or a positional value becomes is on the card.
    auto argv = connect::MutationArgv(m, op, args, key);
    if (!argv) return argv.error();
    effect["argv"] = *argv;
  }
  return effect;
}

Result<store::ApprovalRecord> Authority::Decide(const std::string& id, const Actor& by,
                                                bool approve, const std::string& reason,
                                                const std::string& digest) {
  if (!by.human) {
    return MakeError(ErrorKind::kForbidden, "authority.not_human",
                     "only a person can " + std::string(approve ? "approve" : "deny") +
                         " a staged effect; " + by.name + " cannot decide its own request");
  }
  auto a = Load(id);
  if (!a) return a.error();
  auto already = [&](const store::ApprovalRecord& cur) {
    return MakeError(ErrorKind::kConflict, "authority.already_decided",
                     "approval " + id + " is already " + cur.status +
                         (cur.decided_by.empty() ? "" : " (decided by " + cur.decided_by + ")") +
                         "; a decision is made once");
  };
  if (a->status != "pending") return already(*a);
  if (approve && !digest.empty()) {
    const std::string actual = a->digest.empty() ? RequestDigest(a->request) : a->digest;
    if (digest.size() < 8 || actual.compare(0, digest.size(), digest) != 0) {
      return MakeError(ErrorKind::kConflict, "authority.approval_mismatch",
                       "approval " + id + " is not the request you saw (digest " + digest +
                           "); nothing was approved",
                       "its digest: " + actual);
    }
  }
  if (approve && a->expires_ms != 0 && Now() >= a->expires_ms) {
    // Settled as it is, so every door (and the model, on the next turn) reads it expired.
    auto settled = Expire(id);
    return MakeError(ErrorKind::kConflict, "authority.approval_expired",
                     "approval " + id + " expired before it was decided" +
                         (settled && !settled->reason.empty() ? " (" + settled->reason + ")" : "") +
                         "; nothing was approved. Ask again to stage it anew.");
  }
  store::ApprovalRecord next = *a;
  next.status = approve ? "approved" : "denied";
  next.decided_request = approve ? a->request : "";
  next.decided_by = by.name;
  next.decided_ms = next.updated_ms = Now();
  next.reason = reason;
  Status s = store_.Batch([&]() -> Status {
    if (Status w = store_.UpdateApproval(next, "pending"); !w) return w;
    return Log(approve ? "approve" : "deny", id, by,
               {{"request", json::parse(a->request)}, {"reason", reason}});
  });
  if (!s) {
    if (s.error().code != "store.conflict") return s.error();
    auto cur = Load(id);
    if (!cur) return cur.error();
    return already(*cur);
  }
  return next;
}

Result<store::ApprovalRecord> Authority::Expire(const std::string& id) {
  auto a = Load(id);
  if (!a) return a.error();
  if (a->status != "pending" || a->expires_ms == 0 || Now() < a->expires_ms) return a;
  store::ApprovalRecord next = *a;
  next.status = "expired";
  next.updated_ms = Now();
  next.reason = a->expires_ms < a->created_ms + options_.approval_ttl_ms
                    ? "the write grant that allowed it ended before a person decided"
                    : "no person decided within " +
                          std::to_string(options_.approval_ttl_ms / (24 * 3600 * 1000)) + " days";
  Status s = store_.Batch([&]() -> Status {
    if (Status w = store_.UpdateApproval(next, "pending"); !w) return w;
    return Log("expire", id, Actor::System(),
               {{"request", json::parse(a->request)},
                {"reason", next.reason},
                {"expiresMs", a->expires_ms}});
  });
  if (!s) {
    if (s.error().code != "store.conflict") return s.error();
    return Load(id);  // decided or expired meanwhile: the row as it is
  }
  return next;
}

Result<store::ApprovalRecord> Authority::Approve(const std::string& id, const Actor& by,
                                                 const std::string& digest) {
  return Decide(id, by, true, "", digest);
}

Result<store::ApprovalRecord> Authority::Deny(const std::string& id, const Actor& by,
                                              const std::string& reason) {
  return Decide(id, by, false, reason, "");
}

Status Authority::MarkReported(const std::string& id) {
  auto a = Load(id);
  if (!a) return a.error();
  if (a->reported) return {};
  store::ApprovalRecord next = *a;
  next.reported = true;
  return store_.UpdateApproval(next, a->status);
}

}  // namespace affordance::authority
