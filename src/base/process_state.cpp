#include "base/process_state.h"

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace affordance {
namespace {

// Fields 3 (the state) and 22 (the start time) of /proc/<pid>/stat; {'?', 0} when unreadable.
struct ProcStat {
  char state = '?';
  long long start = 0;
};

ProcStat StatOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos || paren + 2 >= text.size()) return {};
  std::istringstream fields(text.substr(paren + 2));
  ProcStat stat;
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 3) stat.state = field.empty() ? '?' : field[0];
    if (i == 22) stat.start = std::stoll(field);
  }
  return stat;
}

}  // namespace

long long ProcessStartTime(pid_t pid) { return StatOf(pid).start; }

bool ProcessGone(pid_t pid, long long start) {
  if (pid <= 0) return true;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  const ProcStat stat = StatOf(pid);
  if (stat.state == 'Z' || stat.state == 'X') return true;
  return start != 0 && stat.start != start;
}

}  // namespace affordance
