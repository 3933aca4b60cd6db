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
    // The log and the lease thread each on a connection of their own: a turn's chunks and a
    // lease renewal never queue behind the harnesses' writes (one connection per store).
    for (int i = 0; i < 2; ++i) {
      auto s = store::Open(StoreSpec(o));
      if (!s) return s.error();
      served.log_stores.push_back(std::move(*s));
    }
    auto opened = server::TurnLog::Create(*served.log_stores[0], *log, served.log_stores[1].get());
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
