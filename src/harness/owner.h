// Which process writes a running turn. A running assistant message carries meta.owner = {pid,
// start, host} (the process id and its start time, so a reused pid is not mistaken for the
// writer, and the machine: a writer on another machine is left to its turn's lease);
// recovery treats a running message as abandoned only when that process is gone, so a second
// process opening the same data folder (a chat beside a server) never interrupts a live turn.
#pragma once

#include <nlohmann/json.hpp>

namespace affordance::harness {

// {"pid": ..., "start": ..., "host": ...} of this process.
nlohmann::json TurnOwner();

// For store::Store::RecoverInterrupted: true when meta names no owner, or its process is gone
// (exited, another process now holding its pid, or killed and not yet reaped by its parent).
bool Abandoned(const nlohmann::json& meta);

}  // namespace affordance::harness
