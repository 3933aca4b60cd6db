// What `affordance serve` and `affordance mcp` share: one session factory (the store opened and
// recovered once), the turn service whose runtimes are sessions of it, and the turn hub that
// starts turns on that service and fans their events out.
#pragma once

#include "base/result.h"
#include "cli/session.h"
#include "harness/session.h"
#include "harness/turn_service.h"
#include "server/turn_hub.h"
#include "store/store.h"

#include <memory>
#include <vector>

namespace affordance::cli {

struct ServedTurns {
  // Destroyed in reverse: the hub (its turns end), the service (its threads), then the sessions.
  std::unique_ptr<harness::SessionFactory> sessions;  // owns the store every runtime writes
  std::unique_ptr<harness::TurnService> service;
  // serve only: durable streams, leases, stops, each on a store connection of its own
  std::vector<std::unique_ptr<store::Store>> log_stores;
  std::unique_ptr<server::TurnLog> log;
  std::unique_ptr<server::TurnHub> hub;

  store::Store& store() { return sessions->store(); }
};

// Opens the session factory, then `runtimes` sessions for one turn service and the hub over it.
// Turns in flight are not bounded by `runtimes` (a turn borrows one only to render and dispatch).
// With --provider replay every turn gets a fresh provider, so each turn plays the script from its
// first step (a continuation after an approval decision goes on where its response stopped).
// With `log` the hub's turns go through a TurnLog on the store (`affordance serve`: streams that
// resume on any node, leases, stops from any node). Errors: OpenSessionFactory's, the sessions',
// TurnLog::Create's.
Result<ServedTurns> OpenServedTurns(const SessionOptions& o, int runtimes,
                                    const server::TurnLogOptions* log = nullptr);

}  // namespace affordance::cli
