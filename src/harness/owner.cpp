#include "harness/owner.h"

#include "base/process_state.h"

#include <unistd.h>

namespace affordance::harness {

nlohmann::json TurnOwner() {
  const long long pid = getpid();
  return {{"pid", pid}, {"start", ProcessStartTime(static_cast<pid_t>(pid))}};
}

bool Abandoned(const nlohmann::json& meta) {
  if (!meta.is_object() || !meta.contains("owner") || !meta["owner"].is_object()) return true;
  const auto& owner = meta["owner"];
  if (!owner.contains("pid") || !owner["pid"].is_number_integer()) return true;
  const long long pid = owner["pid"].get<long long>();
  return ProcessGone(static_cast<pid_t>(pid), owner.value("start", 0LL));
}

}  // namespace affordance::harness
