// What `affordance serve` and `affordance mcp` share: the turn hub over N sessions (each worker
// owns a Frame, a connector road and a provider; all write one store), opened once.
#pragma once

#include "base/result.h"
#include "cli/session.h"
#include "server/turn_hub.h"
#include "store/store.h"

#include <memory>

namespace affordance::cli {

struct TurnService {
  std::unique_ptr<store::Store> store;   // shared by every worker (opened and recovered once)
  std::unique_ptr<server::TurnHub> hub;  // destroy before `store`
};

// Opens the store, then `workers` sessions feeding one hub. With --provider replay every turn
// gets a fresh provider, so each turn plays the script from its first step (a continuation after
// an approval decision goes on where its response stopped). Errors: OpenSession's
// and the replay script's.
Result<TurnService> OpenTurnService(const SessionOptions& o, int workers);

}  // namespace affordance::cli
