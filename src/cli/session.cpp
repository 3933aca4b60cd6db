#include "cli/session.h"

#include "authority/authority.h"

#include "base/data_dir.h"
#include "base/json_limits.h"
#include "cli/output.h"
#include "connect/manifest.h"
#include "formats/output_parser.h"
#include "harness/owner.h"
#include "model/http_provider.h"
#include "model/llama_provider.h"
#include "model/replay_provider.h"
#include "text/tokenizer.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;

namespace affordance::cli {

std::string ProviderOf(const SessionOptions& o) {
  if (!o.provider.empty()) return o.provider;
  if (!o.script.empty()) return "replay";
  if (!o.gguf.empty()) return "llama";
  if (!o.base_urls.empty()) return "openai";
  return "none";
}

void AddSessionOptions(CLI::App& app, SessionOptions& o) {
  app.add_option("--data", o.data, "Data folder (default $AFFORDANCE_DATA, else XDG data home)");
  app.add_option("--store", o.store,
                 "The store: a PostgreSQL URI (postgresql://...) shared by several nodes, or a "
                 "SQLite file (default $AFFORDANCE_STORE, else <data>/affordance.db)");
  app.add_option("--model", o.model, "Model binding: a registered tokenizer name")
      ->capture_default_str();
  app.add_option("--provider", o.provider,
                 "replay | llama | openai (default: the one --script, --gguf or --base-url names; "
                 "without any, turns report that no model is configured)");
  app.add_option("--script", o.script, "Replay script (JSON) for --provider replay");
  app.add_option("--gguf", o.gguf, "GGUF model file for --provider llama");
  app.add_option("--context", o.context, "Context size for --provider llama")
      ->capture_default_str();
  app.add_option("--parallel", o.parallel,
                 "Steps --provider llama runs at once, as sequences of one context (each gets "
                 "--context / N tokens; llama.cpp batches them continuously)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--base-url", o.base_urls,
                 "OpenAI-compatible server for --provider openai; repeat it for replicas of one "
                 "model (a thread keeps to one, failing over when it is down)")
      ->allow_extra_args(false)  // one URL per --base-url, never the positional message after it
      ->take_all();
  app.add_option("--affinity-header", o.affinity_header,
                 "Header that carries the thread id to the engine or its router (\"\": none)")
      ->capture_default_str();
  app.add_option("--model-read-timeout-ms", o.model_read_timeout_ms,
                 "Longest silence from the engine once a step was sent (then model.read_timeout)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  app.add_option("--api", o.api, "completions (token IDs) | chat (messages + tools)")
      ->capture_default_str();
  app.add_option("--api-key-env", o.api_key_env, "Name of the variable that holds the API key");
  app.add_option("--server-model", o.server_model, "The request's \"model\" field");
  app.add_option("--extra-body", o.extra_body, "JSON merged into every request body");
  app.add_option("--connectors", o.connectors,
                 "Connector manifest folder (default $AFFORDANCE_CONNECTORS)");
  app.add_option("--skills", o.skills,
                 "Skills folder of <name>/SKILL.md (repeatable; before $AFFORDANCE_SKILLS and "
                 "<data>/skills)")
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--app", o.apps, "Mount a TSX app: VIEW.tsx:Component[:name] (repeatable)")
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--app-props", o.app_props, "Props of the mounted app: a JSON file or JSON text");
  app.add_option("--max-steps", o.max_steps, "Step limit per turn")->capture_default_str();
  app.add_option("--max-tokens", o.max_tokens, "Token limit per step")->capture_default_str();
  app.add_option("--temperature", o.temperature, "0 = greedy")->capture_default_str();
  app.add_option("--seed", o.seed, "Sampling seed");
}

std::string StoreSpec(const SessionOptions& o) {
  if (!o.store.empty()) return o.store;
  if (const char* s = std::getenv("AFFORDANCE_STORE"); s && *s) return s;
  return DataDir(o) + "/affordance.db";
}

std::string DataDir(const SessionOptions& o) {
  if (!o.data.empty()) return o.data;
  if (const char* d = std::getenv("AFFORDANCE_DATA"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/affordance";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/.local/share/affordance";
}

std::string ViewsRoot() {
  if (const char* v = std::getenv("AFFORDANCE_VIEWS"); v && *v) return v;
  if (auto shipped = ShippedDataDir("views")) return shipped->string();
  return "views";
}

namespace {

// `option` names the option for errors ("--extra-body").
Result<nlohmann::ordered_json> ReadJsonArg(const std::string& text_or_file, const char* option) {
  std::string text = text_or_file;
  const bool inline_json = !text.empty() && text[0] == '{';
  if (!inline_json) {
    std::ifstream in(text_or_file, std::ios::binary);
    if (!in) return MakeError(ErrorKind::kInvalid, "cli.bad_file", "cannot read " + text_or_file);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  if (auto deep = CheckInputDepth(text, option); !deep) return deep.error();
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    return MakeError(ErrorKind::kInvalid, "cli.bad_json",
                     std::string(option) + " is not valid JSON",
                     JsonSyntaxErrorIn(text, inline_json ? option : text_or_file));
  }
  return doc;
}

Result<std::unique_ptr<model::Provider>> MakeProvider(const SessionOptions& options,
                                                      std::shared_ptr<const text::Tokenizer> tok,
                                                      formats::ChatFormat format) {
  SessionOptions o = options;
  o.provider = ProviderOf(options);
  if (o.provider == "none") {
    return model::MakeUnconfiguredProvider(
        "no model is configured; start with --provider replay --script FILE (a scripted model), "
        "--provider llama --gguf FILE (a local GGUF model) or --provider openai --base-url URL "
        "(an OpenAI-compatible engine such as vLLM or llama-server)");
  }
  if (o.provider == "replay") {
    if (o.script.empty())
      return MakeError(ErrorKind::kInvalid, "cli.missing_option",
                       "--provider replay needs --script FILE");
    auto script = model::LoadReplayScript(o.script);
    if (!script) return script.error();
    if (script->format != format) {
      return MakeError(ErrorKind::kInvalid, "cli.bad_binding",
                       "the replay script is for another chat format than --model",
                       std::string(formats::ChatFormatName(script->format)) + " vs " +
                           std::string(formats::ChatFormatName(format)));
    }
    auto p = model::ReplayProvider::Create(tok, std::move(*script));
    if (!p) return p.error();
    return std::unique_ptr<model::Provider>(std::move(*p));
  }
  if (o.provider == "llama") {
    if (o.gguf.empty())
      return MakeError(ErrorKind::kInvalid, "cli.missing_option",
                       "--provider llama needs --gguf FILE");
    if (!fs::exists(o.gguf))
      return MakeError(ErrorKind::kNotFound, "model.not_found", "no model file at " + o.gguf);
    if (!model::LlamaProvider::Available()) {
      return MakeError("model.llama_unavailable",
                       "this build has no embedded llama.cpp (configure with AFFORDANCE_LLAMA=ON)");
    }
    model::LlamaProviderOptions lo;
    lo.model_path = o.gguf;
    lo.format = format;
    lo.context_tokens = o.context;
    lo.parallel = o.parallel;
    auto p = model::LlamaProvider::Open(tok, lo);
    if (!p) return p.error();
    return std::unique_ptr<model::Provider>(std::move(*p));
  }
  if (o.provider == "openai") {
    if (o.base_urls.empty())
      return MakeError(ErrorKind::kInvalid, "cli.missing_option",
                       "--provider openai needs --base-url URL");
    model::HttpProviderOptions ho;
    ho.base_url = o.base_urls.front();
    ho.replicas.assign(o.base_urls.begin() + 1, o.base_urls.end());
    ho.affinity_header = o.affinity_header;
    ho.read_timeout = std::chrono::milliseconds(o.model_read_timeout_ms);
    if (o.api == "chat") {
      ho.api = model::HttpProviderOptions::Api::kChat;
    } else if (o.api != "completions") {
      return MakeError(ErrorKind::kInvalid, "cli.bad_option", "--api must be completions or chat",
                       o.api);
    }
    ho.model = o.server_model;
    ho.api_key_env = o.api_key_env;
    ho.format = format;
    if (!o.extra_body.empty()) {
      auto extra = ReadJsonArg(o.extra_body, "--extra-body");
      if (!extra) return extra.error();
      ho.extra_body = nlohmann::json::parse(extra->dump());
    }
    ho.tokenizer = tok;
    auto p = model::HttpProvider::Create(ho);
    if (!p) return p.error();
    return std::unique_ptr<model::Provider>(std::move(*p));
  }
  return MakeError(ErrorKind::kInvalid, "cli.bad_option",
                   "--provider must be replay, llama, openai or none", o.provider);
}

Result<std::vector<harness::MountedApp>> ParseApps(const SessionOptions& o) {
  std::vector<harness::MountedApp> apps;
  for (const auto& spec : o.apps) {
    // VIEW:Component[:name]; the view path itself may not contain ':'.
    size_t a = spec.find(':');
    if (a == std::string::npos) {
      return MakeError(ErrorKind::kInvalid, "harness.bad_app",
                       "--app needs VIEW.tsx:Component[:name]", spec);
    }
    size_t b = spec.find(':', a + 1);
    harness::MountedApp app;
    app.view = spec.substr(0, a);
    app.component = spec.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
    app.name = b == std::string::npos ? app.component : spec.substr(b + 1);
    if (!fs::exists(app.view))
      return MakeError(ErrorKind::kInvalid, "harness.bad_app", "no view file at " + app.view);
    app.view = fs::absolute(app.view).string();
    apps.push_back(std::move(app));
  }
  if (!o.app_props.empty()) {
    if (apps.empty())
      return MakeError(ErrorKind::kInvalid, "harness.bad_app", "--app-props needs an --app");
    auto props = ReadJsonArg(o.app_props, "--app-props");
    if (!props) return props.error();
    if (!props->is_object())
      return MakeError(ErrorKind::kInvalid, "harness.bad_app", "--app-props must be a JSON object");
    apps[0].props = *props;
  }
  return apps;
}

}  // namespace

Result<std::unique_ptr<connect::ConnectorRoad>> OpenRoad(const SessionOptions& o) {
  std::string manifests = o.connectors;
  if (manifests.empty()) {
    if (const char* c = std::getenv("AFFORDANCE_CONNECTORS"); c && *c) manifests = c;
  }
  if (manifests.empty()) return std::unique_ptr<connect::ConnectorRoad>();
  if (!fs::is_directory(manifests)) {
    return MakeError(ErrorKind::kInvalid, "cli.bad_option", "no connector folder at " + manifests);
  }
  auto loaded = connect::LoadManifests(manifests);
  if (!loaded) return loaded.error();
  connect::RoadOptions ro;
  ro.data_dir =
      o.data.empty() && !std::getenv("AFFORDANCE_DATA") ? connect::DefaultDataDir() : DataDir(o);
  return std::make_unique<connect::ConnectorRoad>(std::move(*loaded), ro);
}

Result<std::vector<skills::SkillSource>> SkillSourcesOf(const SessionOptions& o) {
  const char* env = std::getenv("AFFORDANCE_SKILLS");
  return skills::SkillSources(o.skills, env != nullptr ? env : "", DataDir(o) + "/skills");
}

Result<std::unique_ptr<harness::SessionFactory>> OpenSessionFactory(const SessionOptions& o,
                                                                    bool provider_per_turn,
                                                                    int64_t* recovered) {
  const std::string data = DataDir(o);
  auto store = store::Open(StoreSpec(o));
  if (!store) return store.error();
  auto found = (*store)->RecoverInterrupted(harness::Abandoned);
  if (!found) return found.error();
  if (recovered != nullptr) *recovered = *found;
  // A write whose executing process died between dispatch and receipt: outcome unknown, now.
  if (auto effects = authority::Authority(**store, nullptr).RecoverAbandoned(); !effects) {
    return effects.error();
  }

  auto tok = text::LoadModel(o.model);
  if (!tok) return tok.error();
  std::shared_ptr<const text::Tokenizer> tokenizer = *tok;
  auto format = formats::DetectChatFormat(*tokenizer);
  if (!format) {
    return MakeError(ErrorKind::kInvalid, "cli.bad_binding",
                     "the model has no known chat format (Qwen3 or Llama 3.1)", o.model);
  }
  // The first provider is made now, so a bad provider option fails before anything runs; a
  // replay script is read once and each later provider plays a copy of it.
  auto first = MakeProvider(o, tokenizer, *format);
  if (!first) return first.error();
  auto apps = ParseApps(o);
  if (!apps) return apps.error();
  auto skill_sources = SkillSourcesOf(o);
  if (!skill_sources) return skill_sources.error();

  harness::SessionRecipe recipe;
  recipe.frame.views_root = ViewsRoot();
  recipe.frame.model = o.model;
  recipe.frame.tokenizer = tokenizer;
  recipe.frame.apps = std::move(*apps);
  recipe.frame.work_dir = data + "/frames";
  harness::HarnessOptions& ho = recipe.options;
  ho.stop.max_steps = o.max_steps;
  ho.max_tokens = o.max_tokens;
  ho.temperature = o.temperature;
  ho.seed = o.seed;
  ho.format = *format;
  ho.skills = std::move(*skill_sources);
  ho.chat_messages = ProviderOf(o) == "openai" && o.api == "chat";
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  ho.utc_offset_s = static_cast<int>(local.tm_gmtoff);

  std::optional<model::ReplayScript> script;
  if (ProviderOf(o) == "replay") {
    auto loaded = model::LoadReplayScript(o.script);
    if (!loaded) return loaded.error();
    script = std::move(*loaded);
  }
  auto pending = std::make_shared<std::unique_ptr<model::Provider>>(std::move(*first));
  recipe.provider = [o, tokenizer, format = *format, script,
                     pending](size_t played) -> Result<std::unique_ptr<model::Provider>> {
    if (*pending) return std::move(*pending);  // the one made above, for the first session
    if (script) {
      auto p = model::ReplayProvider::Create(tokenizer, *script);
      if (!p) return p.error();
      (*p)->SkipTo(played);
      return std::unique_ptr<model::Provider>(std::move(*p));
    }
    return MakeProvider(o, tokenizer, format);
  };
  recipe.provider_per_turn = provider_per_turn && script.has_value();
  recipe.road = [o] { return OpenRoad(o); };
  return std::make_unique<harness::SessionFactory>(std::move(*store), std::move(recipe));
}

int ExitForTurn(harness::TurnStatus status) {
  using harness::TurnStatus;
  switch (status) {
    case TurnStatus::kAnswered:
    case TurnStatus::kSurfaceComposed:
    case TurnStatus::kAskedUser:
    case TurnStatus::kAwaitingApproval:
      return kExitOk;
    case TurnStatus::kProviderError:
    case TurnStatus::kHarnessError:
    case TurnStatus::kInterrupted:
      return kExitFailure;
    case TurnStatus::kStepLimit:
    case TurnStatus::kToolErrorLimit:
    case TurnStatus::kLengthLimit:
    case TurnStatus::kStopped:
      return 3;
    case TurnStatus::kCancelled:
      return 130;
  }
  return kExitFailure;
}

Result<std::unique_ptr<Session>> OpenSession(const SessionOptions& o) {
  auto s = std::make_unique<Session>();
  auto factory = OpenSessionFactory(o, false, &s->recovered);
  if (!factory) return factory.error();
  s->factory = std::move(*factory);
  auto session = s->factory->NewSession();
  if (!session) return session.error();
  s->session = std::move(*session);
  s->store = &s->factory->store();
  s->harness = &s->session->harness();
  return s;
}

}  // namespace affordance::cli
