#include "harness/owner.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>

namespace affordance::harness {
namespace {

// Field 22 of /proc/<pid>/stat: the start time in clock ticks since boot (0 when unreadable).
long long StartTime(long long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::stoll(field);
  }
  return 0;
}

}  // namespace

nlohmann::json TurnOwner() {
  const long long pid = getpid();
  return {{"pid", pid}, {"start", StartTime(pid)}};
}

bool Abandoned(const nlohmann::json& meta) {
  if (!meta.is_object() || !meta.contains("owner") || !meta["owner"].is_object()) return true;
  const auto& owner = meta["owner"];
  if (!owner.contains("pid") || !owner["pid"].is_number_integer()) return true;
  const long long pid = owner["pid"].get<long long>();
  if (pid <= 0) return true;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  const long long start = owner.value("start", 0LL);
  return start != 0 && StartTime(pid) != start;
}

}  // namespace affordance::harness
