#include "cli/turn_runner.h"

namespace affordance::cli {

Result<ServedTurns> OpenServedTurns(const SessionOptions& o, int runtimes) {
  auto sessions = OpenSessionFactory(o, /*provider_per_turn=*/true);
  if (!sessions) return sessions.error();
  ServedTurns served;
  served.sessions = std::move(*sessions);
  auto service = harness::TurnService::Create(*served.sessions, {.runtimes = runtimes});
  if (!service) return service.error();
  served.service = std::move(*service);
  auto hub = server::TurnHub::Create(server::ServiceRunner(*served.service));
  if (!hub) return hub.error();
  served.hub = std::move(*hub);
  return served;
}

}  // namespace affordance::cli
