// View::SnapshotState / RestoreState: hook state keyed by component path, as versioned JSON, moved
// between views and entries, with clear errors for state that no longer fits.
#include "view_test_util.h"

namespace affordance::view {
namespace {

using namespace testing;  // NOLINT

const std::string kApp = "Host/box/Notes#app";

// A Host view whose notes were edited twice and whose row was checked.
std::unique_ptr<View> Edited() {
  auto v = MustLoad("snapshot.tsx", "Host");
  if (!v) return nullptr;
  auto t = v->Render(nlohmann::ordered_json::object());
  EXPECT_TRUE(t.ok());
  t = v->Act(HandlerOf(*t, "notes", "onChange"), {{"value", "draft"}});
  EXPECT_TRUE(t.ok());
  t = v->Act(HandlerOf(*t, "notes", "onChange"), {{"value", "final"}});
  EXPECT_TRUE(t.ok());
  t = v->Act(HandlerOf(*t, "row"), nlohmann::json::object());
  EXPECT_TRUE(t.ok());
  return v;
}

TEST(Snapshot, IsVersionedJsonKeyedByComponentPath) {
  auto v = Edited();
  ASSERT_NE(v, nullptr);
  auto snap = v->SnapshotState(kApp);
  ASSERT_TRUE(snap.ok()) << snap.error().ToString();
  EXPECT_EQ(*snap, nlohmann::ordered_json::parse(R"({
    "version": 1, "root": "Host/box/Notes#app",
    "components": {
      "": {"component": "Notes",
           "hooks": ["useState", "useState", "useReducer", "useState", "useRef", "useMemo"],
           "state": [{"value": "final"}, {"value": 2}, {}]},
      "box/Row#row": {"component": "Row", "hooks": ["useState"], "state": [{"value": true}]}
    }})"));
  auto all = v->SnapshotState();
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE((*all)["components"].contains("Host"));
  EXPECT_TRUE((*all)["components"].contains(kApp + "/box/Row#row"));
}

TEST(Snapshot, RestoresIntoAFreshViewUnderAnotherEntry) {
  auto v = Edited();
  ASSERT_NE(v, nullptr);
  auto snap = v->SnapshotState(kApp);
  ASSERT_TRUE(snap.ok());
  // Through text, as after a process restart.
  const auto saved = nlohmann::ordered_json::parse(snap->dump());
  auto w = MustLoad("snapshot.tsx", "OtherHost");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->RestoreState(saved, "OtherHost/list/Notes#app").ok());
  auto t = w->Render(nlohmann::ordered_json::object());
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(Text(*t), "count=2 upper=FINAL missing=undefinedx");
  EXPECT_EQ(FindLabel(*t, "notes")->props["value"], "final");
  // The restored state is live: handlers and setters work on it.
  t = w->Act(HandlerOf(*t, "notes", "onChange"), {{"value", "more"}});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Text(*t), "count=3 upper=MORE missing=undefinedx");
}

TEST(Snapshot, StateThatNoLongerFitsIsAClearErrorAndTheViewStartsFresh) {
  auto v = Edited();
  ASSERT_NE(v, nullptr);
  auto snap = v->SnapshotState(kApp);
  ASSERT_TRUE(snap.ok());
  struct Case {
    const char* shape;
    std::string root;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"renamed", "Host/box/Other#app",
       "the snapshot holds state of <Notes> at Host/box/Other#app, where this render mounts "
       "<Other>"},
      {"more_hooks", kApp,
       "the state of <Notes> at Host/box/Notes#app no longer fits: the snapshot has "
       "hooks [useState, useState, useReducer, useState, useRef, useMemo], the "
       "component now calls [useState, useState]"},
  };
  for (const auto& c : cases) {
    auto w = MustLoad("snapshot.tsx", "Host");
    ASSERT_NE(w, nullptr);
    ASSERT_TRUE(w->RestoreState(*snap, c.root).ok());
    auto t = w->Render({{"shape", c.shape}});
    ASSERT_FALSE(t.ok()) << c.shape;
    EXPECT_EQ(t.error().code, "view.snapshot_mismatch");
    EXPECT_EQ(t.error().message, c.message);
    // The failed restore is dropped: the next render starts from initial state.
    auto fresh = w->Render(nlohmann::ordered_json::object());
    ASSERT_TRUE(fresh.ok()) << fresh.error().ToString();
    EXPECT_EQ(Text(*fresh), "count=0 upper= missing=undefinedo");
  }
  // A saved component the new tree does not mount.
  auto w = MustLoad("snapshot.tsx", "OtherHost");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->RestoreState(*snap, "Elsewhere/Notes#app").ok());
  auto t = w->Render(nlohmann::ordered_json::object());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, "view.snapshot_mismatch");
  EXPECT_EQ(t.error().message,
            "the snapshot holds state for <Notes> at Elsewhere/Notes#app, which this render did "
            "not mount; the component tree changed");
}

TEST(Snapshot, BadDocumentsAndMisuseAreErrors) {
  auto w = MustLoad("snapshot.tsx", "Host");
  ASSERT_NE(w, nullptr);
  auto s = w->SnapshotState();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "view.not_rendered");

  Status st = w->RestoreState(nlohmann::ordered_json::array());
  EXPECT_EQ(st.error().code, "view.invalid_snapshot");
  EXPECT_EQ(st.error().message, "not a view state snapshot: expected a JSON object");
  st = w->RestoreState({{"version", 2}, {"components", nlohmann::ordered_json::object()}});
  EXPECT_EQ(st.error().code, "view.snapshot_version");
  EXPECT_EQ(st.error().message, "the snapshot has version 2; this runtime reads version 1");
  st = w->RestoreState(nlohmann::ordered_json::parse(
      R"({"version": 1, "components": {"": {"component": "Notes", "hooks": [], "state": [3]}}})"));
  EXPECT_EQ(st.error().code, "view.invalid_snapshot");
  EXPECT_EQ(
      st.error().message,
      "not a view state snapshot: components[\"\"].state must hold {\"value\": ...} or {} entries");

  ASSERT_TRUE(w->Render(nlohmann::ordered_json::object()).ok());
  st = w->RestoreState({{"version", 1}, {"components", nlohmann::ordered_json::object()}});
  EXPECT_EQ(st.error().code, "view.snapshot_after_render");
  auto none = w->SnapshotState("Nowhere");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "view.snapshot_empty");
  EXPECT_EQ(none.error().message, "no mounted component at or under \"Nowhere\"");
}

TEST(Snapshot, StateJsonCannotHoldIsRefusedByPathAndHook) {
  auto w = MustLoad("snapshot.tsx", "Host");
  ASSERT_NE(w, nullptr);
  auto t = w->Render({{"shape", "bad"}});
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(w->SnapshotState().ok());
  t = w->Act(HandlerOf(*t, "break"), nlohmann::json::object());
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  auto s = w->SnapshotState();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "view.snapshot_unserializable");
  EXPECT_NE(s.error().message.find("the state of <Bad> at Host/box/Bad#app (hook 0) holds a Date"),
            std::string::npos)
      << s.error().message;
}

// Issue 24: a snapshot comes from a file or a store. One nested a million levels is refused before
// anything walks it (checks, dump), and the view stays usable.
TEST(Snapshot, ASnapshotNestedTooDeepIsRefusedAndTheViewStaysUsable) {
  auto w = MustLoad("snapshot.tsx", "Host");
  ASSERT_NE(w, nullptr);
  nlohmann::ordered_json doc = {{"version", 1}, {"components", nlohmann::ordered_json::object()}};
  nlohmann::ordered_json* inner = &doc["components"];
  for (int i = 0; i < 1000000; ++i) inner = &(*inner)["x"];  // built without recursion
  Status st = w->RestoreState(doc);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "view.too_deep");
  EXPECT_EQ(st.error().message, "the snapshot nests deeper than 128 levels of arrays and objects");
  EXPECT_TRUE(w->Render(nlohmann::ordered_json::object()).ok());
}

}  // namespace
}  // namespace affordance::view
