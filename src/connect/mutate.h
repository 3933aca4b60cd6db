// The write paths of connectors. Only src/authority calls these, and only for an effect a person
// approved (docs/AUTHORITY.md); the read road (road.h) never writes and refuses mutations.
//
//   sqlite      the operation's `statement` in one BEGIN IMMEDIATE transaction on a separate
//               read-write connection to the source database (the read path stays read-only);
//               named parameters are bound from the args, plus :idempotency_key
//   ics         create / update / delete of one VEVENT (every VEVENT of its UID) by splicing
//               the file's text: only the bytes of the touched VEVENTs change (a create goes just
//               before END:VCALENDAR in the file's own line ending; an update rewrites only the
//               properties whose values change; new lines are folded at 75 octets). Written by
//               atomic replace (temporary file, fsync, rename, fsync of the folder): a crash
//               leaves the old file or the new one, never half of one. A created event's UID is
//               derived from the idempotency key ("aff-<key>@affordance"), so the calendar itself
//               records the key and a second dispatch of the same key changes nothing
//   printed_cli the operation's verb words through the safe child-process bridge, with
//               `--<idempotency_flag> <key>` when the manifest names the CLI's flag
//
// Dispatch outcomes are classified, never retried here: kFailed means the source definitely did
// not apply the effect (a rolled-back transaction, a typed refusal), kUnknown that it may have
// (a timeout after the command was sent, a killed child) and must be reconciled.
#pragma once

#include "base/result.h"
#include "connect/manifest.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace affordance::connect {

struct MutationOutcome {
  enum class Dispatch { kExecuted, kFailed, kUnknown };
  Dispatch dispatch = Dispatch::kFailed;
  nlohmann::json response = nlohmann::json::object();  // the source's answer (e.g. {"uid": ..})
  Error error;                                         // kFailed / kUnknown
};

std::string DispatchName(MutationOutcome::Dispatch d);

// Runs mutation `op` of `m` with validated `args` once. `timeout_ms` > 0 overrides the source's
// own timeout (printed CLIs).
MutationOutcome RunMutation(const ConnectorManifest& m, const Operation& op,
                            const nlohmann::json& args, const std::string& idempotency_key);

// What the source would refuse in `args` (already valid against the operation's schema), found
// before anything is staged, so that no card shows a value the write would refuse or read
// differently: a string whose schema has `format` "date-time" or "date" must name a real instant
// or day (base/instant.h: nothing out of range, no normalising); a calendar's `start` / `end`
// must be UTC ("...Z") and `end` after `start`. Error: "connect.bad_args" (ErrorKind::kInvalid).
Status CheckMutationArgs(const ConnectorManifest& m, const Operation& op,
                         const nlohmann::json& args);

// What the source itself says about an idempotency key, where it can say anything: a calendar
// create (the UID derived from the key), a printed CLI with the `lookup` verb. `supported` is
// false elsewhere (then only a fresh read can reconcile).
struct KeyLookup {
  bool supported = false;
  bool found = false;
  nlohmann::json response = nlohmann::json::object();
};
Result<KeyLookup> LookupIdempotencyKey(const ConnectorManifest& m, const Operation& op,
                                       const std::string& idempotency_key);

// The calendar write path (calendar_write.cpp). Errors: "connect.not_found" (update / delete of a
// UID the file does not have), "connect.bad_args" (a time that is not ISO 8601 UTC),
// "connect.ics_invalid" (libical cannot read the file, or its components do not nest: a write
// refuses to guess where a VEVENT ends), "connect.write_failed".
Result<nlohmann::json> WriteCalendar(const ConnectorManifest& m, const Operation& op,
                                     const nlohmann::json& args, const std::string& key);
// The UID a calendar create with this key writes.
std::string CalendarUidFor(const std::string& idempotency_key);
// The event with that UID as the write path sees it now (a fresh read of the file, not the
// mirror): {uid, summary, start, end, location, description, recurring}, its times ISO 8601 UTC
// (a date for an all-day event). nullopt: no such event.
Result<std::optional<nlohmann::json>> ReadCalendarEvent(const ConnectorManifest& m,
                                                        const std::string& uid);
// CheckMutationArgs for a calendar source.
Status CheckCalendarArgs(const Operation& op, const nlohmann::json& args);
// The scope of a calendar update or delete as a fresh read of the file finds it now
// (internal/calendar_edit.h): {kind: "event" | "occurrence" | "series", window {from, to} (the
// connector's sync window around `now_s`), overrides (separately changed occurrences), and for a
// series occurrences {before, after} in that window (after: a dry run of the write), moves (its
// start or end changes), overrides_after; for one occurrence `occurrence` (its original start)
// and changed_before}. nullopt: a create, or no event with that UID. Errors: "connect.bad_args"
// (kInvalid) for an `occurrence` the series does not have; read errors.
Result<std::optional<nlohmann::json>> DescribeCalendarScope(const ConnectorManifest& m,
                                                            const Operation& op,
                                                            const nlohmann::json& args,
                                                            int64_t now_s);
// The verifying read of a calendar update: the file read afresh, the VEVENT the update's scope
// names, and whether each value it set is there (and, when `response` says changed occurrences
// were removed, that none remain): {read, uid, scope, checked [{property, expected, found}],
// found, shows}.
Result<nlohmann::json> ReadCalendarUpdate(const ConnectorManifest& m, const nlohmann::json& args,
                                          const nlohmann::json& response);
// True when the calendar holds an event with that UID.
Result<bool> CalendarHasUid(const ConnectorManifest& m, const std::string& uid);

}  // namespace affordance::connect
