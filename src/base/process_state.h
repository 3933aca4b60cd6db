// Whether a process of this host still runs: for the owners of running turns (harness/owner.h)
// and of executing effects (authority), so that recovery after a crash marks exactly the work
// whose process is gone.
#pragma once

#include <sys/types.h>

namespace affordance {

// The start time of `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat); 0 when it
// cannot be read.
long long ProcessStartTime(pid_t pid);

// True when `pid` runs nothing any more: no such process, a zombie its parent has not reaped yet
// (killed or exited), or, when `start` is not 0, another process that now holds the pid.
bool ProcessGone(pid_t pid, long long start = 0);

}  // namespace affordance
