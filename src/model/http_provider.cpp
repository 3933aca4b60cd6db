#include "model/http_provider.h"

#include "base/json_limits.h"
#include "formats/chat_deltas.h"
#include "model/internal/sse.h"
#include "model/internal/step_writer.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <future>
#include <limits>
#include <map>
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
  r.tls = scheme == "https";
  r.port = r.tls ? "443" : "80";
  std::string authority = r.origin.substr(scheme_end + 3);
  if (authority.find('@') != std::string::npos) {
    return MakeError(ErrorKind::kInvalid, "model.bad_url",
                     "the provider URL may not carry credentials (use --api-key-env)", url);
  }
  if (authority.front() == '[') {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string::npos) {
      return MakeError(ErrorKind::kInvalid, "model.bad_url", "the provider URL's host is malformed",
                       url);
    }
    r.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') {
        return MakeError(ErrorKind::kInvalid, "model.bad_url",
                         "the provider URL's host is malformed", url);
      }
      r.port = authority.substr(close + 2);
    }
  } else if (const size_t colon = authority.rfind(':'); colon != std::string::npos) {
    r.host = authority.substr(0, colon);
    r.port = authority.substr(colon + 1);
  } else {
    r.host = authority;
  }
  if (r.host.empty() || r.port.empty() || r.port.size() > 5 ||
      r.port.find_first_not_of("0123456789") != std::string::npos || std::stoi(r.port) > 65535) {
    return MakeError(ErrorKind::kInvalid, "model.bad_url", "the provider URL's port is malformed",
                     url);
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

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

namespace {

// One connection to one replica: plain TCP or TLS over it.
struct Connection {
  std::string origin;
  std::optional<beast::tcp_stream> tcp;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;
  Clock::time_point idle_since;

  beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *tcp; }
  template <class F>
  void With(F&& f) {
    if (tls)
      f(*tls);
    else
      f(*tcp);
  }
  // A pooled connection the engine has closed (or written to out of turn) must not be reused.
  bool Alive() {
    auto& socket = lowest().socket();
    if (!socket.is_open()) return false;
    char c;
    const ssize_t n = ::recv(socket.native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    return tls.has_value();  // TLS may carry session tickets; plain HTTP has nothing to say now
  }
};

}  // namespace

struct HttpProvider::Io {
  asio::io_context ioc{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  ssl::context tls{ssl::context::tls_client};
  std::map<std::string, std::vector<std::unique_ptr<Connection>>> idle;  // I/O thread only
  std::thread thread;

  Io() {
    tls.set_default_verify_paths();
    tls.set_verify_mode(ssl::verify_peer);
    thread = std::thread([this] { ioc.run(); });
  }
  ~Io() {
    work.reset();
    ioc.stop();
    thread.join();
  }
  std::unique_ptr<Connection> Take(const std::string& origin, std::chrono::milliseconds max_idle) {
    auto it = idle.find(origin);
    if (it == idle.end()) return nullptr;
    auto& pool = it->second;
    const auto now = Clock::now();
    while (!pool.empty()) {
      std::unique_ptr<Connection> c = std::move(pool.back());
      pool.pop_back();
      if (now - c->idle_since < max_idle && c->Alive()) return c;
    }
    return nullptr;
  }
  void Give(std::unique_ptr<Connection> c) {
    constexpr size_t kMaxIdlePerOrigin = 1024;
    auto& pool = idle[c->origin];
    if (pool.size() >= kMaxIdlePerOrigin) return;
    c->idle_since = Clock::now();
    pool.push_back(std::move(c));
  }
};

// One step: connect (or reuse), send, read the SSE stream, deliver parts. Lives on the I/O thread;
// shared by its pending operations, so it lives until the last of them completed.
class HttpProvider::Call : public std::enable_shared_from_this<HttpProvider::Call> {
 public:
  Call(HttpProvider& provider, StepRequest request, PartSink sink, CancelToken cancel,
       StepDone done)
      : p_(provider),
        io_(*provider.io_),
        request_(std::move(request)),
        sink_(std::move(sink)),
        cancel_(std::move(cancel)),
        done_(std::move(done)),
        writer_(sink_, nullptr),
        backoff_(io_.ioc),
        chat_(provider.options_.api == HttpProviderOptions::Api::kChat) {}

  void Begin() {
    writer_.StartStep();
    if (cancel_.cancelled()) return Done(writer_.Abort());
    const HttpProviderOptions& o = p_.options_;
    if (!o.api_key_env.empty()) {
      const char* key = std::getenv(o.api_key_env.c_str());
      if (key == nullptr || *key == '\0') {
        return Done(writer_.Fail(MakeError(
            "model.api_key", "the API key environment variable is not set", o.api_key_env)));
      }
      key_ = std::string("Bearer ") + key;
    }
    if (chat_) {
      st_.mapper = std::make_unique<formats::ChatDeltaMapper>(
          formats::ChatDeltaOptions{request_.step_id, o.format});
    } else {
      st_.parser = formats::MakeOutputParser(o.format, {request_.step_id});
    }
    body_ = p_.Body(request_).dump();
    // What stays of the request while the step streams: the body to send and the prompt's length.
    prompt_tokens_ = static_cast<int64_t>(request_.prompt.size());
    request_.prompt = {};
    request_.messages = nullptr;
    request_.tools = nullptr;
    request_.grammar = {};
    order_ = p_.Order(request_.affinity_key);
    attempts_ = o.connect_attempts * static_cast<int>(order_.size());
    // Cancel() may come from any thread: the step ends on the I/O thread.
    cancel_id_ = cancel_.OnCancel(
        [self = shared_from_this()] { asio::post(self->io_.ioc, [self] { self->Cancelled(); }); });
    Attempt();
  }

 private:
  HttpProvider::Replica& replica() { return p_.replicas_[order_[(attempt_ - 1) % order_.size()]]; }

  void Attempt() {
    ++attempt_;
    Replica& r = replica();
    if (auto c = io_.Take(r.origin, p_.options_.idle_timeout)) {
      conn_ = std::move(c);
      reused_ = true;
      ++p_.connections_reused_;
      return Send();
    }
    Connect();
  }

  // A new connection to the current replica.
  void Connect() {
    Replica& r = replica();
    reused_ = false;
    conn_ = std::make_unique<Connection>();
    conn_->origin = r.origin;
    if (r.tls) {
      conn_->tls.emplace(io_.ioc, io_.tls);
    } else {
      conn_->tcp.emplace(io_.ioc);
    }
    if (!resolver_) resolver_.emplace(io_.ioc);
    conn_->lowest().expires_after(p_.options_.connect_timeout);
    resolver_->async_resolve(
        r.host, r.port,
        [self = shared_from_this()](beast::error_code ec, tcp::resolver::results_type results) {
          if (self->Stopped()) return;
          if (ec) return self->ConnectFailed(ec);
          self->conn_->lowest().async_connect(results,
                                              [self](beast::error_code ec, const tcp::endpoint&) {
                                                if (self->Stopped()) return;
                                                if (ec) return self->ConnectFailed(ec);
                                                if (self->conn_->tls) return self->Handshake();
                                                self->Connected();
                                              });
        });
  }

  void Handshake() {
    Replica& r = replica();
    SSL* ssl = conn_->tls->native_handle();
    if (!SSL_set_tlsext_host_name(ssl, r.host.c_str())) {
      return TlsFailed("cannot set the TLS server name");
    }
    conn_->tls->set_verify_callback(ssl::host_name_verification(r.host));
    conn_->tls->async_handshake(ssl::stream_base::client,
                                [self = shared_from_this()](beast::error_code ec) {
                                  if (self->Stopped()) return;
                                  if (ec) return self->TlsFailed(ec.message());
                                  self->Connected();
                                });
  }

  void Connected() {
    ++p_.connections_opened_;
    // A request is written whole and waits for its answer: Nagle's algorithm would only hold a
    // kept-alive connection's next request back until the engine's delayed ACK.
    beast::error_code ignored;
    conn_->lowest().socket().set_option(tcp::no_delay(true), ignored);
    Send();
  }

  void ConnectFailed(beast::error_code ec) {
    conn_.reset();
    ++p_.connect_failures_;
    Replica& r = replica();
    r.down_until = Clock::now() + p_.options_.replica_cooldown;
    if (tried_.find(r.origin) == std::string::npos) {
      tried_ += (tried_.empty() ? "" : ", ") + r.origin;
    }
    if (attempt_ < attempts_) {
      // Another replica is tried at once; the same one again after a pause.
      const int n = static_cast<int>(order_.size());
      if (attempt_ % n != 0) return Attempt();
      const int round = (attempt_ - 1) / n + 1;
      backoff_.expires_after(p_.options_.retry_backoff * round);
      backoff_.async_wait([self = shared_from_this()](beast::error_code) {
        if (self->Stopped()) return;
        self->Attempt();
      });
      return;
    }
    const bool timed_out = ec == beast::error::timeout;
    Done(writer_.Fail(
        MakeError("model.connect",
                  std::string(order_.size() > 1 ? "could not connect to any of the model servers"
                                                : "could not connect to the model server") +
                      "; the request was never sent (tried " + std::to_string(attempt_) + " times)",
                  tried_ + ": " +
                      (timed_out ? "the connection timed out"
                                 : "the connection was refused or the host is unreachable (" +
                                       ec.message() + ")"))));
  }

  void TlsFailed(const std::string& why) {
    conn_.reset();
    Done(writer_.Fail(MakeError(
        "model.connect", "TLS setup with the model server failed; the request was never sent",
        replica().origin + ": " + why)));
  }

  void Send() {
    Replica& r = replica();
    req_.method(http::verb::post);
    req_.target(r.prefix + (chat_ ? "/v1/chat/completions" : "/v1/completions"));
    req_.version(11);
    req_.set(http::field::host, r.origin.substr(r.origin.find("://") + 3));
    req_.set(http::field::content_type, "application/json");
    req_.set(http::field::accept, "text/event-stream");
    req_.set(http::field::connection, "keep-alive");
    if (!key_.empty()) req_.set(http::field::authorization, key_);
    const HttpProviderOptions& o = p_.options_;
    if (!o.affinity_header.empty() && !request_.affinity_key.empty()) {
      req_.set(o.affinity_header, request_.affinity_key);
    }
    req_.body() = body_;  // body_ is kept until the engine answers (a stale connection, below)
    req_.prepare_payload();
    ++p_.dispatched_;
    conn_->lowest().expires_after(o.read_timeout);
    conn_->With([&](auto& stream) {
      http::async_write(stream, req_, [self = shared_from_this()](beast::error_code ec, size_t) {
        if (self->Stopped()) return;
        if (ec) return self->Broken(ec, /*writing=*/true);
        self->req_ = {};  // the body is sent: its memory is not held while the engine streams
        self->ReadHeader();
      });
    });
  }

  // Engines write a stream as many small segments, and most (llama-server's cpp-httplib, for
  // one) leave Nagle's algorithm on: each segment then waits for our ACK of the one before, and a
  // delayed ACK holds the stream back by up to 40 ms a token on a kept-alive connection. So every
  // segment is acknowledged at once (Linux resets the flag, so it is set before each read).
  void QuickAck() {
#ifdef TCP_QUICKACK
    const int on = 1;
    ::setsockopt(conn_->lowest().socket().native_handle(), IPPROTO_TCP, TCP_QUICKACK, &on,
                 sizeof on);
#endif
  }

  void ReadHeader() {
    QuickAck();
    parser_.emplace();
    // The SSE reader bounds each event, so the body has no limit of its own (a number, not
    // boost::none: Boost 1.74's parser compares a Content-Length against an empty limit as over).
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    conn_->lowest().expires_after(p_.options_.read_timeout);
    conn_->With([&](auto& stream) {
      http::async_read_header(stream, conn_->buffer, *parser_,
                              [self = shared_from_this()](beast::error_code ec, size_t) {
                                if (self->Stopped()) return;
                                if (ec) {
                                  self->heard_ = self->conn_->buffer.size() > 0;
                                  return self->Broken(ec, false);
                                }
                                self->status_ = self->parser_->get().result_int();
                                self->body_ = {};  // answered: never sent again
                                self->ReadBody();
                              });
    });
  }

  void ReadBody() {
    QuickAck();
    parser_->get().body().data = chunk_;
    parser_->get().body().size = sizeof chunk_;
    conn_->lowest().expires_after(p_.options_.read_timeout);
    conn_->With([&](auto& stream) {
      http::async_read_some(stream, conn_->buffer, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (self->Stopped()) return;
                              if (ec == http::error::need_buffer) ec = {};
                              const size_t got =
                                  sizeof self->chunk_ - self->parser_->get().body().size;
                              if (got > 0 && !self->Received(std::string_view(self->chunk_, got))) {
                                return self->StoppedEarly();
                              }
                              if (self->Stopped()) return;
                              if (ec) return self->Broken(ec, false);
                              if (self->parser_->is_done()) return self->BodyEnded();
                              self->ReadBody();
                            });
    });
  }

  // Bytes of the body; false stops the stream (a failure is recorded, or the step was cancelled).
  bool Received(std::string_view bytes) {
    if (status_ != 200) {
      if (error_body_.size() < 65536)
        error_body_.append(bytes.substr(0, 65536 - error_body_.size()));
      return true;
    }
    const bool more = sse_.Feed(bytes, [&](std::string_view payload) {
      if (payload == "[DONE]") {
        st_.done = true;
        return true;
      }
      // The engine's output is untrusted: the depth is checked on the text before a value is
      // built (base/json_limits.h), so no event can overflow a recursive walker.
      if (auto deep = CheckJsonDepth(payload, "model.too_deep", "a stream event"); !deep) {
        st_.failure = deep.error();
        return false;
      }
      nlohmann::json chunk = nlohmann::json::parse(payload, nullptr, false);
      bool keep = true;
      if (chunk.is_discarded()) {
        st_.failure = MakeError("model.stream_malformed", "a stream event is not valid JSON",
                                std::string(payload.substr(0, 200)));
        keep = false;
      } else if (chat_) {
        if (auto s = st_.mapper->Push(chunk, st_.parts); !s) {
          st_.failure = s.error();
          keep = false;
        }
      } else {
        keep = OnCompletionChunk(chunk, st_);
      }
      writer_.EmitAll(st_.parts);
      return keep && !cancel_.cancelled();
    });
    if (sse_.too_large() && !st_.failure) {
      st_.failure =
          MakeError("model.event_too_large",
                    "a stream event is larger than " +
                        std::to_string(internal::SseReader::kMaxEventBytes >> 20) +
                        " MiB; the stream was stopped",
                    "limit " + std::to_string(internal::SseReader::kMaxEventBytes) + " bytes");
    }
    return more && !cancel_.cancelled();
  }

  // The stream was stopped on our side mid-body: the connection cannot serve another request.
  void StoppedEarly() {
    conn_.reset();
    if (cancel_.cancelled()) return Aborted();
    CloseContent();
    Done(writer_.Fail(*st_.failure));
  }

  void BodyEnded() {
    if (parser_->keep_alive()) {
      conn_->buffer.consume(conn_->buffer.size());
      io_.Give(std::move(conn_));
    }
    conn_.reset();
    if (status_ != 200) return HttpStatus();
    if (st_.failure) {
      CloseContent();
      return Done(writer_.Fail(*st_.failure));
    }
    const bool finished =
        st_.done || (chat_ ? !st_.mapper->finish_reason().empty() : !st_.raw_finish.empty());
    if (!finished) {
      CloseContent();
      return Done(writer_.Fail(MakeError("model.stream_interrupted",
                                         "the model stream ended before it was complete; the "
                                         "request was sent, so it is not retried")));
    }
    Complete();
  }

  void HttpStatus() {
    std::string message = error_body_.substr(0, 500);
    // A body too deep to read as JSON is reported as the raw text it is.
    nlohmann::json e = JsonTextDepth(error_body_) > kMaxJsonDepth
                           ? nlohmann::json()
                           : nlohmann::json::parse(error_body_, nullptr, false);
    if (e.is_object() && e.contains("error")) {
      const auto& inner = e["error"];
      message = inner.is_object() && inner.contains("message") && inner["message"].is_string()
                    ? inner["message"].get<std::string>()
                    : inner.dump();
    }
    Done(writer_.Fail(MakeError(
        "model.http_status",
        "the model server answered HTTP " + std::to_string(status_) + " (not retried)", message)));
  }

  // The connection failed after the request was (or was being) sent: reported, never re-sent.
  void Broken(beast::error_code ec, bool writing) {
    conn_.reset();
    // A kept-alive connection the engine closed while it sat in the pool (its idle timeout raced
    // our reuse): the engine answered nothing, not even a status line, so it never took the
    // request up. It goes once more on a new connection; any other failure is never re-sent.
    const bool closed = ec == http::error::end_of_stream || ec == asio::error::eof ||
                        ec == asio::error::connection_reset || ec == asio::error::broken_pipe;
    if (reused_ && !stale_retried_ && status_ == 0 && !heard_ && closed) {
      stale_retried_ = true;
      ++p_.stale_retries_;
      return Connect();
    }
    if (status_ != 0 && status_ != 200 && !writing) return HttpStatus();
    CloseContent();
    if (st_.failure) return Done(writer_.Fail(*st_.failure));
    if (writing) {
      return Done(writer_.Fail(MakeError("model.write",
                                         "sending the request failed part-way; it may have "
                                         "reached the server, so it is not retried",
                                         ec.message())));
    }
    if (ec == beast::error::timeout) {
      return Done(writer_.Fail(MakeError(
          "model.read_timeout",
          "the model server went silent for longer than the read timeout; the request was sent, "
          "so it is not retried",
          std::to_string(p_.options_.read_timeout.count()) + " ms")));
    }
    Done(writer_.Fail(MakeError("model.stream_interrupted",
                                "the connection to the model server broke after the request was "
                                "sent; it is not retried",
                                ec.message())));
  }

  void Complete() {
    CloseContent();
    formats::Usage usage;
    std::string reason;
    if (chat_) {
      if (st_.mapper->has_usage()) usage = st_.mapper->usage();
      reason = st_.mapper->finish_reason();
      if (reason.empty()) reason = "other";
      if (reason == "stop" && st_.mapper->tool_calls() > 0) reason = "tool-calls";
    } else {
      if (st_.usage) usage = *st_.usage;
      if (usage.prompt_tokens == 0) usage.prompt_tokens = prompt_tokens_;
      if (usage.generated_tokens == 0) {
        usage.generated_tokens =
            st_.tokens.empty() ? st_.text_chunks : static_cast<int64_t>(st_.tokens.size());
      }
      if (st_.cache_n && usage.cached_prompt_tokens == 0) usage.cached_prompt_tokens = *st_.cache_n;
      reason = CompletionReason(st_);
    }
    nlohmann::json source = nullptr;
    if (!chat_) {
      source = {{"tokenSource", "sampled"}};
      if (st_.tokens.empty() && !st_.text.empty() && p_.options_.tokenizer) {
        // No IDs from the engine: the text it sampled, encoded again (special spellings as their
        // tokens), so the model's own calls are in its next prompt.
        auto ids = p_.options_.tokenizer->Encode(st_.text, {.match_special = true});
        if (ids.ok()) {
          st_.tokens = std::move(ids).value();
          source = {{"tokenSource", "reencoded"}};
        }
      } else if (st_.tokens.empty()) {
        source = {{"tokenSource", "none"}};
      }
    }
    Done(writer_.Finish(usage, std::move(st_.tokens), std::move(reason), source));
  }

  // Content parts that were started are closed before the terminal part.
  void CloseContent() {
    if (chat_)
      st_.mapper->Finish(st_.parts);
    else if (st_.raw_finish == "stop" || st_.raw_finish == "eos")
      st_.parser->EndTurn(st_.parts);  // the model ended its turn: its end token is not in the text
    else
      st_.parser->Finish(st_.parts);
    writer_.EmitAll(st_.parts);
  }

  // Cancel() was called (posted to the I/O thread): pending operations end at once.
  void Cancelled() {
    if (finished_) return;
    backoff_.cancel();
    if (resolver_) resolver_->cancel();
    if (conn_) {
      beast::error_code ignored;
      conn_->lowest().socket().close(ignored);
    }
    Aborted();
  }

  void Aborted() {
    if (finished_) return;
    conn_.reset();
    CloseContent();
    Done(writer_.Abort());
  }

  // In each completion handler: the step already ended (cancelled), or is being cancelled now.
  bool Stopped() {
    if (finished_) return true;
    if (cancel_.cancelled()) {
      Aborted();
      return true;
    }
    return false;
  }

  void Done(Status status) {
    if (finished_) return;
    finished_ = true;
    cancel_.Remove(cancel_id_);
    StepDone done = std::move(done_);
    done(std::move(status));
  }

  HttpProvider& p_;
  HttpProvider::Io& io_;
  StepRequest request_;
  PartSink sink_;
  CancelToken cancel_;
  StepDone done_;
  internal::StepWriter writer_;
  asio::steady_timer backoff_;
  const bool chat_;
  std::optional<tcp::resolver> resolver_;
  std::string key_, body_, tried_, error_body_;
  std::vector<size_t> order_;
  int attempts_ = 0, attempt_ = 0, cancel_id_ = -1, status_ = 0;
  int64_t prompt_tokens_ = 0;
  bool finished_ = false, reused_ = false, stale_retried_ = false, heard_ = false;
  std::unique_ptr<Connection> conn_;
  http::request<http::string_body> req_;
  std::optional<http::response_parser<http::buffer_body>> parser_;
  internal::SseReader sse_;
  StreamState st_;
  char chunk_[4096];  // SSE events are a few hundred bytes each
};

HttpProvider::HttpProvider(HttpProviderOptions options, std::vector<Replica> replicas)
    : options_(std::move(options)), replicas_(std::move(replicas)), io_(std::make_unique<Io>()) {}

HttpProvider::~HttpProvider() = default;

void HttpProvider::StreamAsync(StepRequest request, PartSink sink, CancelToken cancel,
                               StepDone done) {
  auto call = std::make_shared<Call>(*this, std::move(request), std::move(sink), std::move(cancel),
                                     std::move(done));
  asio::post(io_->ioc, [call] { call->Begin(); });
}

Status HttpProvider::Stream(const StepRequest& request, const PartSink& sink,
                            const CancelToken& cancel) {
  std::promise<Status> ended;
  auto status = ended.get_future();
  StreamAsync(request, sink, cancel, [&ended](Status s) { ended.set_value(std::move(s)); });
  return status.get();
}

}  // namespace affordance::model
