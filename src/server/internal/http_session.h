// One client connection: reads requests with limits, routes them, writes plain responses or a UI
// message stream (chunked SSE). Private to src/server.
#pragma once

#include "server/gate.h"
#include "server/router.h"
#include "server/server.h"

#include <boost/asio/ip/tcp.hpp>

#include <memory>

namespace affordance::server::internal {

struct SessionConfig {
  const Router* router = nullptr;
  const Gate* gate = nullptr;
  ServerOptions options;
};

// Starts serving `socket` (whose executor is a strand); the session keeps itself alive.
void StartSession(boost::asio::ip::tcp::socket socket, std::shared_ptr<const SessionConfig> config);

}  // namespace affordance::server::internal
