#include "server/internal/http_session.h"

#include "server/mcp.h"
#include "server/peer_user.h"
#include "server/protocol.h"
#include "server/turn_hub.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <cctype>
#include <chrono>
#include <deque>
#include <optional>

namespace affordance::server::internal {
namespace {

// Every page and response: only this origin for scripts, styles, images, fonts, frames,
// connections and media (data: images and fonts for the inline icon), no plugins, no <base>, forms
// only to us, and no framing by others (docs/SECURITY.md "What a page may load"). Inline styles
// are allowed: they can load nothing the rest does not allow.
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; media-src 'self'; "
    "frame-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

class HttpSession;

// Bridges a turn's worker thread to the connection's strand: serializes each chunk for this
// client's protocol version there (cheap) and posts the bytes.
class StreamSubscriber : public TurnSubscriber {
 public:
  StreamSubscriber(std::shared_ptr<HttpSession> session, beast::tcp_stream::executor_type executor,
                   ClientStream view)
      : session_(std::move(session)), executor_(std::move(executor)), view_(std::move(view)) {}
  void OnEvent(const harness::Event& event) override;
  void OnEnd() override;

 private:
  // Strong: a half-closed peer leaves no read outstanding, and the stream must still reach it.
  // The cycle is broken when the session unsubscribes (end of stream, drop, error).
  std::shared_ptr<HttpSession> session_;
  beast::tcp_stream::executor_type executor_;
  ClientStream view_;  // OnEvent calls are sequential (under the turn's lock)
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, std::shared_ptr<const SessionConfig> config)
      : stream_(std::move(socket)),
        read_deadline_(stream_.get_executor()),
        config_(std::move(config)) {}

  void Run() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Read(); });
  }

  // On the strand.
  void Enqueue(std::string bytes, bool last) {
    if (closed_) return;
    backlog_ += bytes.size();
    pending_.push_back(std::move(bytes));
    if (last) ended_ = true;
    if (backlog_ > config_->options.stream_backlog) {
      Close();  // a client that does not drain its stream; the turn goes on without it
      return;
    }
    if (!writing_) WriteStream();
  }

 private:
  const ServerOptions& opt() const { return config_->options; }

  // The read deadline is our own timer, not tcp_stream's (which closes the socket when it fires):
  // a request that started but did not finish in time still gets its 408.
  void Read() {
    parser_.emplace();
    parser_->body_limit(opt().body_limit);
    parser_->header_limit(16 * 1024);
    timed_out_ = false;
    reading_ = true;
    stream_.expires_never();
    read_deadline_.expires_after(std::chrono::milliseconds(opt().read_timeout_ms));
    read_deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->reading_) return;  // cancelled: the request arrived
      self->timed_out_ = true;
      beast::error_code ignored;
      self->stream_.socket().cancel(ignored);
    });
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    reading_ = false;
    read_deadline_.cancel();
    if (timed_out_) ec = beast::error::timeout;
    if (ec == http::error::end_of_stream || ec == net::error::eof) return Shutdown();
    if (ec == http::error::body_limit) {
      return Fail(MakeError(ErrorKind::kTooLarge, "server.body_too_large",
                            "the request body is larger than the limit",
                            std::to_string(opt().body_limit) + " bytes"));
    }
    if (ec == beast::error::timeout) {
      if (buffer_.size() == 0 && !parser_->got_some()) return Close();  // an idle keep-alive
      return Fail(
          MakeError(ErrorKind::kTimeout, "server.timeout", "the request did not arrive in time"));
    }
    if (ec.category() == http::make_error_code(http::error::bad_target).category()) {
      return Fail(MakeError(ErrorKind::kInvalid, "server.bad_request",
                            "the request is not valid HTTP", ec.message()));
    }
    if (ec) return Close();  // reset, aborted: nobody to answer
    Handle(parser_->release());
  }

  void Handle(http::request<http::string_body> req) {
    keep_alive_ = req.keep_alive();
    version_ = req.version();
    cors_.clear();
    HttpRequest r;
    r.method = std::string(req.method_string());
    std::string_view target(req.target().data(), req.target().size());
    r.path = std::string(target.substr(0, target.find('?')));
    r.body = std::move(req.body());
    int hosts = 0;
    for (const auto& field : req) {
      r.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
      if (field.name() == http::field::host) ++hosts;
    }
    const Gate& gate = *config_->gate;
    // Before anything else, routing included: a request that names another host (DNS
    // rebinding) learns nothing, not even which paths exist. Two Host fields are refused too
    // (RFC 9112 3.2).
    if (hosts != 1 || !gate.HostAllowed(r.Header("host"))) {
      gate.Count("server.foreign_host");
      return Respond(GateError(
          r.path, MakeError(ErrorKind::kMisdirected, "server.foreign_host",
                            "this server answers only to its own names (127.0.0.1, localhost, "
                            "[::1] with its port, and the operator's --public-host names)")));
    }
    auto client = ParseClientVersion(r.Header(kClientVersionHeader));
    if (!client) return Respond(ErrorResponse(client.error()));
    r.client = *client;
    Peer(r);

    const std::string origin = r.Header("origin");
    if (gate.CorsOrigin(origin)) cors_ = origin;
    if (r.method == "OPTIONS" && !cors_.empty() && r.HasHeader("access-control-request-method")) {
      HttpResponse preflight;  // a CORS preflight from an origin the operator allowed
      preflight.status = 204;
      preflight.content_type.clear();
      preflight.headers = gate.CorsHeaders(cors_, /*preflight=*/true);
      return Respond(std::move(preflight));
    }

    auto match = config_->router->Find(r.method, r.path);
    if (!match.route) {
      if (match.path_exists) {
        return Respond(ErrorResponse(MakeError(ErrorKind::kNotAllowed, "server.method_not_allowed",
                                               "this path does not take " + r.method, r.path)));
      }
      return Respond(ErrorResponse(
          MakeError(ErrorKind::kNotFound, "server.not_found", "no such route", r.path)));
    }
    auto admitted = gate.Admit(r, match.route->capability.access);
    if (!admitted) return Respond(GateError(r.path, admitted.error()));
    r.plane = admitted->plane;
    r.person_session_invalid = admitted->person_session_invalid;
    r.own_origin = admitted->own_origin;
    r.credential = admitted->credential;
    r.params = std::move(match.params);
    HttpResponse response;
    try {
      response = match.route->handler(r);
    } catch (const std::exception& e) {
      response = ErrorResponse(MakeError("server.internal", "the handler failed", e.what()));
    }
    if (response.stream) {
      return StartStream(std::move(response.stream), ClientStream(r.client, response.resumed));
    }
    if (response.deferred) {
      auto sent = std::make_shared<std::atomic<bool>>(false);
      auto send = [self = shared_from_this(), sent](HttpResponse ready) {
        if (sent->exchange(true)) return;
        net::post(self->stream_.get_executor(),
                  [self, ready = std::move(ready)]() mutable { self->Respond(std::move(ready)); });
      };
      try {
        response.deferred(send);
      } catch (const std::exception& e) {
        send(ErrorResponse(MakeError("server.internal", "the handler failed", e.what())));
      }
      return;
    }
    Respond(std::move(response));
  }

  static bool Forwarded(const HttpRequest& r) {
    for (const auto& [name, value] : r.headers) {
      if (beast::iequals(name, "forwarded") || beast::iequals(name, "x-forwarded-for") ||
          beast::iequals(name, "x-real-ip")) {
        return true;
      }
    }
    return false;
  }

  // The peer's address, and for a loopback peer the OS user owning its socket (looked up once
  // per connection: the kernel's table does not change owners).
  void Peer(HttpRequest& r) {
    beast::error_code ec;
    auto peer = stream_.socket().remote_endpoint(ec);
    if (ec) return;
    auto a = peer.address();
    r.peer_address = a.to_string();
    r.peer_loopback =
        a.is_loopback() || (a.is_v6() && a.to_v6().is_v4_mapped() &&
                            net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6()).is_loopback());
    // A request a proxy says it forwards (a load balancer in front of several nodes, on this
    // machine and maybe as this user) comes from a client elsewhere: it gets nothing for the
    // proxy's socket (no same-user trust, no person session without a sign-in code), only what
    // its own credentials give.
    if (r.peer_loopback && Forwarded(r)) r.peer_loopback = false;
    if (!r.peer_loopback) return;
    if (!peer_uid_checked_) {
      peer_uid_checked_ = true;
      auto local = stream_.socket().local_endpoint(ec);
      if (!ec) {
        peer_uid_ =
            PeerUid({r.peer_address, peer.port()}, {local.address().to_string(), local.port()});
      }
    }
    r.peer_uid = peer_uid_;
  }

  // A refusal by the gate: the server's JSON error, or on the MCP endpoint a JSON-RPC error with
  // no id (what the Streamable HTTP transport says a refused request gets), our code in its data.
  static HttpResponse GateError(const std::string& path, const Error& e) {
    HttpResponse r = ErrorResponse(e);
    if (path == "/mcp") {
      r.body = mcp::ErrorMessage(nullptr, mcp::kInvalidRequest, e.message, {{"code", e.code}})
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    return r;
  }

  void Respond(HttpResponse r) {
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(r.status), version_);
    res->set(http::field::server, "affordance");
    if (!r.content_type.empty()) res->set(http::field::content_type, r.content_type);
    SetCommonHeaders(*res);
    for (auto& [k, v] : r.headers) res->set(k, v);
    res->body() = std::move(r.body);
    res->keep_alive(keep_alive_ && r.status < 400);
    res->prepare_payload();
    stream_.expires_after(std::chrono::milliseconds(opt().write_timeout_ms));
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, size_t) {
                        if (ec) return self->Close();
                        if (!res->keep_alive()) return self->Shutdown();
                        self->Read();
                      });
  }

  // On every response: no framing by other sites (clickjacking an Approve button), nothing loaded
  // from or sent to another host (the CSP below; an Html canvas's srcdoc frame inherits it, so a
  // composed image, stylesheet, font or link cannot carry the rows it shows elsewhere), no MIME
  // sniffing, no Referer with a thread id in it, and no reads by other origins through
  // no-cors requests (CORP). CORS headers only for an origin the operator allowed.
  template <class Response>
  void SetCommonHeaders(Response& res) const {
    res.set("x-frame-options", "DENY");
    res.set("content-security-policy", kContentSecurityPolicy);
    res.set("x-content-type-options", "nosniff");
    res.set("referrer-policy", "no-referrer");
    res.set("cross-origin-resource-policy", "same-origin");
    // Which node answered (behind a load balancer, the one thing a client cannot see otherwise).
    if (!opt().node.empty()) res.set("x-affordance-node", opt().node);
    if (!cors_.empty()) {
      for (const auto& [k, v] : config_->gate->CorsHeaders(cors_, /*preflight=*/false)) {
        res.set(k, v);
      }
    }
  }

  void Fail(const Error& e) {
    keep_alive_ = false;
    Respond(ErrorResponse(e));
  }

  // The UI message stream: headers, then one SSE event per chunk (written as HTTP chunks), then
  // [DONE]; the connection closes after it.
  void StartStream(std::shared_ptr<ActiveTurn> turn, ClientStream view) {
    turn_ = std::move(turn);
    auto res = std::make_shared<http::response<http::empty_body>>(http::status::ok, version_);
    for (const auto& [k, v] : kStreamHeaders) res->set(std::string(k), std::string(v));
    SetCommonHeaders(*res);
    res->chunked(true);
    auto sr = std::make_shared<http::response_serializer<http::empty_body>>(*res);
    stream_.expires_after(std::chrono::milliseconds(opt().write_timeout_ms));
    http::async_write_header(
        stream_, *sr, [self = shared_from_this(), res, sr, view](beast::error_code ec, size_t) {
          if (ec) return self->Close();
          self->WatchPeer();
          if (self->closed_) return;
          self->subscriber_ =
              std::make_shared<StreamSubscriber>(self, self->stream_.get_executor(), view);
          self->turn_->Subscribe(self->subscriber_);
        });
  }

  // A read outstanding while the stream is written: it completes when the peer resets or closes.
  // A half-closed peer (EOF) may still read, so the stream goes on until a write fails.
  void WatchPeer() {
    stream_.socket().async_read_some(
        net::buffer(peer_buf_), [self = shared_from_this()](beast::error_code ec, size_t) {
          if (!ec) return self->WatchPeer();  // a pipelined byte: ignored while streaming
          if (ec != net::error::eof) self->Close();
        });
  }

  void WriteStream() {
    if (closed_ || pending_.empty()) return;
    auto data = std::make_shared<std::string>();
    bool last = false;
    while (!pending_.empty()) {
      *data += pending_.front();
      pending_.pop_front();
    }
    last = ended_;
    backlog_ = 0;
    writing_ = true;
    stream_.expires_after(std::chrono::milliseconds(opt().write_timeout_ms));
    auto on_done = [self = shared_from_this(), data, last](beast::error_code ec, size_t) {
      self->writing_ = false;
      if (ec) return self->Close();
      if (last) return self->Shutdown();
      self->WriteStream();
    };
    if (last) {
      // The final SSE bytes, then the last HTTP chunk, in one gathered write.
      net::async_write(stream_, http::make_chunk(net::buffer(*data)),
                       [self = shared_from_this(), data, on_done](beast::error_code ec, size_t n) {
                         if (ec) return on_done(ec, n);
                         net::async_write(
                             self->stream_, http::make_chunk_last(),
                             [on_done](beast::error_code e2, size_t m) { on_done(e2, m); });
                       });
      return;
    }
    net::async_write(stream_, http::make_chunk(net::buffer(*data)), on_done);
  }

  void Unsubscribe() {
    if (turn_ && subscriber_) turn_->Unsubscribe(subscriber_.get());
    subscriber_.reset();
  }

  void Shutdown() {
    read_deadline_.cancel();
    Unsubscribe();
    if (closed_) return;
    closed_ = true;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.close();
  }

  void Close() {
    read_deadline_.cancel();
    Unsubscribe();
    if (closed_) return;
    closed_ = true;
    stream_.close();
  }

  beast::tcp_stream stream_;
  net::steady_timer read_deadline_;
  bool reading_ = false;
  bool timed_out_ = false;
  std::shared_ptr<const SessionConfig> config_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = false;
  unsigned version_ = 11;
  std::string cors_;  // the request's Origin when the operator allowed it, else ""
  bool peer_uid_checked_ = false;
  std::optional<uint32_t> peer_uid_;

  std::shared_ptr<ActiveTurn> turn_;
  std::shared_ptr<StreamSubscriber> subscriber_;
  std::deque<std::string> pending_;
  size_t backlog_ = 0;
  bool writing_ = false;
  bool ended_ = false;
  bool closed_ = false;
  std::array<char, 512> peer_buf_{};
};

void StreamSubscriber::OnEvent(const harness::Event& event) {
  auto shown = view_.Next(event);
  if (!shown) return;
  net::post(executor_, [s = session_, bytes = SseEvent(*shown)]() mutable {
    s->Enqueue(std::move(bytes), false);
  });
}

void StreamSubscriber::OnEnd() {
  net::post(executor_, [s = session_] { s->Enqueue(std::string(SseDone()), true); });
}

}  // namespace

void StartSession(tcp::socket socket, std::shared_ptr<const SessionConfig> config) {
  std::make_shared<HttpSession>(std::move(socket), std::move(config))->Run();
}

}  // namespace affordance::server::internal
