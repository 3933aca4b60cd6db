#include "connect/result.h"

namespace affordance::connect {

using nlohmann::json;

size_t CodePointCount(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

json ToJson(const Candidate& c) {
  json j = {{"operation", c.operation},
            {"kind", c.kind},
            {"description", c.description},
            {"args_schema", c.args_schema}};
  if (!c.suggested_args.is_null()) j["suggested_args"] = c.suggested_args;
  if (c.score != 0) j["score"] = c.score;
  return j;
}

json ToJson(const ConnectorResult& r) {
  json ledger = json::array();
  for (const auto& e : r.operation_ledger) {
    json j = {{"command", e.command},
              {"args", e.args},
              {"served_fields", e.served_fields},
              {"source", e.source},
              {"rows", e.rows}};
    if (!e.fan_out.is_null()) j["fan_out"] = e.fan_out;
    ledger.push_back(std::move(j));
  }
  json queries = json::array();
  for (const auto& q : r.query_contracts) {
    queries.push_back({{"handle", q.handle},
                       {"connector", q.connector},
                       {"operation", q.operation},
                       {"args", q.args},
                       {"source", q.source},
                       {"served_fields", q.served_fields}});
  }
  json mutations = json::array();
  for (const auto& m : r.mutation_contracts) {
    mutations.push_back({{"handle", m.handle},
                         {"connector", m.connector},
                         {"operation", m.operation},
                         {"args_schema", m.args_schema},
                         {"risk", m.risk},
                         {"requires_approval", true}});
  }
  const Freshness& f = r.mirror_snapshot.freshness;
  json j = {
      {"connector", r.connector},
      {"status", r.status},
      {"rows", r.rows},
      {"truncated", r.truncated},
      {"returned_rows", r.returned_rows},
      {"total_rows", r.total_rows},
      {"total_rows_exact", r.total_rows_exact},
      {"operation_ledger", ledger},
      {"registered_query_handles", r.registered_query_handles},
      {"query_contracts", queries},
      {"mutation_contracts", mutations},
      {"mirror_snapshot",
       {{"freshness",
         {{"state", f.state},
          {"synced_at", f.synced_at},
          {"age_s", f.age_s},
          {"max_age_s", f.max_age_s},
          {"mirror_rows", f.mirror_rows}}},
        {"credential_state", r.mirror_snapshot.credential_state},
        {"serving_decision", r.mirror_snapshot.serving_decision}}},
      {"resolution", r.resolution},
  };
  if (r.truncated) j["truncated_reason"] = r.truncated_reason;
  if (r.status == "unresolved") {
    json c = json::array();
    for (const auto& cand : r.candidates) c.push_back(ToJson(cand));
    j["candidates"] = c;
    j["unresolved_reason"] = r.unresolved_reason;
  }
  return j;
}

namespace {
size_t Size(const ConnectorResult& r) {
  return CodePointCount(ToJson(r).dump(-1, ' ', false, json::error_handler_t::replace));
}
}  // namespace

Status BoundRows(ConnectorResult& r, int64_t limit, size_t max_chars) {
  if (limit >= 0 && static_cast<int64_t>(r.rows.size()) > limit) {
    r.rows.resize(static_cast<size_t>(limit));
    r.truncated = true;
    r.truncated_reason = "limit";
  }
  r.returned_rows = static_cast<int64_t>(r.rows.size());
  if (Size(r) <= max_chars) return {};

  // Largest prefix of rows that fits: binary search over the prefix length.
  std::vector<json> all = std::move(r.rows);
  r.truncated = true;
  r.truncated_reason = "char_cap";
  size_t lo = 0, hi = all.size();
  auto fits = [&](size_t n) {
    r.rows.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    r.returned_rows = static_cast<int64_t>(n);
    return Size(r) <= max_chars;
  };
  if (!fits(0)) {
    return MakeError(
        "connect.result_too_large",
        "the result is over the " + std::to_string(max_chars) + "-character cap even without rows");
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  fits(lo);
  return {};
}

}  // namespace affordance::connect
