#include "cli/turn_runner.h"

namespace affordance::cli {

Result<TurnService> OpenTurnService(const SessionOptions& o, int workers) {
  auto sessions = OpenSessionFactory(o, /*provider_per_turn=*/true);
  if (!sessions) return sessions.error();
  TurnService service;
  service.sessions = std::move(*sessions);
  auto hub =
      server::TurnHub::Create(server::SessionRunners(*service.sessions), {.workers = workers});
  if (!hub) return hub.error();
  service.hub = std::move(*hub);
  return service;
}

}  // namespace affordance::cli
