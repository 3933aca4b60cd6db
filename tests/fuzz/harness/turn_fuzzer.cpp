// Arbitrary model output through the whole loop. The input is split at NUL bytes into up to six
// steps of what a model might write (tool calls well-formed or not, unknown tools, bad arguments,
// special-token spellings, invalid UTF-8), replayed through the real Qwen3 parser, the adapter,
// the call checks, the tools, an in-memory store and the real frame view. Invariants checked on
// every input: the turn returns a report; the event stream starts with `start` and ends with
// `finish` or `abort`; text/reasoning starts are ended; no stored part stays open; every tool part
// ends with a result or an explicit state.
#include "harness/frame.h"
#include "harness/harness.h"
#include "model/replay_provider.h"
#include "server/protocol.h"
#include "store/store.h"
#include "text/tokenizer.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

namespace {

using namespace affordance;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "invariant broken: %s\n", what.c_str());
  std::abort();
}

// A provider whose replay script is replaced for every input.
class Swappable final : public model::Provider {
 public:
  std::unique_ptr<model::ReplayProvider> inner;
  Status Stream(const model::StepRequest& r, const model::PartSink& sink,
                const model::CancelToken& cancel) override {
    return inner->Stream(r, sink, cancel);
  }
  std::string_view kind() const override { return "replay"; }
};

struct World {
  std::shared_ptr<const text::Tokenizer> tok =
      text::LoadModel("Qwen__Qwen3-4B-Instruct-2507").value();
  std::unique_ptr<store::Store> store = store::OpenSqlite(":memory:").value();
  Swappable provider;
  std::unique_ptr<harness::Frame> frame;
  std::unique_ptr<harness::Harness> harness;
  World() {
    harness::FrameOptions fo;
    fo.views_root = std::string(AFFORDANCE_SOURCE_DIR) + "/views";
    fo.model = "Qwen__Qwen3-4B-Instruct-2507";
    fo.tokenizer = tok;
    frame = harness::Frame::Load(fo).value();
    harness::HarnessOptions ho;
    ho.stop.max_steps = 6;
    ho.clock = [] { return int64_t{1795780800}; };
    harness = std::make_unique<harness::Harness>(*store, provider, *frame, nullptr, ho);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = new World();
  std::string input(reinterpret_cast<const char*>(data), size);
  nlohmann::json steps = nlohmann::json::array();
  size_t start = 0;
  while (steps.size() < 6) {
    size_t nul = input.find('\0', start);
    std::string step =
        input.substr(start, nul == std::string::npos ? std::string::npos : nul - start);
    // JSON text must be valid UTF-8: keep the bytes as Latin-1-free replacement where they are not.
    std::string clean;
    for (unsigned char c : step) clean.push_back(c < 0x80 ? static_cast<char>(c) : '?');
    steps.push_back(clean);
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  auto script =
      model::ParseReplayScript(nlohmann::json{{"format", "qwen3"}, {"steps", steps}}.dump());
  if (!script.ok()) Fail("a generated script did not parse: " + script.error().ToString());
  world->provider.inner = model::ReplayProvider::Create(world->tok, *script).value();
  auto thread = world->store->CreateThread("fuzz").value();

  std::vector<nlohmann::ordered_json> events;
  auto report = world->harness->RunTurn(
      thread.id, "go", [&](const harness::Event& e) { events.push_back(server::UiChunk(e)); },
      model::CancelToken());
  if (!report.ok()) Fail("RunTurn failed: " + report.error().ToString());
  if (events.empty() || events.front()["type"] != "start")
    Fail("the stream does not start with start");
  const std::string last = events.back()["type"];
  if (last != "finish" && last != "abort") Fail("the stream ends with " + last);
  std::set<std::string> open;
  for (const auto& e : events) {
    const std::string type = e["type"];
    if (type == "text-start" || type == "reasoning-start") open.insert(e["id"].get<std::string>());
    if (type == "text-end" || type == "reasoning-end") open.erase(e["id"].get<std::string>());
  }
  if (!open.empty()) Fail("a text part was never ended");
  auto messages = world->store->LoadThread(thread.id);
  if (!messages.ok() || messages->size() != 2) Fail("the turn was not persisted");
  for (const auto& p : (*messages)[1].parts) {
    if (p.open) Fail("a stored part is still open: " + p.kind + " " + p.key);
    if (p.kind == "tool" && !p.data.contains("resultText") &&
        p.data.value("status", "") != "cancelled") {
      Fail("a tool part has neither a result nor an explicit state");
    }
  }
  (void)world->store->DeleteThread(thread.id);
  return 0;
}
