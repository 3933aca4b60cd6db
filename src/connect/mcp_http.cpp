// The MCP client's Streamable HTTP transport (protocol revision 2025-11-25): every JSON-RPC
// message is one POST to the server's URL; a request is answered with application/json (one
// message) or text/event-stream (the server's requests and notifications, then the answer), a
// notification or an answer of ours with 202. The session id the server gives at initialize
// (Mcp-Session-Id) and the negotiated revision (MCP-Protocol-Version) go on every later message;
// a 404 to a message that carried the session id means the server forgot the session: it is
// initialized again, once, and the message sent again (the server did not process it). Stop
// sends DELETE with the session id. See docs/CONNECTORS.md "MCP servers".
//
// The bearer token (the value of the environment variable `bearer_env`) is read once at open,
// sent only in the Authorization header, and never written to an error, a log or the status.
#include "base/json_limits.h"
#include "connect/internal/mcp_rpc.h"
#include "connect/sql_guard.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

namespace affordance::connect {

using nlohmann::json;

Result<McpUrl> ParseMcpUrl(const std::string& url) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorKind::kInvalid, "connect.mcp_bad_url", "the MCP server's url " + why);
  };
  McpUrl u;
  size_t rest = 0;
  if (url.rfind("https://", 0) == 0) {
    u.scheme = "https", u.port = 443, rest = 8;
  } else if (url.rfind("http://", 0) == 0) {
    u.scheme = "http", u.port = 80, rest = 7;
  } else {
    return bad("must be an http:// or https:// URL");
  }
  if (url.find('#') != std::string::npos) return bad("must not have a fragment (#)");
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return bad("must not contain spaces or control characters");
    }
  }
  size_t slash = url.find_first_of("/?", rest);
  std::string authority =
      url.substr(rest, slash == std::string::npos ? std::string::npos : slash - rest);
  u.path = slash == std::string::npos ? "/" : url.substr(slash);
  if (u.path[0] == '?') u.path = "/" + u.path;
  if (authority.find('@') != std::string::npos) {
    return bad("must not carry a user name or password (use bearer_env for a token)");
  }
  std::string port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return bad("has an unclosed [ in its host");
    u.host = authority.substr(0, close + 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return bad("has text after its [host]");
      port = authority.substr(close + 2);
    }
  } else {
    size_t colon = authority.find(':');
    u.host = authority.substr(0, colon);
    if (colon != std::string::npos) port = authority.substr(colon + 1);
  }
  if (u.host.empty() || u.host == "[]") return bad("has no host");
  if (!port.empty() || authority.back() == ':') {
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return bad("has a port that is not a number");
    }
    u.port = std::stoi(port);
    if (u.port < 1 || u.port > 65535) return bad("has a port outside 1..65535");
  }
  std::string lower = u.host;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  u.loopback = lower == "127.0.0.1" || lower == "localhost" || lower == "[::1]";
  if (u.scheme == "http" && !u.loopback) {
    return MakeError(ErrorKind::kInvalid, "connect.mcp_insecure_url",
                     "the MCP server's url is plain http:// to " + ValidUtf8(u.host) +
                         ", which is not this machine (127.0.0.1, localhost or [::1]): a token "
                         "or the data would travel in clear; use https://");
  }
  return u;
}

namespace {

constexpr const char* kAccept = "application/json, text/event-stream";

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Server-Sent Events, incrementally: bytes in, the data of each `message` event out. An event or
// a line longer than `max` bytes stops the stream (too_large()).
class SseParser {
 public:
  explicit SseParser(size_t max) : max_(max) {}

  template <class OnMessage>
  bool Feed(const char* data, size_t n, OnMessage&& on_message) {
    for (size_t i = 0; i < n; ++i) {
      char c = data[i];
      if (c == '\n' || c == '\r') {
        if (c == '\n' && last_cr_) {
          last_cr_ = false;
          continue;
        }
        last_cr_ = c == '\r';
        if (!Line(on_message)) return false;
        line_.clear();
        continue;
      }
      last_cr_ = false;
      line_.push_back(c);
      if (line_.size() + data_.size() > max_) {
        too_large_ = true;
        return false;
      }
    }
    return true;
  }
  bool too_large() const { return too_large_; }

 private:
  template <class OnMessage>
  bool Line(OnMessage& on_message) {
    if (line_.empty()) {  // dispatch
      bool deliver = has_data_ && (event_.empty() || event_ == "message");
      std::string d = std::move(data_);
      data_.clear(), event_.clear(), has_data_ = false;
      return deliver ? on_message(d) : true;
    }
    if (line_[0] == ':') return true;  // a comment (keep-alive)
    size_t colon = line_.find(':');
    std::string field = line_.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : line_.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (field == "data") {
      if (has_data_) data_.push_back('\n');
      data_ += value;
      has_data_ = true;
    } else if (field == "event") {
      event_ = value;
    }
    return true;  // id and retry: resuming a stream is not implemented (see docs)
  }

  size_t max_;
  std::string line_, data_, event_;
  bool has_data_ = false, last_cr_ = false, too_large_ = false;
};

// What one POST came back with.
struct Posted {
  bool sent = false;       // the message reached the server (it may have acted on it)
  bool expired = false;    // 404 to a message that carried the session id
  bool connected = false;  // a TCP (and TLS) connection was made
};

class HttpSession final : public RpcSession {
 public:
  HttpSession(const SourceSpec& s, McpUrl url, std::string bearer)
      : source_(s), url_(std::move(url)), bearer_(std::move(bearer)) {
    max_message_bytes_ = static_cast<int64_t>(s.max_message_bytes);
    base_ = url_.scheme + "://" + url_.host + ":" + std::to_string(url_.port);
  }
  ~HttpSession() override { Stop(); }

  void Stop() override {
    std::call_once(stopped_, [this] {
      std::string sid = SessionId();
      Fatal(MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                      "the MCP session was stopped"));
      if (sid.empty()) return;
      // Ends the session on the server (it may answer 405: it keeps sessions until they expire).
      auto client = NewClient(NowMs() + 1000);
      httplib::Headers headers = Headers(sid);
      (void)client->Delete(url_.path, headers);
    });
  }

  std::string StderrLog() const override { return {}; }

 protected:
  bool Send(const json& message, std::optional<int64_t> request_id, int64_t deadline_ms) override {
    const std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
    const bool initialize = message.value("method", json()) == "initialize";
    for (int attempt = 0;; ++attempt) {
      std::string sid = initialize ? "" : SessionId();
      Posted p = Post(body, request_id, sid, deadline_ms);
      if (!p.expired) return p.sent;
      if (attempt > 0 || !Reinitialize(sid, deadline_ms)) {
        Fatal(MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                        attempt > 0 ? "the MCP server forgot the session again right after it "
                                      "was initialized again"
                                    : "the MCP server's session expired and it could not be "
                                      "initialized again"));
        return false;
      }
    }
  }

  void OnInitialized(const std::string& protocol_version) override {
    std::lock_guard<std::mutex> lock(state_mu_);
    protocol_version_ = protocol_version;
  }

 private:
  std::string SessionId() const {
    std::lock_guard<std::mutex> lock(state_mu_);
    return session_id_;
  }

  httplib::Headers Headers(const std::string& sid) const {
    httplib::Headers h = {{"Accept", kAccept}};
    std::lock_guard<std::mutex> lock(state_mu_);
    if (!protocol_version_.empty()) h.emplace("MCP-Protocol-Version", protocol_version_);
    if (!sid.empty()) h.emplace("Mcp-Session-Id", sid);
    if (!bearer_.empty()) h.emplace("Authorization", "Bearer " + bearer_);
    return h;
  }

  std::unique_ptr<httplib::Client> NewClient(int64_t deadline_ms) const {
    auto client = std::make_unique<httplib::Client>(base_);
    int64_t left = std::max<int64_t>(deadline_ms - NowMs(), 1);
    auto ms = std::chrono::milliseconds(left);
    client->set_connection_timeout(ms);
    client->set_read_timeout(ms);
    client->set_write_timeout(ms);
    client->set_keep_alive(false);
    client->set_follow_location(false);  // a redirect would carry the token elsewhere
    return client;
  }

  // The session expired (404 to `sid`): one new initialize, unless another request already did.
  bool Reinitialize(const std::string& sid, int64_t deadline_ms) {
    std::lock_guard<std::mutex> once(reinit_mu_);
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      if (session_id_ != sid) return true;  // done by another request meanwhile
      session_id_.clear();
      protocol_version_.clear();
    }
    return Initialize(std::max<int64_t>(deadline_ms - NowMs(), 1)).ok();
  }

  Posted Post(const std::string& body, std::optional<int64_t> request_id, const std::string& sid,
              int64_t deadline_ms) {
    Posted out;
    auto client = NewClient(deadline_ms);
    httplib::Request req;
    req.method = "POST";
    req.path = url_.path;
    req.headers = Headers(sid);
    req.headers.emplace("Content-Type", "application/json");
    req.body = body;
    int status = 0;
    bool sse = false, json_body = false;
    std::string text;  // a JSON answer, or the start of an error answer
    const size_t max = static_cast<size_t>(max_message_bytes_);
    SseParser events(max);
    bool too_large = false;
    req.response_handler = [&](const httplib::Response& res) {
      out.connected = true;
      status = res.status;
      std::string type = Lower(res.get_header_value("Content-Type"));
      sse = type.rfind("text/event-stream", 0) == 0;
      json_body = type.rfind("application/json", 0) == 0;
      if (status >= 200 && status < 300 && res.has_header("Mcp-Session-Id")) {
        std::string given = res.get_header_value("Mcp-Session-Id");
        bool visible =
            !given.empty() && given.size() <= 256 &&
            std::all_of(given.begin(), given.end(), [](char c) { return c >= 0x21 && c <= 0x7e; });
        std::lock_guard<std::mutex> lock(state_mu_);
        if (visible && sid.empty()) session_id_ = given;
      }
      return true;
    };
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
      if (NowMs() > deadline_ms) return false;
      if (status >= 200 && status < 300 && sse) {
        bool more = events.Feed(data, n, [&](const std::string& message) {
          HandleText(message);
          return alive() && !(request_id && Answered(*request_id));
        });
        if (events.too_large()) too_large = true;
        return more;
      }
      if (status >= 200 && status < 300) {
        if (text.size() + n > max) {
          too_large = true;
          return false;
        }
        text.append(data, n);
        return true;
      }
      if (text.size() < 400) text.append(data, std::min<size_t>(n, 400 - text.size()));
      return true;
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    bool ok = client->send(req, res, err);
    if (too_large) {
      Fatal(MakeError(
          ErrorKind::kTooLarge, "connect.mcp_message_too_large",
          "the MCP server sent a message over " + std::to_string(max_message_bytes_) + " bytes"));
      out.sent = true;
      return out;
    }
    if (!ok && !out.connected) {
      bool refused = err == httplib::Error::Connection || err == httplib::Error::ConnectionTimeout;
      bool tls = err == httplib::Error::SSLConnection ||
                 err == httplib::Error::SSLServerVerification ||
                 err == httplib::Error::SSLLoadingCerts;
      if (err == httplib::Error::Read && NowMs() >= deadline_ms - 50) {
        out.sent = true;  // it took the request and never began to answer: a timeout
        return out;
      }
      // Nothing came back: an unreachable server, a refused TLS handshake, a connection cut
      // before any answer. Whether a written request reached it is unknown unless it never
      // connected.
      out.sent = !(refused || tls);
      Fatal(MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                      std::string("cannot reach the MCP server at ") + base_ + ": " +
                          (tls ? "the TLS connection failed (" : "") + httplib::to_string(err) +
                          (tls ? ")" : "")));
      return out;
    }
    out.sent = true;
    if (!ok) {
      // Cut after it began to answer: our deadline (the request then times out), an answer that
      // ended the stream early (delivered: it stopped reading on purpose), or the server gone.
      if (NowMs() >= deadline_ms - 50 || (request_id && Answered(*request_id)) || !alive())
        return out;
      Fatal(MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                      "the MCP server closed the connection before it answered (" +
                          httplib::to_string(err) + ")"));
      return out;
    }
    if (status == 404 && !sid.empty()) {
      out.expired = true;
      out.sent = false;
      return out;
    }
    if (status == 401 || status == 403) {
      out.sent = false;
      if (request_id) {
        Deliver(
            *request_id,
            MakeError(ErrorKind::kUnauthenticated, "connect.mcp_unauthorized",
                      "the MCP server refused the request (HTTP " + std::to_string(status) + "): " +
                          (bearer_.empty() ? "it needs a bearer token (set bearer_env)"
                                           : "the bearer token from " + source_.bearer_env +
                                                 " was not accepted")));
      }
      return out;
    }
    if (status < 200 || status >= 300) {
      // A 4xx was refused before it was processed; a 5xx may have been half done.
      out.sent = status >= 500;
      if (request_id) {
        Deliver(*request_id,
                MakeError(ErrorKind::kUnavailable, "connect.mcp_http_error",
                          "the MCP server answered HTTP " + std::to_string(status), Bounded(text)));
      }
      return out;
    }
    if (!request_id) return out;  // 202 (or 200) to a notification or an answer of ours
    if (json_body && !text.empty()) {
      HandleText(text);
    } else if (!sse) {
      Deliver(*request_id, MakeError("connect.mcp_protocol",
                                     "the MCP server answered a request with neither JSON nor "
                                     "an event stream (HTTP " +
                                         std::to_string(status) + ")"));
      return out;
    }
    if (alive() && !Answered(*request_id)) {
      Deliver(*request_id, MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                                     "the MCP server's answer ended before it answered the "
                                     "request"));
    }
    return out;
  }

  static std::string Bounded(const std::string& text) {
    std::string v = ValidUtf8(text);
    return v.size() > 300 ? ValidUtf8(v.substr(0, 300)) : v;
  }

  SourceSpec source_;
  McpUrl url_;
  std::string base_;
  const std::string bearer_;
  mutable std::mutex state_mu_;
  std::string session_id_;
  std::string protocol_version_;
  std::mutex reinit_mu_;
  std::once_flag stopped_;
};

}  // namespace

Result<std::unique_ptr<RpcSession>> NewHttpSession(const SourceSpec& source) {
  auto url = ParseMcpUrl(source.url);
  if (!url) return url.error();
  std::string bearer;
  if (!source.bearer_env.empty()) {
    const char* v = std::getenv(source.bearer_env.c_str());
    if (v == nullptr || *v == '\0') {
      return MakeError(ErrorKind::kInvalid, "connect.mcp_start_failed",
                       "the MCP server's bearer_env names the environment variable " +
                           source.bearer_env + ", which is not set");
    }
    bearer = v;
    if (bearer.find_first_of("\r\n") != std::string::npos) {
      return MakeError(ErrorKind::kInvalid, "connect.mcp_start_failed",
                       "the environment variable " + source.bearer_env +
                           " holds a line break, which cannot be a bearer token");
    }
  }
  return std::unique_ptr<RpcSession>(
      std::make_unique<HttpSession>(source, std::move(*url), std::move(bearer)));
}

}  // namespace affordance::connect
