// TimerScheduler: the host side of an app's onTimeout / onInterval handlers.
//
// Layout never projects timer handlers as tools (the model cannot call them); it keeps them as
// action spans named "<event>:<path>" with their handler ID and delay (Span::timer_ms, from the
// element's `timeout` / `interval` prop in milliseconds). A TimerScheduler watches those spans in
// its Renderer's last render and, when the clock says one is due, runs its handler through
// Renderer::RunHostHandler (View::Act, then the same re-render and layout as a model call).
//
//   TimerScheduler timers(*renderer);            // real steady clock; tests pass a fake one
//   renderer->Render(props);  timers.Observe();  // after every render the host makes itself
//   timers.RunDue();                             // fires what is due, observes each re-render
//   timers.NextDue();                            // when to wake up next (nullopt: nothing armed)
//
// Contract:
// - A timer is one handler ID with its event. It is armed when first observed, due `timer_ms`
//   after that observation. onTimeout fires once for as long as that handler stays mounted (a
//   remount gets a new ID and so a new timeout). onInterval fires every `interval` ms while
//   mounted; after firing at deadline d the next deadline is d + interval, or now + interval when
//   the clock has already passed that (missed periods are skipped, never fired in a burst).
// - Deadlines are fixed when armed: a later change of the prop does not move a pending deadline.
// - A timer whose span is gone from the latest render (its element unmounted, or hidden or cut by
//   a budget, like any action layout does not declare) is dropped; seen again, it is armed anew.
// - RunDue fires the timers due at the clock's reading when it starts, earliest deadline first
//   (ties in document order), observing the re-render after each one; timers armed by those
//   re-renders wait for the next RunDue even when their delay is 0, so a call always ends.
// - Errors: "render.invalid_timer" (Observe: an onTimeout without a non-negative numeric
//   `timeout`, or an onInterval without a positive numeric `interval`; the valid timers are still
//   armed), and whatever a handler or re-render returns (RunDue stops there; the timer that failed
//   counts as fired).
//
// Not thread-safe; use it from the thread that uses its Renderer, which it borrows (the Renderer
// must outlive it).
#pragma once

#include "base/result.h"
#include "render/renderer.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace affordance::render {

class TimerScheduler {
 public:
  // Milliseconds on a monotonic clock. The default reads std::chrono::steady_clock.
  using Clock = std::function<int64_t()>;

  explicit TimerScheduler(Renderer& renderer, Clock clock = {});

  // Arms new timers, drops vanished ones, keeps the deadlines of the others, from
  // renderer.last(). Call it after each Render/Act the host makes itself (RunDue observes its own
  // re-renders). Errors: "render.invalid_timer" naming the element's path and the prop.
  Status Observe();

  // Fires every timer due now (see the contract above) and returns how many fired.
  Result<size_t> RunDue(RunCache* outer = nullptr);

  // The earliest pending deadline (clock milliseconds), or nullopt when no timer is armed.
  std::optional<int64_t> NextDue() const;

  // Armed timers, in document order of the latest render.
  struct Timer {
    view::HandlerId handler = 0;
    std::string event;  // "onTimeout" | "onInterval"
    std::string path;   // the element's component path
    int64_t every_ms = 0;
    int64_t due_ms = 0;
    bool fired = false;  // onTimeout only: fired, waiting for its element to unmount
  };
  const std::vector<Timer>& timers() const { return timers_; }

 private:
  Renderer& renderer_;
  Clock clock_;
  std::vector<Timer> timers_;
};

}  // namespace affordance::render
