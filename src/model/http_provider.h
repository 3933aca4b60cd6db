// An OpenAI-compatible HTTP provider with SSE streaming.
//
// Two request shapes:
//   kCompletions: POST {base}/v1/completions {"prompt": [token IDs], "stream": true, ...} — for
//     token-native servers (llama-server, vLLM). The streamed text pieces go through the format's
//     OutputParser (tags are recognised in text, see formats/output_parser.h). Sampled token IDs
//     are read from the stream when the server sends them (llama-server: `n_probs` ≥ 1 puts
//     choices[0].logprobs.content[i].id in each chunk; vLLM: logprobs.tokens "token_id:N" with
//     return_tokens_as_token_ids) and reported in finish-step.tokens.
//   kChat: POST {base}/v1/chat/completions {"messages", "tools", "stream": true,
//     "stream_options": {"include_usage": true}} — hosted APIs, Ollama. Deltas map through
//     formats::ChatDeltaMapper (native tool_calls, reasoning_content, and <tool_call> tags in
//     content when `format` is qwen3).
// Sampled token IDs: every completions request asks each engine for them in its own way
// (`n_probs: 1` for llama-server, `return_token_ids: true` for vLLM; each engine ignores the
// other's field), with `extra_body` merged over those defaults. When none arrive (vLLM before
// return_token_ids, a chat API, an --extra-body that turned them off), the sampled text is
// re-encoded with `tokenizer`, so the model's own calls stay in its history, and the finish-step
// part says so: metadata {"tokenSource": "reencoded"} ("sampled" when the engine sent IDs).
// finish_reason "stop" is the model ending its turn (no stop strings are sent): the parser is
// told so (OutputParser::EndTurn), so a Llama 3.1 call without <|eot_id|> text is complete.
// Usage comes from the server's usage object (prompt_tokens, completion_tokens,
// prompt_tokens_details.cached_tokens, or llama-server's timings.cache_n); cache hits need
// vLLM's --enable-prompt-tokens-details or SGLang's --enable-cache-report (docs/HARNESS.md).
//
// Concurrency: every step runs on the provider's one I/O thread (Boost.Beast over Asio), so any
// number of steps stream at once and a step waiting for tokens holds no thread. Connections are
// HTTP/1.1 keep-alive, pooled per replica: a finished stream's connection serves the next step
// (idle ones are closed after `idle_timeout`, and one the engine closed is never reused). Parts
// and `done` run on that I/O thread; Stream() is StreamAsync() plus a wait, so it may be called
// from many threads at once.
//
// Delivery semantics (no duplicate generation):
//   * A request that could not be sent at all (connection refused, connect timeout) is retried up
//     to `connect_attempts` times with `retry_backoff` between attempts.
//   * Once the request was dispatched, any failure (HTTP error status, disconnect mid-stream, read
//     timeout, a malformed stream) is reported as an error part and NEVER re-sent: the server may
//     already be generating. Error codes: model.connect (never sent), model.http_status,
//     model.read_timeout, model.stream_interrupted, model.stream_malformed, model.write (the
//     request may have partly reached the server).
//   * One exception, as HTTP clients make it (RFC 9112 §9.3.1): a request that went out on a
//     kept-alive connection which the engine had closed while it sat idle, and got nothing back
//     (not a byte of a status line), was never taken up; it is sent once more on a new
//     connection (stale_retries()).
//   * Cancellation closes the socket at once; the step ends with abort.
// The API key is read from the environment variable named by `api_key_env` at each step (so it is
// never stored in configuration) and sent as "Authorization: Bearer <key>".
#pragma once

#include "model/provider.h"

#include <atomic>
#include <chrono>

namespace affordance::model {

struct HttpProviderOptions {
  enum class Api { kCompletions, kChat };
  // "http://127.0.0.1:8080" or "https://host" (an optional path prefix, e.g. "/api", is kept).
  std::string base_url;
  // More engines serving the same model. A request goes to the replica its affinity key hashes
  // to (base_url when there is no key), so a thread keeps its prefix cache on one engine; when
  // that one cannot be reached (the request was never sent) it goes to the next, and a replica
  // that refused is passed over as a first choice for `replica_cooldown`.
  std::vector<std::string> replicas;
  std::chrono::milliseconds replica_cooldown{10000};
  // The header that carries StepRequest::affinity_key, for prefix-aware routers that key on a
  // session ("" sends none; docs/HARNESS.md "Engine fleets").
  std::string affinity_header;
  Api api = Api::kCompletions;
  // The "model" field of the request (omitted when empty).
  std::string model;
  // Name of the environment variable that holds the API key; empty = no key.
  std::string api_key_env;
  // kCompletions: the parser of the streamed text. kChat: how delta.content is read (plain/qwen3).
  formats::ChatFormat format = formats::ChatFormat::kQwen3;
  std::chrono::milliseconds connect_timeout{5000};
  // How long a kept-alive connection may wait in the pool for its next step.
  std::chrono::milliseconds idle_timeout{2000};
  // Longest silence allowed between two received bytes once the request was sent.
  std::chrono::milliseconds read_timeout{60000};
  int connect_attempts = 3;
  std::chrono::milliseconds retry_backoff{200};
  // Merged into every request body over the defaults above (server-specific fields).
  nlohmann::json extra_body = nlohmann::json::object();
  // kCompletions: re-encodes the sampled text when the engine sends no token IDs (null: the
  // step's tokens stay empty).
  std::shared_ptr<const text::Tokenizer> tokenizer;
};

class HttpProvider final : public Provider {
 public:
  // Errors: "model.bad_url" when base_url is not http(s)://host[:port][/prefix].
  static Result<std::unique_ptr<HttpProvider>> Create(HttpProviderOptions options);
  ~HttpProvider() override;  // steps still open are dropped: let them end first

  Status Stream(const StepRequest& request, const PartSink& sink,
                const CancelToken& cancel) override;
  void StreamAsync(StepRequest request, PartSink sink, CancelToken cancel, StepDone done) override;
  bool concurrent() const override { return true; }
  std::string_view kind() const override { return "http"; }

  // Counters for tests and diagnostics: attempts whose connection failed, requests dispatched,
  // connections opened, steps served on a kept-alive connection.
  int connect_failures() const { return connect_failures_; }
  int dispatched() const { return dispatched_; }
  int connections_opened() const { return connections_opened_; }
  int connections_reused() const { return connections_reused_; }
  // Requests sent again because the kept-alive connection they went out on had been closed by the
  // engine (it answered nothing): see "Delivery semantics".
  int stale_retries() const { return stale_retries_; }

  struct Replica {
    std::string origin;  // scheme://host:port
    std::string prefix;  // path prefix, "" or "/api"
    std::string host;    // for the socket, SNI and certificate checks
    std::string port;
    bool tls = false;
    std::chrono::steady_clock::time_point down_until{};
  };

 private:
  struct Io;
  class Call;
  explicit HttpProvider(HttpProviderOptions options, std::vector<Replica> replicas);
  nlohmann::json Body(const StepRequest& request) const;
  // The replicas in the order this request tries them: the one its key hashes to first, those
  // that refused lately last.
  std::vector<size_t> Order(const std::string& key) const;

  HttpProviderOptions options_;
  std::vector<Replica> replicas_;  // down_until: touched on the I/O thread only
  std::unique_ptr<Io> io_;
  std::atomic<int> connect_failures_{0};
  std::atomic<int> dispatched_{0};
  std::atomic<int> connections_opened_{0};
  std::atomic<int> connections_reused_{0};
  std::atomic<int> stale_retries_{0};
};

}  // namespace affordance::model
