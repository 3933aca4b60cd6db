// Test support for the harness: a real SQLite store in a temporary folder, the real tokenizers,
// the example calendar connector (a copy of examples/connectors), the real frame view, and the
// replay provider standing in for a model (none can run here; the model-backed tests use a
// random-weight GGUF, see harness_engine_test.cpp).
#pragma once

#include "authority/authority.h"
#include "connect/manifest.h"
#include "connect/road.h"
#include "harness/frame.h"
#include "harness/frame_text.h"
#include "harness/harness.h"
#include "model/replay_provider.h"
#include "server/protocol.h"
#include "store/store.h"
#include "text/tokenizer.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace affordance::harness::testing {

inline constexpr const char* kQwen = "Qwen__Qwen3-4B-Instruct-2507";
inline constexpr const char* kLlama = "meta-llama__Llama-3.1-8B-Instruct";
// 2026-11-27T12:00:00Z (a Friday).
inline constexpr int64_t kNow = 1795780800;

// The week the example calendar holds, and the event the write tests stage in it.
inline const nlohmann::json kWeek = {{"from", "2026-11-30T00:00:00Z"},
                                     {"to", "2026-12-07T00:00:00Z"}};
inline const nlohmann::json kEvent = {
    {"summary", "Budget sync"}, {"start", "2026-12-03T15:00:00Z"}, {"end", "2026-12-03T16:00:00Z"}};

inline std::string Source(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-harness-XXXXXX");
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A Qwen3 tool call as the model writes it.
inline std::string Call(const std::string& name, const nlohmann::json& args) {
  return "<tool_call>\n" + nlohmann::json{{"name", name}, {"arguments", args}}.dump() +
         "\n</tool_call>";
}

// A model call in the binding's format (Qwen3's tags, or Llama 3.1's bare JSON).
inline std::string CallIn(const std::string& model, const std::string& name,
                          const nlohmann::json& args) {
  if (model == kQwen) return Call(name, args);
  return nlohmann::json{{"name", name}, {"parameters", args}}.dump();
}

inline std::shared_ptr<const text::Tokenizer> Tokenizer(const std::string& model = kQwen) {
  static std::map<std::string, std::shared_ptr<const text::Tokenizer>> cache;
  auto& t = cache[model];
  if (!t) {
    auto loaded = text::LoadModel(model);
    EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().ToString());
    t = *loaded;
  }
  return t;
}

// A Qwen3 model's staging of kEvent: it reads the week, attaches invoke_mutation and stages the
// write, giving `evidence`; then `answers` follow, one step each.
inline nlohmann::json StagingThen(const std::string& evidence,
                                  const std::vector<std::string>& answers) {
  nlohmann::json steps = nlohmann::json::array(
      {Call("RunConnectorCommand", {{"connector", "calendar"},
                                    {"request", {{"operation", "list_events"}, {"args", kWeek}}}}),
       Call("ToolSearch", {{"query", "select:invoke_mutation"}}),
       Call("invoke_mutation", {{"connector", "calendar"},
                                {"operation", "create_event"},
                                {"args", kEvent},
                                {"evidence", evidence}})});
  for (const auto& a : answers) steps.push_back(a);
  return steps;
}

struct RigOptions {
  std::string model = kQwen;
  std::vector<MountedApp> apps;
  bool connectors = true;
  // Grants a person gives before the test: a read grant on the calendar (reads need grants).
  std::vector<std::string> grants = {"read"};
  HarnessOptions harness;
};

// Everything one harness needs, wired as `affordance chat` wires it.
struct Rig {
  TempDir dir;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<model::Provider> provider;
  std::unique_ptr<connect::ConnectorRoad> road;
  std::unique_ptr<Frame> frame;
  std::unique_ptr<Harness> harness;
  std::string thread;
  std::vector<nlohmann::ordered_json> events;

  using Options = RigOptions;

  // `steps`: the replay script's steps (strings or objects).
  explicit Rig(const nlohmann::json& steps, Options o = {}) : Rig(nullptr, steps, std::move(o)) {}
  // A real provider instead of the replay script (`provider` bound to the model's tokenizer).
  Rig(std::unique_ptr<model::Provider> real, Options o)
      : Rig(std::move(real), nullptr, std::move(o)) {}

  Rig(std::unique_ptr<model::Provider> real, const nlohmann::json& steps, Options o) {
    auto s = store::OpenSqlite(dir / "data/affordance.db");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().ToString());
    store = std::move(*s);
    if (real) {
      provider = std::move(real);
    } else {
      nlohmann::json script = {{"format", o.model == kQwen ? "qwen3" : "llama3.1"},
                               {"steps", steps}};
      auto parsed = model::ParseReplayScript(script.dump());
      EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().ToString());
      auto p = model::ReplayProvider::Create(Tokenizer(o.model), *parsed);
      EXPECT_TRUE(p.ok());
      provider = std::move(*p);
    }
    if (o.connectors) {
      std::filesystem::create_directories(dir / "connectors");
      std::filesystem::copy_file(Source("examples/connectors/calendar.ics"),
                                 dir / "connectors/calendar.ics");
      std::filesystem::copy_file(Source("examples/connectors/calendar.json"),
                                 dir / "connectors/calendar.json");
      auto manifests = connect::LoadManifests(dir / "connectors");
      EXPECT_TRUE(manifests.ok()) << (manifests.ok() ? "" : manifests.error().ToString());
      // Only the calendar: the printed-CLI example needs its fixture binary.
      std::vector<connect::ConnectorManifest> keep;
      for (auto& m : *manifests) {
        if (m.slug == "calendar") keep.push_back(m);
      }
      connect::RoadOptions ro;
      ro.data_dir = dir / "data";
      ro.clock = [] { return kNow; };
      road = std::make_unique<connect::ConnectorRoad>(std::move(keep), ro);
      authority::Authority people(*store, road.get());
      for (const auto& access : o.grants) {
        auto g = people.Grant("calendar", "", access, 0, authority::Actor::User("tester"));
        EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().ToString());
      }
    }
    FrameOptions fo;
    fo.views_root = Source("views");
    fo.model = o.model;
    fo.tokenizer = Tokenizer(o.model);
    fo.apps = o.apps;
    fo.work_dir = dir / "data/frames";
    auto f = Frame::Load(fo);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().ToString());
    frame = std::move(*f);
    HarnessOptions ho = o.harness;
    if (!ho.clock) ho.clock = [] { return kNow; };
    harness = std::make_unique<Harness>(*store, *provider, *frame, road.get(), ho);
    auto t = store->CreateThread("test");
    EXPECT_TRUE(t.ok());
    thread = t->id;
  }

  Result<TurnReport> Turn(const std::string& text, model::CancelToken cancel = model::CancelToken(),
                          std::function<void(const Event&)> also = {}) {
    return harness->RunTurn(
        thread, text,
        [&](const Event& e) {
          events.push_back(server::UiChunk(e));
          if (also) also(e);
        },
        cancel);
  }

  std::vector<std::string> Types() const {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(e.value("type", ""));
    return out;
  }

  std::vector<nlohmann::ordered_json> OfType(const std::string& type) const {
    std::vector<nlohmann::ordered_json> out;
    for (const auto& e : events) {
      if (e.value("type", "") == type) out.push_back(e);
    }
    return out;
  }
};

}  // namespace affordance::harness::testing
