// render::TimerScheduler (src/render/timers.h) with a fake clock, on a real view in the real Qwen3
// wrapper: due handlers fire through View::Act and re-render, intervals skip missed periods,
// unmounted timers are dropped, timers are never tools, and a timer without a delay is an error.
#include "render/timers.h"

#include <gtest/gtest.h>

namespace affordance::render {
namespace {

const std::string kRoot = AFFORDANCE_SOURCE_DIR;

class Timers : public ::testing::Test {
 protected:
  void SetUp() override {
    view::ViewOptions o;
    o.lib_root = kRoot + "/views/lib";
    o.cache_dir = "-";
    auto r = Renderer::Load(kRoot + "/tests/unit/render/data/clock_view.tsx", "ClockChat",
                            "Qwen__Qwen3-4B-Instruct-2507", o);
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    renderer = std::move(r).value();
    scheduler = std::make_unique<TimerScheduler>(*renderer, [this] { return now; });
  }
  std::string Text() {
    auto t = renderer->tokenizer().Decode(renderer->last().tokens);
    return t.ok() ? *t : "?";
  }
  size_t Run() {
    auto n = scheduler->RunDue();
    EXPECT_TRUE(n.ok()) << n.error().ToString();
    return n.ok() ? *n : 0;
  }
  int64_t now = 10000;
  std::unique_ptr<Renderer> renderer;
  std::unique_ptr<TimerScheduler> scheduler;
};

TEST_F(Timers, DueHandlersFireThroughActAndReRender) {
  ASSERT_TRUE(renderer->Render(nlohmann::ordered_json::object()).ok());
  ASSERT_TRUE(scheduler->Observe().ok());
  ASSERT_EQ(scheduler->timers().size(), 2u);
  EXPECT_EQ(scheduler->NextDue(), 10500);
  now = 10499;
  EXPECT_EQ(Run(), 0u);
  EXPECT_NE(Text().find("ticks: 0\n"), std::string::npos);
  now = 10500;
  EXPECT_EQ(Run(), 1u);
  EXPECT_NE(Text().find("ticks: 1\nreminded: false"), std::string::npos) << Text();
  EXPECT_EQ(scheduler->NextDue(), 11000);
  now = 11000;  // both due: the reminder (armed first in document order) and the clock
  EXPECT_EQ(Run(), 2u);
  EXPECT_NE(Text().find("ticks: 2\nreminded: true"), std::string::npos) << Text();
  // A timeout fires once while its element stays mounted.
  EXPECT_EQ(scheduler->NextDue(), 11500);
  now = 20000;
  EXPECT_EQ(Run(), 1u);  // missed periods are skipped, not replayed in a burst
  EXPECT_NE(Text().find("ticks: 3\n"), std::string::npos) << Text();
  EXPECT_EQ(scheduler->NextDue(), 20500);
}

TEST_F(Timers, TimersAreNeverToolsAndTheModelCannotCallThem) {
  auto b = renderer->Render(nlohmann::ordered_json::object());
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->tools.size(), 1u);
  EXPECT_EQ(b->tools[0].name, "click__reset");
  auto call = renderer->Act({{"name", "onInterval:ClockChat/Clock#clock/box/box[3]"},
                             {"arguments", nlohmann::json::object()}});
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.error().code, "render.unknown_tool");
  // And the host road refuses projected handlers: those belong to the model's calls.
  auto host = renderer->RunHostHandler(b->tools[0].handler, nlohmann::json::object());
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().code, "render.unknown_handler");
}

TEST_F(Timers, UnmountedTimersAreDroppedAndRemountedOnesArmedAnew) {
  ASSERT_TRUE(renderer->Render(nlohmann::ordered_json::object()).ok());
  ASSERT_TRUE(scheduler->Observe().ok());
  ASSERT_TRUE(renderer->Render({{"ticking", false}}).ok());
  ASSERT_TRUE(scheduler->Observe().ok());
  ASSERT_EQ(scheduler->timers().size(), 1u);
  EXPECT_EQ(scheduler->timers()[0].event, "onTimeout");
  now = 10600;
  EXPECT_EQ(Run(), 0u);
  ASSERT_TRUE(renderer->Render({{"ticking", true}}).ok());
  ASSERT_TRUE(scheduler->Observe().ok());
  EXPECT_EQ(scheduler->NextDue(), 11000);  // the reminder, still due at its first deadline
  ASSERT_EQ(scheduler->timers().size(), 2u);
  EXPECT_EQ(scheduler->timers()[1].due_ms, 11100);  // the clock: armed when seen again
}

TEST_F(Timers, AnIntervalWithoutADelayIsAnError) {
  ASSERT_TRUE(renderer->Render({{"bad", true}}).ok());
  Status s = scheduler->Observe();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "render.invalid_timer");
  EXPECT_EQ(s.error().message,
            "onInterval needs an `interval` prop: a positive number of milliseconds");
  EXPECT_EQ(s.error().detail, "ClockChat/Clock#clock/box/box[4]");
  EXPECT_EQ(scheduler->timers().size(), 2u);  // the valid ones are armed
}

TEST_F(Timers, RunDueBeforeObservingFiresNothing) {
  now = 99999;
  EXPECT_EQ(Run(), 0u);
  EXPECT_EQ(scheduler->NextDue(), std::nullopt);
}

}  // namespace
}  // namespace affordance::render
