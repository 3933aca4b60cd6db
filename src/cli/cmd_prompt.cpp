// `affordance prompt audit`: where the context of a turn went. For each step of the last turn of
// a thread (default: the most recent thread): tokens per owner (head, schemas, reality, user,
// assistant, tool_results, apps, generation, and skill:NAME for each skill body a result carried,
// with its sha256), cached prompt tokens, and the first token index that changed since the
// previous step (what a prefix cache had to recompute).
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "store/store.h"

#include <cstdio>
#include <iostream>

namespace affordance::cli {
namespace {

struct AuditOptions {
  std::string data;
  std::string store;
  std::string thread;
  bool json = false;
};

int Audit(const AuditOptions& o) {
  SessionOptions so;
  so.data = o.data;
  so.store = o.store;
  auto store = store::Open(StoreSpec(so));
  if (!store) return ReportError(store.error(), o.json);
  std::string thread = o.thread;
  if (thread.empty()) {
    auto threads = (*store)->ListThreads();
    if (!threads) return ReportError(threads.error(), o.json);
    if (threads->empty()) {
      return ReportError(
          MakeError(ErrorKind::kNotFound, "cli.no_threads", "there is no thread to audit yet"),
          o.json, kExitUsage);
    }
    thread = threads->front().id;
  }
  auto messages = (*store)->LoadThread(thread);
  if (!messages) return ReportError(messages.error(), o.json);
  const store::MessageRecord* last = nullptr;
  for (const auto& m : *messages) {
    if (m.role == "assistant") last = &m;
  }
  if (last == nullptr) {
    return ReportError(MakeError(ErrorKind::kNotFound, "cli.no_turns",
                                 "the thread has no assistant turn yet", thread),
                       o.json, kExitUsage);
  }
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : last->steps) {
    nlohmann::json j = {{"step", s.index},
                        {"status", s.status},
                        {"prompt_tokens", s.prompt_tokens},
                        {"cached_prompt_tokens", s.cached_prompt_tokens},
                        {"generated_tokens", s.generated_tokens}};
    if (s.detail.contains("audit")) j["audit"] = s.detail["audit"];
    if (s.detail.contains("tokenSource")) j["token_source"] = s.detail["tokenSource"];
    steps.push_back(std::move(j));
  }
  if (o.json) {
    std::cout
        << nlohmann::json{{"threadId", thread}, {"messageId", last->id}, {"steps", steps}}.dump()
        << "\n";
    return kExitOk;
  }
  std::printf("thread %s, message %s\n", thread.c_str(), last->id.c_str());
  for (const auto& s : steps) {
    if (s.value("token_source", "") == "reencoded") {
      std::printf(
          "step %d: the engine sent no sampled token IDs; its history holds the sampled "
          "text encoded again (ask the engine for IDs: docs/HARNESS.md)\n",
          s.value("step", 0));
    }
  }
  std::printf("%-5s %7s %6s %8s %8s %5s %9s %8s %6s %5s %7s %8s  %s\n", "step", "total", "head",
              "schemas", "reality", "user", "assistant", "results", "apps", "gen", "cached",
              "changed", "head sha256");
  for (const auto& s : steps) {
    const auto a = s.value("audit", nlohmann::json::object());
    const auto ow = a.value("owners", nlohmann::json::object());
    auto n = [&](const char* k) { return ow.value(k, static_cast<int64_t>(0)); };
    std::printf("%-5d %7lld %6lld %8lld %8lld %5lld %9lld %8lld %6lld %5lld %7lld %8lld  %.12s\n",
                s.value("step", 0), static_cast<long long>(a.value("total", 0)),
                static_cast<long long>(n("head")), static_cast<long long>(n("schemas")),
                static_cast<long long>(n("reality")), static_cast<long long>(n("user")),
                static_cast<long long>(n("assistant")), static_cast<long long>(n("tool_results")),
                static_cast<long long>(n("apps")), static_cast<long long>(n("generation")),
                static_cast<long long>(s.value("cached_prompt_tokens", 0)),
                static_cast<long long>(a.value("first_changed", -1)),
                a.value("head_sha256", "-").c_str());
  }
  // Skill bodies the frames carried: their own owner, with the digest of the bytes loaded.
  for (const auto& s : steps) {
    const auto a = s.value("audit", nlohmann::json::object());
    for (const auto& k : a.value("skills", nlohmann::json::array())) {
      std::printf("step %d  %s  %lld tokens  sha256 %s  (call %s)\n", s.value("step", 0),
                  k.value("owner", "").c_str(), static_cast<long long>(k.value("tokens", 0)),
                  k.value("sha256", "").c_str(), k.value("toolCallId", "").c_str());
    }
  }
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"prompt", "Inspect the harness's prompt frames (audit: tokens per owner per step)",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<AuditOptions>();
       sub.require_subcommand(1, 1);
       CLI::App* audit =
           sub.add_subcommand("audit", "Tokens per owner for each step of the last turn");
       audit->add_option("--data", o->data, "Data folder");
       audit->add_option("--store", o->store,
                         "The store (default $AFFORDANCE_STORE, else <data>/affordance.db)");
       audit->add_option("--thread", o->thread, "Thread id (default: the most recent)");
       audit->add_flag("--json", o->json, "Print JSON");
       return [o] { return Audit(*o); };
     }});

}  // namespace
}  // namespace affordance::cli
