// What a staged write will do, in words a person can check before deciding (docs/AUTHORITY.md
// "The effect card"). The effect is computed from the mutation contract and the exact arguments,
// never from the model's prose, and stored with the approval:
//
//   verb      create | update | delete | write (the contract's `effect`, else "write")
//   summary   one line: the operation's `summary` template ("Add {name} to the list"), else a
//             built-in line for calendar events, else the operation's name and connector title
//   target    where it lands: the connector's title and its source (file, database, command)
//   fields    one per argument: label (the schema's `title`, else the name), kind (text,
//             datetime, date, number, boolean, json) and `after`; for an update or delete also
//             `before`, from a fresh read of the source, and `changed`
//   before    {read, found, error?}: how the before values were read, whether the target exists
//
// Times stay ISO 8601 UTC in the stored form; every door formats them in the person's zone and
// locale (EffectLines here for the terminal, the CLI and MCP; the browser's Intl for the web).
#pragma once

#include "base/result.h"
#include "connect/manifest.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace affordance::connect {

// The effect of `op` with `args` before any read: verb, summary, target and the fields' after
// values. `before` (a row from a fresh read, or nullopt when there is no target to read, or
// none was found) fills the before values and the summary's name of what changes.
// `scope` (a calendar's, from DescribeCalendarScope, or null) names what a recurring event's
// update or delete reaches: the summary says "one occurrence" or "every occurrence", and the
// fields count the occurrences and the separately changed ones before and after. It is kept as
// the effect's `scope`.
nlohmann::json DescribeMutation(const ConnectorManifest& m, const Operation& op,
                                const nlohmann::json& args,
                                const std::optional<nlohmann::json>& before,
                                const nlohmann::json& scope = nullptr);

// The fresh read behind an update or delete, where the contract makes one: the `before`
// operation's args with "$name" strings bound from `args`. nullopt: nothing to read (a create,
// or a mutation that declares no before read and is not a calendar event).
struct BeforeRead {
  std::string operation;  // a readable operation of the connector, or "" (calendar: the file)
  nlohmann::json args = nlohmann::json::object();
};
std::optional<BeforeRead> BeforeReadOf(const Operation& op, const nlohmann::json& args);

// The lines a person reads, times in this process's local time zone (TZ), `now_ms` for the
// expiry ("in 6 days"). `width` caps each line (0: no cap).
std::vector<std::string> EffectLines(const nlohmann::json& effect, int64_t expires_ms,
                                     int64_t now_ms, size_t width = 0);
// One ISO 8601 time (UTC, "Z" or an offset; a date "YYYY-MM-DD") in the local zone, e.g.
// "Thu 3 Dec 2026, 16:00 CET"; a date as "Thu 3 Dec 2026"; text that is no time comes back as is.
std::string LocalTime(const std::string& iso);

}  // namespace affordance::connect
