// Private to src/connect: the outcome of running one operation (plus its fan-out) for
// RunConnectorCommand.
#pragma once

#include "connect/result.h"
#include "connect/road.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace affordance::connect {

struct ConnectorRoad::Execution {
  std::vector<nlohmann::json> rows;
  bool source_truncated = false;  // the source stopped at its own row cap
  bool partial = false;           // some fan-out reads (or the CLI, exit 6) failed
  int64_t listed = -1;            // a fan-out: the list's size before a limit cut it (-1: none)
  bool clipped = false;           // an MCP row field was cut to kMcpFieldChars
  std::vector<LedgerEntry> ledger;
  std::vector<QueryContract> contracts;
  MirrorSnapshot snapshot;
};

}  // namespace affordance::connect
