// Providers: one cancellable, provider-neutral way to run a model step.
//
// A step request is either token IDs (token-native providers: embedded llama.cpp, /v1/completions
// with a token-ID array on vLLM or llama-server, replay) or messages + tools (chat APIs). A
// provider streams the step as formats::StreamParts through a callback, in the order documented
// in formats/stream_part.h:
//
//   start-step, content parts..., then exactly one of  finish-step + finish | error | abort
//
// Stream() blocks until the terminal part was delivered and returns a Status that agrees with it
// (ok for finish; the error for error; "model.cancelled" for abort). Content parts that were
// started are always closed before the terminal part (an unfinished call becomes
// tool-input-error), so a consumer never holds a dangling part.
//
// Cancellation: Cancel() on the CancelToken, from any thread, ends the step promptly (the HTTP
// provider closes its socket; llama.cpp stops between tokens; replay stops between tokens) with an
// abort part. A cancelled step is never retried.
//
// StreamAsync() starts a step and returns at once; the same parts reach the sink, then `done` gets
// the status Stream() would have returned. A provider whose concurrent() is true (HTTP) serves any
// number of steps at once from its own I/O thread and holds no thread while it waits for the
// engine; the others run Stream() on a thread of their own for the step.
//
// Stream() is re-entrant only for concurrent() providers; the others serve one Stream() at a time
// per provider object (a second concurrent call waits for the first).
#pragma once

#include "base/result.h"
#include "formats/output_parser.h"
#include "formats/stream_part.h"
#include "text/tokenizer.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace affordance::model {

struct StepRequest {
  // Token-native providers: the whole prompt, exactly as rendered (never re-tokenized).
  std::vector<text::TokenId> prompt;
  // Chat providers: OpenAI-style messages and function tools.
  nlohmann::json messages = nlohmann::json::array();
  nlohmann::json tools = nlohmann::json::array();
  // Generation limit; the step finishes with reason "length" when it is reached.
  int max_tokens = 512;
  // 0 = greedy. With a temperature, `seed` makes sampling reproducible where the provider can.
  double temperature = 0.0;
  uint64_t seed = 0;
  // Prefix of every part id of this step (make it unique per step, e.g. "s3-").
  std::string step_id;
  // What keeps a conversation on one engine replica (the harness passes the thread id): HTTP
  // providers send it as the affinity header and pick their replica by it; "" = none.
  std::string affinity_key;
  // A GBNF grammar the sampled text must match (llama.cpp syntax, rule "root"); empty = none.
  // The embedded provider applies it in its sampler ("model.bad_grammar" when it does not parse);
  // HTTP providers pass it as the request's "grammar" field (llama-server); replay ignores it.
  std::string grammar;
};

// Shared cancellation flag: a handle, so copies (and const references) share one state. Callbacks
// registered with OnCancel run once, on the thread that calls Cancel() (or at once if already
// cancelled).
class CancelToken {
 public:
  CancelToken();
  void Cancel() const;
  bool cancelled() const;
  // Registers `callback`; returns an id for Remove(). Callbacks must be quick and must not throw.
  // After Remove(id) returns, that callback is not running and will never run.
  int OnCancel(std::function<void()> callback) const;
  void Remove(int id) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

using PartSink = std::function<void(const formats::StreamPart&)>;

// Called exactly once when an asynchronous step has ended, after its terminal part.
using StepDone = std::function<void(Status)>;

class Provider {
 public:
  virtual ~Provider() = default;
  // Runs one step (see the header comment for the contract).
  virtual Status Stream(const StepRequest& request, const PartSink& sink,
                        const CancelToken& cancel) = 0;
  // Starts one step and returns at once (see the header comment). Parts reach `sink` in order and
  // never concurrently for one step, on a thread of the provider's; then `done` runs on the same
  // kind of thread. The provider must outlive the step (until `done` returned). The default runs
  // Stream() on a new thread.
  virtual void StreamAsync(StepRequest request, PartSink sink, CancelToken cancel, StepDone done);
  // Whether steps run at once without a thread each (StreamAsync holds no thread while waiting).
  virtual bool concurrent() const { return false; }
  // "replay", "http", "llama" (for logs and metadata).
  virtual std::string_view kind() const = 0;
};

// The provider of a process started with no model configured: every step ends at once with the
// error `model.not_configured` and `message` (which names the options that configure one), so
// everything that needs no model works and the first turn says what to do.
std::unique_ptr<Provider> MakeUnconfiguredProvider(std::string message);

// Runs a step and collects its parts (tests, CLI).
struct CollectedStep {
  std::vector<formats::StreamPart> parts;
  Status status;
};
CollectedStep Collect(Provider& provider, const StepRequest& request,
                      const CancelToken& cancel = CancelToken());

}  // namespace affordance::model
