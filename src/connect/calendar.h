// The calendar source: iCalendar (.ics) files read with libical into a mirror's `events` table.
//
// Every VEVENT is expanded (RRULE, RDATE, EXDATE via libical) within the sync window
// [now - past_days, now + future_days]; an instance replaced by a RECURRENCE-ID override is
// written once, as the override. Times are stored as UTC ISO-8601 text (`start`, `end`) and epoch
// seconds (`start_ts`, `end_ts`, end exclusive); DATE values are all-day (`all_day` = 1) and, like
// floating times, are read as UTC. Overlapping intervals, i.e. conflicts, are
// `a.start_ts < b.end_ts AND b.start_ts < a.end_ts`.
#pragma once

#include "base/result.h"
#include "connect/manifest.h"
#include "connect/mirror.h"

#include <cstdint>
#include <string>

namespace affordance::connect {

// DDL of the calendar mirror (idempotent).
const std::string& CalendarSchema();

// Reads every .ics file of `source.paths` (files, or folders scanned for *.ics) and replaces the
// mirror at `mirror_path` with the expanded events in one transaction. Returns the number of event
// rows written. Errors: "connect.source_missing" (a path does not exist), "connect.ics_invalid"
// (a file libical cannot parse, with the file as detail), mirror write errors. A failed sync
// leaves the previous mirror untouched.
Result<int64_t> SyncCalendar(const ConnectorManifest& manifest, const std::string& mirror_path,
                             int64_t now, const ProgressFn& progress);

}  // namespace affordance::connect
