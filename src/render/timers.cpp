#include "render/timers.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace affordance::render {
namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool IsTimer(const Span& s) {
  return s.kind == Span::Kind::kAction && !s.projected && s.handler != 0 &&
         (s.event == "onTimeout" || s.event == "onInterval");
}

}  // namespace

TimerScheduler::TimerScheduler(Renderer& renderer, Clock clock)
    : renderer_(renderer), clock_(clock ? std::move(clock) : Clock(SteadyMs)) {}

Status TimerScheduler::Observe() {
  const int64_t now = clock_();
  std::unordered_map<view::HandlerId, Timer> previous;
  for (auto& t : timers_) previous.emplace(t.handler, std::move(t));
  timers_.clear();
  std::optional<Error> invalid;
  for (const Span& s : renderer_.last().spans) {
    if (!IsTimer(s)) continue;
    const bool interval = s.event == "onInterval";
    if (s.timer_ms < 0 || (interval && s.timer_ms == 0)) {
      if (!invalid) {
        invalid = MakeError(
            "render.invalid_timer",
            interval ? "onInterval needs an `interval` prop: a positive number of milliseconds"
                     : "onTimeout needs a `timeout` prop: a non-negative number of milliseconds",
            s.path);
      }
      continue;
    }
    if (auto it = previous.find(s.handler); it != previous.end() && it->second.event == s.event) {
      timers_.push_back(std::move(it->second));
      timers_.back().path = s.path;
      timers_.back().every_ms = s.timer_ms;  // used from the next period on
      previous.erase(it);
      continue;
    }
    timers_.push_back(Timer{s.handler, s.event, s.path, s.timer_ms, now + s.timer_ms, false});
  }
  if (invalid) return *invalid;
  return {};
}

std::optional<int64_t> TimerScheduler::NextDue() const {
  std::optional<int64_t> next;
  for (const auto& t : timers_) {
    if (!t.fired && (!next || t.due_ms < *next)) next = t.due_ms;
  }
  return next;
}

Result<size_t> TimerScheduler::RunDue(RunCache* outer) {
  const int64_t now = clock_();
  size_t fired = 0;
  // Only timers armed before this call may fire in it: each firing is one of these handlers,
  // and each handler fires at most once per call.
  std::vector<view::HandlerId> eligible;
  for (const auto& t : timers_) {
    if (!t.fired && t.due_ms <= now) eligible.push_back(t.handler);
  }
  while (!eligible.empty()) {
    // The earliest due eligible timer still armed (document order breaks ties).
    Timer* next = nullptr;
    for (auto& t : timers_) {
      if (t.fired || t.due_ms > now) continue;
      if (std::find(eligible.begin(), eligible.end(), t.handler) == eligible.end()) continue;
      if (next == nullptr || t.due_ms < next->due_ms) next = &t;
    }
    if (next == nullptr) break;  // the rest unmounted while earlier ones fired
    eligible.erase(std::find(eligible.begin(), eligible.end(), next->handler));
    const view::HandlerId handler = next->handler;
    if (next->event == "onTimeout") {
      next->fired = true;
    } else {
      next->due_ms += next->every_ms;
      if (next->due_ms <= now) next->due_ms = now + next->every_ms;
    }
    ++fired;
    auto block = renderer_.RunHostHandler(handler, nlohmann::ordered_json::object(), outer);
    if (!block.ok()) return block.error();
    if (Status s = Observe(); !s.ok()) return s.error();
  }
  return fired;
}

}  // namespace affordance::render
