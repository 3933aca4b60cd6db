// What `affordance chat`, `affordance run` and `affordance prompt` share: the options that pick a
// data folder, a model binding, a provider, connectors and mounted apps, and the objects they
// make (store, tokenizer, provider, road, frame, harness), opened in that order.
//
// Data folder: --data DIR, else $AFFORDANCE_DATA, else $XDG_DATA_HOME/affordance (default
// ~/.local/share/affordance). It holds affordance.db (threads, messages, steps), the connector
// mirrors (<slug>/mirror.db, as `affordance connector` uses them) and generated frame entries.
#pragma once

#include "base/result.h"
#include "connect/road.h"
#include "harness/frame.h"
#include "harness/harness.h"
#include "harness/session.h"
#include "model/provider.h"
#include "skills/catalog.h"
#include "store/store.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace affordance::cli {

struct SessionOptions {
  std::string data;
  std::string store;  // --store: a PostgreSQL URI or a SQLite file ("" = StoreSpec's default)
  std::string model = "Qwen__Qwen3-4B-Instruct-2507";
  // "" until parsed: ProviderOf names the one the other options ask for, or "none".
  std::string provider;
  std::string script;                               // replay
  std::string gguf;                                 // llama
  int context = 8192;                               // llama: the whole context
  int parallel = 1;                                 // llama: sequences served at once
  std::vector<std::string> base_urls;               // openai: one engine, or replicas of one model
  std::string affinity_header = "x-session-token";  // openai: "" sends none
  std::string api = "completions";
  int model_read_timeout_ms = 60000;  // openai: silence allowed once a step was sent
  std::string api_key_env;
  std::string server_model;  // the request's "model" field
  std::string extra_body;    // JSON merged into every request
  std::string connectors;    // manifest folder ("" = none unless $AFFORDANCE_CONNECTORS is set)
  std::vector<std::string> skills;  // --skills folders (then $AFFORDANCE_SKILLS, <data>/skills)
  std::vector<std::string> apps;    // VIEW:Component[:name]
  std::string app_props;            // JSON file (or inline JSON) with the first app's props
  int max_steps = 12;
  int max_tokens = 1024;
  double temperature = 0.0;
  uint64_t seed = 0;
  bool json = false;
};

// The provider these options configure: --provider when given, else the one --script (replay),
// --gguf (llama) or --base-url (openai) asks for, else "none": the process starts, everything
// that needs no model works, and each turn ends with model.not_configured naming the options.
std::string ProviderOf(const SessionOptions& o);

// Adds the options above to a subcommand.
void AddSessionOptions(CLI::App& app, SessionOptions& o);

// The store these options select: --store, else $AFFORDANCE_STORE, else <data>/affordance.db. A
// PostgreSQL URI ("postgresql://...") is shared by several nodes (docs/SCALE.md).
std::string StoreSpec(const SessionOptions& o);

// The data folder these options select (created on demand by Open).
std::string DataDir(const SessionOptions& o);

// The views/ folder: $AFFORDANCE_VIEWS, else the one shipped with the binary (base/data_dir.h:
// share/affordance/views of an installed or built tree).
std::string ViewsRoot();

// The session factory these options describe (harness/session.h): the store opened and its
// interrupted turns recovered once, the tokenizer loaded once, and a recipe for each session's
// provider, road and frame. `provider_per_turn`: a fresh provider every turn (the server's way
// with a replay script). `recovered` (optional) receives the number of interrupted turns found.
// Errors name what failed: "store.*", "tokenizer.*", "model.*" (missing model file, bad script,
// unreachable URL form), "connect.*" (bad manifests), "skills.*" (a skills folder that is not
// there), "harness.bad_app", "cli.*".
Result<std::unique_ptr<harness::SessionFactory>> OpenSessionFactory(const SessionOptions& o,
                                                                    bool provider_per_turn = false,
                                                                    int64_t* recovered = nullptr);

// One session for a command that runs turns itself (chat, run): a factory and its one session.
struct Session {
  std::unique_ptr<harness::SessionFactory> factory;  // owns the store
  std::unique_ptr<harness::Session> session;
  store::Store* store = nullptr;        // factory->store()
  harness::Harness* harness = nullptr;  // &session->harness()
  int64_t recovered = 0;                // interrupted turns found when the store opened
};

// The exit status of a command that ran a turn (`run`), from the turn's end state (docs/HARNESS.md
// "Exit status"): 0 answered, surface_composed, asked_user, awaiting_approval; 1 provider_error,
// harness_error, interrupted; 3 step_limit, tool_error_limit, length_limit, stopped (the turn
// ended without an answer); 130 cancelled (as a shell reports Ctrl-C).
int ExitForTurn(harness::TurnStatus status);

// OpenSessionFactory, then its first session. Errors: those, and the frame's ("view.*").
Result<std::unique_ptr<Session>> OpenSession(const SessionOptions& o);

// The skill sources these options configure, in precedence order: every --skills folder, then
// $AFFORDANCE_SKILLS (colon-separated), then <data>/skills (skills/catalog.h SkillSources).
// Errors: "skills.no_source", "skills.unreadable_source".
Result<std::vector<skills::SkillSource>> SkillSourcesOf(const SessionOptions& o);

// The connector road these options configure (--connectors, else $AFFORDANCE_CONNECTORS); null
// when none is. Errors: "cli.bad_option" (no such folder), "connect.*" (bad manifests).
Result<std::unique_ptr<connect::ConnectorRoad>> OpenRoad(const SessionOptions& o);

}  // namespace affordance::cli
