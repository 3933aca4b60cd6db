// `affordance render` and `affordance act`: a view rendered to a model's token IDs.
//
//   affordance render --model M --view FILE --entry NAME --state FILE|- [--batch] [--cache]
//   [--json]
//     Loads the view bound to M's encoder and renders the entry with the state (a JSON object of
//     props; "-" reads stdin). --batch: the state is an array and each element is rendered in
//     turn by the same loaded view (hook state carries over, as between renders of one app).
//     --cache: text runs are cached across the batch (the caller's RunCache, plus the view's
//     projection cache). --json prints {"tokens": [...], "spans": [...], "tools": [...]} (IDs,
//     rebased spans, OpenAI-style tools; an array of those with --batch) without decoding;
//     otherwise the decoded prompt is printed (prompts of a batch separated by a newline).
//   affordance act --model M --view FILE --entry NAME --state FILE --call JSON [--json]
//     Renders the state, dispatches one call {"name": ..., "arguments": {...}} through the
//     projected handler and prints the re-render like `render`.
// Invalid input exits with 2, render failures with 1; in --json mode errors print
// {"error": {"code", "message"[, "detail"]}} on stdout.
#include "base/json_limits.h"
#include "cli/command.h"
#include "cli/output.h"
#include "render/renderer.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace affordance::cli {
namespace {

struct RenderOptions {
  std::string model, view, entry, state, call;
  bool batch = false;
  bool cache = false;
  bool json = false;
};

Result<nlohmann::ordered_json> ReadState(const RenderOptions& o) {
  // Inline JSON (an object, or a --batch array), a file, or - for standard input: as --app-props.
  const size_t first = o.state.find_first_not_of(" \t\r\n");
  const bool inline_json =
      first != std::string::npos && (o.state[first] == '{' || o.state[first] == '[');
  auto text = inline_json ? Result<std::string>(o.state) : ReadFileOrStdin(o.state);
  if (!text.ok()) return text.error();
  if (auto deep = CheckInputDepth(*text, "the state"); !deep) return deep.error();
  nlohmann::ordered_json state = nlohmann::ordered_json::parse(*text, nullptr, false);
  if (state.is_discarded()) {
    return MakeError(ErrorKind::kInvalid, "cli.bad_state", "the state is not valid JSON",
                     JsonSyntaxErrorIn(*text, inline_json      ? "--state"
                                              : o.state == "-" ? "<stdin>"
                                                               : o.state));
  }
  if (o.batch && !state.is_array()) {
    return MakeError(ErrorKind::kInvalid, "cli.bad_state", "--batch needs a JSON array of states",
                     o.state);
  }
  if (!o.batch && !state.is_object()) {
    return MakeError(ErrorKind::kInvalid, "cli.bad_state",
                     "the state must be a JSON object of the entry's props", o.state);
  }
  if (o.batch) {
    for (size_t i = 0; i < state.size(); ++i) {
      if (!state[i].is_object()) {
        return MakeError(ErrorKind::kInvalid, "cli.bad_state",
                         "every state of a --batch must be a JSON object",
                         "index " + std::to_string(i));
      }
    }
  }
  return state;
}

// Prints one result; returns false (after reporting) when decoding fails.
bool Print(const render::Renderer& r, const render::Block& block, bool json,
           nlohmann::ordered_json* batch) {
  if (json) {
    if (batch != nullptr) {
      batch->push_back(block.ToJson());
    } else {
      std::cout << block.ToJson().dump() << std::endl;
    }
    return true;
  }
  auto text = r.tokenizer().Decode(block.tokens);
  if (!text.ok()) {
    ReportError(text.error(), json);
    return false;
  }
  std::cout << *text;
  if (batch != nullptr) std::cout << '\n';
  std::cout.flush();
  return true;
}

int Run(const RenderOptions& o, bool act) {
  auto state = ReadState(o);
  if (!state.ok()) return ReportError(state.error(), o.json, kExitUsage);
  nlohmann::ordered_json call;
  if (act) {
    if (auto deep = CheckInputDepth(o.call, "--call"); !deep) {
      return ReportError(deep.error(), o.json, kExitUsage);
    }
    call = nlohmann::ordered_json::parse(o.call, nullptr, false);
    if (call.is_discarded() || !call.is_object()) {
      return ReportError(
          MakeError(ErrorKind::kInvalid, "cli.bad_call",
                    "--call must be a JSON object {\"name\": ..., \"arguments\": {...}}", o.call),
          o.json, kExitUsage);
    }
  }
  auto renderer = render::Renderer::Load(o.view, o.entry, o.model);
  if (!renderer.ok()) return ReportError(renderer.error(), o.json, kExitUsage);
  render::Renderer& r = **renderer;
  std::unique_ptr<render::RunCache> cache;
  if (o.cache) cache = std::make_unique<render::RunCache>(r.tokenizer());

  if (act) {
    auto first = r.Render(*state, cache.get());
    if (!first.ok()) return ReportError(first.error(), o.json);
    auto next = r.Act(call, cache.get());
    if (!next.ok()) return ReportError(next.error(), o.json);
    return Print(r, *next, o.json, nullptr) ? kExitOk : kExitFailure;
  }
  if (!o.batch) {
    auto block = r.Render(*state, cache.get());
    if (!block.ok()) return ReportError(block.error(), o.json);
    return Print(r, *block, o.json, nullptr) ? kExitOk : kExitFailure;
  }
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (size_t i = 0; i < state->size(); ++i) {
    auto block = r.Render((*state)[i], cache.get());
    if (!block.ok()) {
      Error e = block.error();
      e.detail = "state " + std::to_string(i) + (e.detail.empty() ? "" : ": " + e.detail);
      return ReportError(e, o.json);
    }
    if (!Print(r, *block, o.json, &results)) return kExitFailure;
  }
  if (o.json) std::cout << results.dump() << std::endl;
  return kExitOk;
}

void AddCommon(CLI::App& sub, RenderOptions& o) {
  sub.add_option("--model", o.model, "Registered model name or tokenizer folder")->required();
  sub.add_option("--view", o.view, "The view file (.tsx)")->required();
  sub.add_option("--entry", o.entry, "The entry component (export name)")->required();
  sub.add_option("--state", o.state, "JSON props of the entry: inline JSON, a file, or - for stdin")
      ->required();
  sub.add_flag("--json", o.json, "Print {tokens, spans, tools} instead of the decoded prompt");
}

const bool kRender = RegisterCommand(
    {"render", "Render a view to a model's token IDs, spans and tools",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<RenderOptions>();
       AddCommon(sub, *o);
       sub.add_flag("--batch", o->batch, "The state is an array; render each");
       sub.add_flag("--cache", o->cache, "Reuse encoded text runs across the batch");
       return [o] { return Run(*o, false); };
     }});

const bool kAct = RegisterCommand(
    {"act", "Dispatch one model tool call through a view's projected handler and re-render",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<RenderOptions>();
       AddCommon(sub, *o);
       sub.add_option("--call", o->call, "The call: {\"name\": ..., \"arguments\": {...}}")
           ->required();
       return [o] { return Run(*o, true); };
     }});

}  // namespace
}  // namespace affordance::cli
