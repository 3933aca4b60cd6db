// Sessions: what one door needs to run turns, made by one factory per process so that every
// session shares one store (opened and recovered once).
//
//   harness::SessionRecipe recipe;            // filled by the door that knows the options (cli/)
//   recipe.frame = ...; recipe.harness = ...; recipe.provider = ...; recipe.road = ...;
//   harness::SessionFactory factory(std::move(store), std::move(recipe));
//   auto session = factory.NewSession();      // its own provider, road, frame and harness
//   session->RunTurn(thread_id, "What is on today?", sink, cancel);
//
// A session runs one turn, or one phase of a turn, at a time (its Frame holds a QuickJS runtime);
// a door that runs turns in parallel (the server) hands its sessions to a TurnService
// (harness/turn_service.h) as the runtimes that phases borrow. All of them write the factory's
// store and stream with the factory's one provider (or a per-turn one, below).
#pragma once

#include "base/result.h"
#include "connect/road.h"
#include "harness/frame.h"
#include "harness/harness.h"
#include "model/provider.h"
#include "store/store.h"

#include <functional>
#include <memory>
#include <string>

namespace affordance::harness {

struct SessionRecipe {
  FrameOptions frame;
  HarnessOptions options;
  // Makes a provider. `played`: the steps of the current model response that earlier turns already
  // played (0 except for a continuation of a per-turn provider, below).
  std::function<Result<std::unique_ptr<model::Provider>>(size_t played)> provider;
  // A fresh provider for every turn instead of one per session: a replay script then plays from
  // its first step on each turn (the server's choice; a terminal chat plays one script through).
  bool provider_per_turn = false;
  // The connector road of a session; unset: no connectors.
  std::function<Result<std::unique_ptr<connect::ConnectorRoad>>()> road;
};

class SessionFactory;

class Session {
 public:
  ~Session();
  // Harness::RunTurn / ContinueTurn on this session's parts (a per-turn provider is made first).
  Result<TurnReport> RunTurn(const std::string& thread_id, const std::string& user_text,
                             const EventSink& sink, const model::CancelToken& cancel);
  Result<TurnReport> ContinueTurn(const std::string& thread_id, const EventSink& sink,
                                  const model::CancelToken& cancel);

  store::Store& store() { return store_; }
  Frame& frame() { return *frame_; }
  connect::ConnectorRoad* road() { return road_.get(); }
  // The session's harness. With a per-turn provider it stands on the session's first provider and
  // serves reads (registry, authority, reality); each turn runs on a harness of its own.
  Harness& harness() { return *harness_; }

 private:
  friend class SessionFactory;
  explicit Session(SessionFactory& factory);
  Result<TurnReport> Fresh(const std::string& thread_id, const std::string* user_text,
                           const EventSink& sink, const model::CancelToken& cancel);

  store::Store& store_;
  SessionFactory& factory_;
  model::Provider* provider_ = nullptr;  // the factory's
  std::unique_ptr<connect::ConnectorRoad> road_;
  std::unique_ptr<Frame> frame_;
  std::unique_ptr<Harness> harness_;
};

class SessionFactory {
 public:
  SessionFactory(std::unique_ptr<store::Store> store, SessionRecipe recipe);

  // A new session over the shared store. Errors: the provider's, the road's, Frame::Load's.
  // Not thread-safe: make sessions from one thread (the server makes its workers' at start-up).
  Result<std::unique_ptr<Session>> NewSession();

  store::Store& store() { return *store_; }
  const SessionRecipe& recipe() const { return recipe_; }
  // The provider every session streams with, made by the recipe with the first session (null
  // until then).
  model::Provider* provider() { return provider_.get(); }
  // With provider_per_turn: a fresh provider for a turn of `thread_id`; a continuation's goes on
  // from the steps its response's earlier turns played. Without: nullptr (use provider()).
  Result<std::unique_ptr<model::Provider>> TurnProvider(const std::string& thread_id,
                                                        bool continuation);

 private:
  std::unique_ptr<store::Store> store_;
  SessionRecipe recipe_;
  std::unique_ptr<model::Provider> provider_;
};

}  // namespace affordance::harness
