// What `affordance serve` and `affordance mcp` share: one session factory (the store opened and
// recovered once) and the turn hub whose workers each run a session of it.
#pragma once

#include "base/result.h"
#include "cli/session.h"
#include "harness/session.h"
#include "server/turn_hub.h"
#include "store/store.h"

#include <memory>

namespace affordance::cli {

struct TurnService {
  std::unique_ptr<harness::SessionFactory> sessions;  // owns the store every worker writes
  std::unique_ptr<server::TurnHub> hub;               // destroy before `sessions`

  store::Store& store() { return sessions->store(); }
};

// Opens the session factory, then `workers` sessions feeding one hub (server::SessionRunners).
// With --provider replay every turn gets a fresh provider, so each turn plays the script from its
// first step (a continuation after an approval decision goes on where its response stopped).
// Errors: OpenSessionFactory's and the sessions'.
Result<TurnService> OpenTurnService(const SessionOptions& o, int workers);

}  // namespace affordance::cli
