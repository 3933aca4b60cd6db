#include "harness/owner.h"

#include "base/process_state.h"

#include <unistd.h>

#include <string>

namespace affordance::harness {
namespace {

std::string HostName() {
  static const std::string name = [] {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return std::string();
    return std::string(buf);
  }();
  return name;
}

}  // namespace

nlohmann::json TurnOwner() {
  const long long pid = getpid();
  return {{"pid", pid}, {"start", ProcessStartTime(static_cast<pid_t>(pid))}, {"host", HostName()}};
}

bool Abandoned(const nlohmann::json& meta) {
  if (!meta.is_object() || !meta.contains("owner") || !meta["owner"].is_object()) return true;
  const auto& owner = meta["owner"];
  if (!owner.contains("pid") || !owner["pid"].is_number_integer()) return true;
  // A writer on another machine (a node sharing a PostgreSQL store) is not this machine's to
  // judge by pid: its turn's lease decides (store.h TakeExpiredTurns).
  if (owner.contains("host") && owner["host"].is_string() && owner["host"] != HostName()) {
    return false;
  }
  const long long pid = owner["pid"].get<long long>();
  return ProcessGone(static_cast<pid_t>(pid), owner.value("start", 0LL));
}

}  // namespace affordance::harness
