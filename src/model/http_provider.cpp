#include "model/http_provider.h"

#include "base/json_limits.h"
#include "formats/chat_deltas.h"
#include "model/internal/sse.h"
#include "model/internal/step_writer.h"

#include <httplib.h>

#include <cctype>
#include <cstdlib>
#include <functional>
#include <optional>
#include <thread>

namespace affordance::model {

using formats::PartType;
using formats::StreamPart;
using Clock = std::chrono::steady_clock;

namespace {

// What one dispatched request produced, whatever the API.
struct StreamState {
  std::unique_ptr<formats::OutputParser> parser;     // kCompletions
  std::unique_ptr<formats::ChatDeltaMapper> mapper;  // kChat
  std::vector<StreamPart> parts;
  std::vector<text::TokenId> tokens;
  std::string text;  // kCompletions: the sampled text as it arrived
  int64_t text_chunks = 0;
  std::string raw_finish;
  std::optional<formats::Usage> usage;
  std::optional<int64_t> cache_n;
  bool done = false;
  std::optional<Error> failure;  // malformed stream or an error object inside it
};

std::optional<text::TokenId> TokenIdOfEntry(const nlohmann::json& entry) {
  if (entry.is_object()) {
    if (auto id = entry.find("id"); id != entry.end() && id->is_number_integer()) {
      return id->get<text::TokenId>();
    }
  }
  if (entry.is_string()) {  // vLLM return_tokens_as_token_ids: "token_id:123"
    const std::string& s = entry.get_ref<const std::string&>();
    if (s.rfind("token_id:", 0) == 0) return std::atoi(s.c_str() + 9);
  }
  return std::nullopt;
}

void ReadCompletionTokens(const nlohmann::json& choice, StreamState& st) {
  // vLLM return_token_ids: the chunk's own IDs.
  if (auto ids = choice.find("token_ids"); ids != choice.end() && ids->is_array()) {
    for (const auto& id : *ids) {
      if (id.is_number_integer()) st.tokens.push_back(id.get<text::TokenId>());
    }
    return;
  }
  auto lp = choice.find("logprobs");
  if (lp == choice.end() || !lp->is_object()) return;
  for (const char* key : {"content", "tokens"}) {
    auto arr = lp->find(key);
    if (arr == lp->end() || !arr->is_array()) continue;
    for (const auto& entry : *arr) {
      if (auto id = TokenIdOfEntry(entry)) st.tokens.push_back(*id);
    }
  }
}

void ReadUsage(const nlohmann::json& chunk, StreamState& st) {
  if (auto u = chunk.find("usage"); u != chunk.end() && u->is_object()) {
    formats::Usage usage;
    usage.prompt_tokens = u->value("prompt_tokens", int64_t{0});
    usage.generated_tokens = u->value("completion_tokens", int64_t{0});
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object()) {
      usage.cached_prompt_tokens = d->value("cached_tokens", int64_t{0});
    }
    st.usage = usage;
  }
  if (auto t = chunk.find("timings");
      t != chunk.end() && t->is_object() && t->contains("cache_n")) {
    st.cache_n = (*t)["cache_n"].get<int64_t>();
  }
}

// Handles one completions chunk; false stops the stream (failure recorded).
bool OnCompletionChunk(const nlohmann::json& chunk, StreamState& st) {
  if (!chunk.is_object()) {
    st.failure = MakeError("model.stream_malformed", "a stream chunk is not a JSON object");
    return false;
  }
  if (auto e = chunk.find("error"); e != chunk.end()) {
    st.failure = MakeError("model.server_error", "the server reported an error in the stream",
                           e->dump().substr(0, 500));
    return false;
  }
  ReadUsage(chunk, st);
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty()) return true;
  const auto& choice = (*choices)[0];
  if (!choice.is_object()) {
    st.failure = MakeError("model.stream_malformed", "a stream choice is not a JSON object");
    return false;
  }
  if (auto t = choice.find("text"); t != choice.end() && t->is_string()) {
    ++st.text_chunks;
    st.text += t->get_ref<const std::string&>();
    ReadCompletionTokens(choice, st);
    st.parser->Push({-1, t->get_ref<const std::string&>(), false}, st.parts);
  }
  if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) {
    st.raw_finish = f->get<std::string>();
  }
  return true;
}

std::string CompletionReason(const StreamState& st) {
  if (st.raw_finish == "length") return "length";
  if (st.parser->tool_calls() > 0) return "tool-calls";
  if (st.raw_finish == "stop" || st.raw_finish == "eos") return "stop";
  return st.raw_finish.empty() ? "other" : st.raw_finish;
}

}  // namespace

namespace {

// scheme://host[:port] and the path prefix of a base URL.
Result<HttpProvider::Replica> ParseBase(const std::string& url) {
  size_t scheme_end = url.find("://");
  std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return MakeError(ErrorKind::kInvalid, "model.bad_url",
                     "the provider URL must start with http:// or https://", url);
  }
  size_t path_begin = url.find('/', scheme_end + 3);
  HttpProvider::Replica r;
  r.origin = url.substr(0, path_begin);
  r.prefix = path_begin == std::string::npos ? "" : url.substr(path_begin);
  while (!r.prefix.empty() && r.prefix.back() == '/') r.prefix.pop_back();
  if (r.origin.size() <= scheme_end + 3) {
    return MakeError(ErrorKind::kInvalid, "model.bad_url", "the provider URL has no host", url);
  }
  return r;
}

// A header name as RFC 9110 allows it (a token), so no value can smuggle another header.
bool HeaderName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) ||
                    std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<HttpProvider>> HttpProvider::Create(HttpProviderOptions options) {
  std::vector<Replica> replicas;
  for (const std::string* url = &options.base_url; url != nullptr;) {
    auto r = ParseBase(*url);
    if (!r) return r.error();
    replicas.push_back(std::move(*r));
    const size_t next = replicas.size() - 1;
    url = next < options.replicas.size() ? &options.replicas[next] : nullptr;
  }
  if (!options.affinity_header.empty() && !HeaderName(options.affinity_header)) {
    return MakeError(ErrorKind::kInvalid, "model.bad_header",
                     "the affinity header must be a header name (letters, digits, - and _)",
                     options.affinity_header);
  }
  return std::unique_ptr<HttpProvider>(new HttpProvider(std::move(options), std::move(replicas)));
}

HttpProvider::HttpProvider(HttpProviderOptions options, std::vector<Replica> replicas)
    : options_(std::move(options)), replicas_(std::move(replicas)) {}

std::vector<size_t> HttpProvider::Order(const std::string& key) const {
  const size_t n = replicas_.size();
  const size_t first = key.empty() ? 0 : std::hash<std::string>{}(key) % n;
  std::vector<size_t> up, down;
  const auto now = Clock::now();
  for (size_t i = 0; i < n; ++i) {
    const size_t r = (first + i) % n;
    (replicas_[r].down_until > now ? down : up).push_back(r);
  }
  up.insert(up.end(), down.begin(), down.end());
  return up;
}

nlohmann::json HttpProvider::Body(const StepRequest& r) const {
  nlohmann::json body = nlohmann::json::object();
  if (!options_.model.empty()) body["model"] = options_.model;
  if (options_.api == HttpProviderOptions::Api::kCompletions) {
    body["prompt"] = r.prompt;
    body["n_probs"] = 1;              // llama-server: sampled IDs in logprobs.content[].id
    body["return_token_ids"] = true;  // vLLM: choices[].token_ids
  } else {
    body["messages"] = r.messages;
    if (!r.tools.empty()) body["tools"] = r.tools;
    body["stream_options"] = {{"include_usage", true}};
  }
  body["stream"] = true;
  body["max_tokens"] = r.max_tokens;
  body["temperature"] = r.temperature;
  body["seed"] = r.seed;
  if (!r.grammar.empty()) body["grammar"] = r.grammar;
  if (options_.extra_body.is_object()) body.update(options_.extra_body);
  return body;
}

Status HttpProvider::Stream(const StepRequest& request, const PartSink& sink,
                            const CancelToken& cancel) {
  std::lock_guard<std::mutex> lock(mu_);
  internal::StepWriter writer(sink, nullptr);
  writer.StartStep();
  if (cancel.cancelled()) return writer.Abort();

  httplib::Headers headers;
  if (!options_.api_key_env.empty()) {
    const char* key = std::getenv(options_.api_key_env.c_str());
    if (key == nullptr || *key == '\0') {
      return writer.Fail(MakeError("model.api_key", "the API key environment variable is not set",
                                   options_.api_key_env));
    }
    headers.emplace("Authorization", std::string("Bearer ") + key);
  }
  if (!options_.affinity_header.empty() && !request.affinity_key.empty()) {
    headers.emplace(options_.affinity_header, request.affinity_key);
  }
  const bool chat = options_.api == HttpProviderOptions::Api::kChat;
  const std::vector<size_t> order = Order(request.affinity_key);
  std::string tried;  // the origins that could not be reached, for the error
  const std::string body = Body(request).dump();

  StreamState st;
  if (chat) {
    st.mapper = std::make_unique<formats::ChatDeltaMapper>(
        formats::ChatDeltaOptions{request.step_id, options_.format});
  } else {
    st.parser = formats::MakeOutputParser(options_.format, {request.step_id});
  }
  auto close_content = [&] {
    if (chat)
      st.mapper->Finish(st.parts);
    else if (st.raw_finish == "stop" || st.raw_finish == "eos")
      st.parser->EndTurn(st.parts);  // the model ended its turn: its end token is not in the text
    else
      st.parser->Finish(st.parts);
    writer.EmitAll(st.parts);
  };

  // Each replica gets connect_attempts tries; a failed one hands over to the next at once.
  const int attempts = options_.connect_attempts * static_cast<int>(order.size());
  for (int attempt = 1;; ++attempt) {
    Replica& replica = replicas_[order[(attempt - 1) % order.size()]];
    const std::string path = replica.prefix + (chat ? "/v1/chat/completions" : "/v1/completions");
    httplib::Client client(replica.origin);
    client.set_connection_timeout(options_.connect_timeout);
    client.set_read_timeout(options_.read_timeout);
    client.set_write_timeout(options_.read_timeout);
    client.set_keep_alive(false);
    int stop_id = cancel.OnCancel([&client] { client.stop(); });

    int status = 0;
    std::string error_body;
    internal::SseReader sse;
    auto last_byte = Clock::now();
    httplib::Request req;
    req.method = "POST";
    req.path = path;
    req.headers = headers;
    req.body = body;
    req.set_header("Content-Type", "application/json");
    req.set_header("Accept", "text/event-stream");
    req.response_handler = [&](const httplib::Response& res) {
      status = res.status;
      last_byte = Clock::now();
      return !cancel.cancelled();
    };
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
      last_byte = Clock::now();
      if (cancel.cancelled()) return false;
      if (status != 200) {
        if (error_body.size() < 65536) error_body.append(data, n);
        return true;
      }
      const bool more = sse.Feed(std::string_view(data, n), [&](std::string_view payload) {
        if (payload == "[DONE]") {
          st.done = true;
          return true;
        }
        // The engine's output is untrusted: the depth is checked on the text before a value is
        // built (base/json_limits.h), so no event can overflow a recursive walker.
        if (auto deep = CheckJsonDepth(payload, "model.too_deep", "a stream event"); !deep) {
          st.failure = deep.error();
          return false;
        }
        nlohmann::json chunk = nlohmann::json::parse(payload, nullptr, false);
        bool keep = true;
        if (chunk.is_discarded()) {
          st.failure = MakeError("model.stream_malformed", "a stream event is not valid JSON",
                                 std::string(payload.substr(0, 200)));
          keep = false;
        } else if (chat) {
          if (auto s = st.mapper->Push(chunk, st.parts); !s) {
            st.failure = s.error();
            keep = false;
          }
        } else {
          keep = OnCompletionChunk(chunk, st);
        }
        writer.EmitAll(st.parts);
        return keep;
      });
      if (sse.too_large() && !st.failure) {
        st.failure =
            MakeError("model.event_too_large",
                      "a stream event is larger than " +
                          std::to_string(internal::SseReader::kMaxEventBytes >> 20) +
                          " MiB; the stream was stopped",
                      "limit " + std::to_string(internal::SseReader::kMaxEventBytes) + " bytes");
      }
      return more;
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    bool sent_ok = client.send(req, res, err);
    cancel.Remove(stop_id);
    ++dispatched_;

    if (cancel.cancelled()) {
      close_content();
      return writer.Abort();
    }
    if (!sent_ok &&
        (err == httplib::Error::Connection || err == httplib::Error::ConnectionTimeout)) {
      --dispatched_;  // never sent
      ++connect_failures_;
      replica.down_until = Clock::now() + options_.replica_cooldown;
      if (tried.find(replica.origin) == std::string::npos) {
        tried += (tried.empty() ? "" : ", ") + replica.origin;
      }
      if (attempt < attempts) {
        // Another replica is tried at once; the same one again after a pause.
        const int round = (attempt - 1) / static_cast<int>(order.size()) + 1;
        if (attempt % static_cast<int>(order.size()) == 0) {
          auto until = Clock::now() + options_.retry_backoff * round;
          while (Clock::now() < until && !cancel.cancelled()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
        }
        if (cancel.cancelled()) return writer.Abort();
        continue;
      }
      return writer.Fail(MakeError(
          "model.connect",
          std::string(order.size() > 1 ? "could not connect to any of the model servers"
                                       : "could not connect to the model server") +
              "; the request was never sent (tried " + std::to_string(attempt) + " times)",
          tried + ": " +
              (err == httplib::Error::ConnectionTimeout
                   ? "the connection timed out"
                   : "the connection was refused or the host is unreachable")));
    }
    if (!sent_ok &&
        (err == httplib::Error::SSLConnection || err == httplib::Error::SSLServerVerification ||
         err == httplib::Error::SSLLoadingCerts)) {
      --dispatched_;
      return writer.Fail(MakeError(
          "model.connect", "TLS setup with the model server failed; the request was never sent",
          replica.origin + ": " + httplib::to_string(err)));
    }
    // From here on the request was dispatched: report, never re-send.
    if (status != 0 && status != 200) {
      std::string message = error_body.substr(0, 500);
      // A body too deep to read as JSON is reported as the raw text it is.
      nlohmann::json e = JsonTextDepth(error_body) > kMaxJsonDepth
                             ? nlohmann::json()
                             : nlohmann::json::parse(error_body, nullptr, false);
      if (e.is_object() && e.contains("error")) {
        const auto& inner = e["error"];
        message = inner.is_object() && inner.contains("message") && inner["message"].is_string()
                      ? inner["message"].get<std::string>()
                      : inner.dump();
      }
      return writer.Fail(MakeError(
          "model.http_status",
          "the model server answered HTTP " + std::to_string(status) + " (not retried)", message));
    }
    if (st.failure) {
      close_content();
      return writer.Fail(*st.failure);
    }
    if (!sent_ok) {
      close_content();
      if (err == httplib::Error::Write) {
        return writer.Fail(MakeError("model.write",
                                     "sending the request failed part-way; it may have reached the "
                                     "server, so it is not retried",
                                     httplib::to_string(err)));
      }
      bool timed_out = Clock::now() - last_byte >= options_.read_timeout * 9 / 10;
      if (timed_out) {
        return writer.Fail(MakeError("model.read_timeout",
                                     "the model server went silent for longer than the read "
                                     "timeout; the request was sent, so it is not retried",
                                     std::to_string(options_.read_timeout.count()) + " ms"));
      }
      return writer.Fail(MakeError("model.stream_interrupted",
                                   "the connection to the model server broke after the request was "
                                   "sent; it is not retried",
                                   httplib::to_string(err)));
    }
    bool finished =
        st.done || (chat ? !st.mapper->finish_reason().empty() : !st.raw_finish.empty());
    if (!finished) {
      close_content();
      return writer.Fail(MakeError("model.stream_interrupted",
                                   "the model stream ended before it was complete; the request was "
                                   "sent, so it is not retried"));
    }
    break;
  }

  close_content();
  formats::Usage usage;
  std::string reason;
  if (chat) {
    if (st.mapper->has_usage()) usage = st.mapper->usage();
    reason = st.mapper->finish_reason();
    if (reason.empty()) reason = "other";
    if (reason == "stop" && st.mapper->tool_calls() > 0) reason = "tool-calls";
  } else {
    if (st.usage) usage = *st.usage;
    if (usage.prompt_tokens == 0) usage.prompt_tokens = static_cast<int64_t>(request.prompt.size());
    if (usage.generated_tokens == 0) {
      usage.generated_tokens =
          st.tokens.empty() ? st.text_chunks : static_cast<int64_t>(st.tokens.size());
    }
    if (st.cache_n && usage.cached_prompt_tokens == 0) usage.cached_prompt_tokens = *st.cache_n;
    reason = CompletionReason(st);
  }
  nlohmann::json source = nullptr;
  if (!chat) {
    source = {{"tokenSource", "sampled"}};
    if (st.tokens.empty() && !st.text.empty() && options_.tokenizer) {
      // No IDs from the engine: the text it sampled, encoded again (special spellings as their
      // tokens), so the model's own calls are in its next prompt.
      auto ids = options_.tokenizer->Encode(st.text, {.match_special = true});
      if (ids.ok()) {
        st.tokens = std::move(ids).value();
        source = {{"tokenSource", "reencoded"}};
      }
    } else if (st.tokens.empty()) {
      source = {{"tokenSource", "none"}};
    }
  }
  return writer.Finish(usage, std::move(st.tokens), std::move(reason), source);
}

}  // namespace affordance::model
