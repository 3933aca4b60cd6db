#include "cli/turn_runner.h"

namespace affordance::cli {

Result<ServedTurns> OpenServedTurns(const SessionOptions& o, int runtimes,
                                    const server::TurnLogOptions* log) {
  auto sessions = OpenSessionFactory(o, /*provider_per_turn=*/true);
  if (!sessions) return sessions.error();
  ServedTurns served;
  served.sessions = std::move(*sessions);
  auto service = harness::TurnService::Create(*served.sessions, {.runtimes = runtimes});
  if (!service) return service.error();
  served.service = std::move(*service);
  server::TurnHubOptions hub_options;
  if (log != nullptr) {
    auto opened = server::TurnLog::Create(served.store(), *log);
    if (!opened) return opened.error();
    served.log = std::move(*opened);
    hub_options.log = served.log.get();
  }
  auto hub = server::TurnHub::Create(server::ServiceRunner(*served.service), hub_options);
  if (!hub) return hub.error();
  served.hub = std::move(*hub);
  return served;
}

}  // namespace affordance::cli
