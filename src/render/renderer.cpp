#include "render/renderer.h"

#include "base/json_limits.h"
#include "render/layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace affordance::render {
namespace {

uint64_t Now() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

Renderer::Renderer(std::shared_ptr<const text::Tokenizer> tokenizer,
                   std::unique_ptr<view::View> view)
    : tokenizer_(std::move(tokenizer)), view_(std::move(view)), projection_cache_(*tokenizer_) {
  view_->SetChatToolsHook([this](const std::vector<view::Node>& children,
                                 const nlohmann::ordered_json& options,
                                 const view::ChatTools* previous) -> Result<view::ChatTools> {
    const uint64_t start = Now();
    struct Charge {
      RenderProfile& p;
      uint64_t start;
      ~Charge() { p.projection_ns += Now() - start; }
    } charge{profile_, start};
    auto layout_options = ProjectionOptions(options);
    if (!layout_options.ok()) return layout_options.error();
    layout_options->cache = use_projection_cache_ ? &projection_cache_ : nullptr;
    auto block = Layout(children, *tokenizer_, *layout_options);
    if (!block.ok()) return block.error();
    auto shared = std::make_shared<const Block>(std::move(block).value());
    // An act that changed the app but not its actions: the view keeps its tool objects.
    const Block* last = previous != nullptr ? BlockOf(previous->block) : nullptr;
    if (last != nullptr && last->tools == shared->tools) {
      view::ChatTools same{WrapBlock(std::move(shared))};
      same.tools = nullptr;
      same.same_tools = true;
      return same;
    }
    nlohmann::ordered_json tools = shared->ToolsJson();
    return view::ChatTools{WrapBlock(std::move(shared)), std::move(tools)};
  });
}

Result<std::unique_ptr<Renderer>> Renderer::Load(const std::string& view_path,
                                                 const std::string& entry, const std::string& model,
                                                 view::ViewOptions options) {
  auto tokenizer = text::LoadModel(model);
  if (!tokenizer.ok()) return tokenizer.error();
  return Load(view_path, entry, *tokenizer, model, std::move(options));
}

Result<std::unique_ptr<Renderer>> Renderer::Load(const std::string& view_path,
                                                 const std::string& entry,
                                                 std::shared_ptr<const text::Tokenizer> tokenizer,
                                                 const std::string& model_name,
                                                 view::ViewOptions options) {
  auto view =
      view::View::Load(view_path, entry, view::Encoder{model_name, tokenizer}, std::move(options));
  if (!view.ok()) return view.error();
  return std::unique_ptr<Renderer>(new Renderer(std::move(tokenizer), std::move(view).value()));
}

Result<Block> Renderer::LayOut(Result<std::vector<view::Node>> nodes, RunCache* outer) {
  use_projection_cache_ = false;
  if (!nodes.ok()) return nodes.error();
  LayoutOptions options;
  options.mode = LayoutOptions::Mode::kDocument;
  options.cache = outer;
  const uint64_t start = Now();
  auto block = Layout(*nodes, *tokenizer_, options);
  profile_.layout_ns = Now() - start;
  if (!block.ok()) return block.error();
  last_ = *block;
  rendered_ = true;
  return block;
}

Result<Block> Renderer::Render(const nlohmann::ordered_json& props, RunCache* outer) {
  use_projection_cache_ = outer != nullptr;
  profile_ = {};
  const uint64_t start = Now();
  auto nodes = view_->Render(props);
  profile_.view_ns = Now() - start - profile_.projection_ns;
  return LayOut(std::move(nodes), outer);
}

Result<Block> Renderer::Act(const nlohmann::ordered_json& call, RunCache* outer) {
  if (!call.is_object() || !call.contains("name") || !call["name"].is_string()) {
    return MakeError("render.invalid_call",
                     "a call is an object {\"name\": string, \"arguments\": object}", call.dump());
  }
  const std::string name = call["name"].get<std::string>();
  // Arguments are the model's (or a command line's): bounded before they are copied, parsed or
  // handed to the view, all of which recurse over the value (base/json_limits.h).
  if (auto a = call.find("arguments"); a != call.end()) {
    const bool too_deep = a->is_string()
                              ? JsonTextDepth(a->get_ref<const std::string&>()) > kMaxJsonDepth
                              : JsonValueDepth(*a) > kMaxJsonDepth;
    if (too_deep) {
      return MakeError("render.too_deep",
                       "the call's arguments nest deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels of arrays and objects",
                       name);
    }
  }
  nlohmann::ordered_json arguments = call.value("arguments", nlohmann::ordered_json::object());
  if (arguments.is_string()) {
    // Chat APIs deliver arguments as a JSON string.
    arguments = nlohmann::ordered_json::parse(arguments.get<std::string>(), nullptr, false);
    if (arguments.is_discarded()) {
      return MakeError("render.invalid_call", "the call's arguments string is not JSON", name);
    }
  }
  if (!arguments.is_object()) {
    return MakeError("render.invalid_call", "a call's arguments must be a JSON object", name);
  }
  if (!rendered_) {
    return MakeError("render.not_rendered", "act needs a render first: nothing is projected yet");
  }
  const Tool* tool = nullptr;
  std::string known;
  for (const auto& t : last_.tools) {
    if (t.name == name) tool = &t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  if (tool == nullptr) {
    return MakeError("render.unknown_tool",
                     fmt::format("no projected tool is named {}; the tools are: {}", name,
                                 known.empty() ? "(none)" : known));
  }
  if (!tool->callable || tool->handler == 0) {
    return MakeError("render.not_callable",
                     fmt::format("{} was projected with callable: false (a preview); the model "
                                 "cannot call it",
                                 name));
  }
  use_projection_cache_ = true;  // act reuses native runs
  profile_ = {};
  const uint64_t start = Now();
  auto nodes = view_->Act(tool->handler, arguments);
  profile_.view_ns = Now() - start - profile_.projection_ns;
  return LayOut(std::move(nodes), outer);
}

Result<Block> Renderer::RunHostHandler(view::HandlerId id, const nlohmann::ordered_json& args,
                                       RunCache* outer) {
  if (!rendered_) return MakeError("render.not_rendered", "nothing is rendered yet");
  const bool known = std::any_of(last_.spans.begin(), last_.spans.end(), [&](const Span& s) {
    return s.kind == Span::Kind::kAction && !s.projected && s.handler == id && id != 0;
  });
  if (!known) {
    return MakeError("render.unknown_handler",
                     fmt::format("handler {} is not a timer or callback of the last render", id));
  }
  use_projection_cache_ = true;
  profile_ = {};
  const uint64_t start = Now();
  auto nodes = view_->Act(id, args);
  profile_.view_ns = Now() - start - profile_.projection_ns;
  return LayOut(std::move(nodes), outer);
}

}  // namespace affordance::render
