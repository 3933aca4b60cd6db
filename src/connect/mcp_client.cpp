// The MCP client: the JSON-RPC session (RpcSession) and the stdio transport (StdioSession).
#include "base/json_limits.h"
#include "base/version.h"
#include "connect/internal/mcp_rpc.h"
#include "connect/sql_guard.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace affordance::connect {

using nlohmann::json;

namespace {

std::string Text(const json& obj, const char* key, size_t n) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? BoundedText(it->get<std::string>(), n) : "";
}

}  // namespace

int64_t RpcSession::NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool RpcSession::alive() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !death_.has_value();
}

Error RpcSession::death() const {
  std::lock_guard<std::mutex> lock(mu_);
  return death_.value_or(Error{});
}

void RpcSession::Fatal(Error why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (death_) return;
    death_ = why;
    for (auto& [id, p] : pending_) {
      if (!p.answer) p.answer = Result<json>(why);
    }
  }
  answered_.notify_all();
  OnFatal();
}

void RpcSession::Deliver(int64_t id, Result<json> answer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.answer) return;  // late (timed out) or duplicate
    it->second.answer = std::move(answer);
  }
  answered_.notify_all();
}

bool RpcSession::Answered(int64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(id);
  return it == pending_.end() || it->second.answer.has_value();
}

McpReply RpcSession::Request(const std::string& method, const json& params, int64_t timeout_ms) {
  McpReply reply;
  int64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (death_) {
      reply.result = *death_;
      return reply;
    }
    id = next_id_++;
    pending_[id];
  }
  int64_t deadline = NowMs() + timeout_ms;
  json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = params;
  bool sent = Send(message, id, deadline);
  reply.sent = sent;
  std::unique_lock<std::mutex> lock(mu_);
  if (!sent) {
    // The transport may have said why (an HTTP status that refused it before it was processed).
    std::optional<Result<json>> refused = std::move(pending_[id].answer);
    pending_.erase(id);
    reply.result =
        refused ? std::move(*refused)
                : death_.value_or(MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                                            "the request could not be sent to the "
                                            "MCP server"));
    return reply;
  }
  bool done = answered_.wait_until(
      lock, std::chrono::steady_clock::now() + std::chrono::milliseconds(deadline - NowMs()),
      [&] { return pending_[id].answer.has_value(); });
  if (!done) {
    pending_.erase(id);
    lock.unlock();
    json cancel = {{"jsonrpc", "2.0"},
                   {"method", "notifications/cancelled"},
                   {"params", {{"requestId", id}, {"reason", "timeout"}}}};
    (void)Send(cancel, std::nullopt, NowMs() + 1000);
    reply.result = MakeError(ErrorKind::kTimeout, "connect.mcp_timeout",
                             "the MCP server did not answer " + method + " within " +
                                 std::to_string(timeout_ms) + " ms");
    return reply;
  }
  reply.result = std::move(*pending_[id].answer);
  pending_.erase(id);
  return reply;
}

std::string BoundedText(const std::string& text, size_t n) {
  std::string out = ValidUtf8(text);
  size_t cps = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if ((static_cast<unsigned char>(out[i]) & 0xC0) != 0x80 && ++cps > n) {
      out.resize(i);
      out += "…";
      break;
    }
  }
  return out;
}

void RpcSession::HandleText(const std::string& text) {
  if (text.find_first_not_of(" \t\r") == std::string::npos) return;
  if (JsonTextDepth(text) > kMaxJsonDepth) {
    Fatal(MakeError(ErrorKind::kInvalid, "connect.too_deep",
                    "the MCP server sent a message nested deeper than " +
                        std::to_string(kMaxJsonDepth) + " levels of arrays and objects"));
    return;
  }
  json message = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    Fatal(MakeError("connect.mcp_protocol", "the MCP server sent text that is not JSON",
                    BoundedText(text, 200)));
    return;
  }
  if (message.is_array()) {  // a batch (2025-03-26): each member on its own
    for (const auto& m : message) HandleMessage(m);
    return;
  }
  HandleMessage(message);
}

void RpcSession::HandleMessage(const json& m) {
  auto bad = [&](const std::string& why) {
    Fatal(MakeError("connect.mcp_protocol",
                    "the MCP server sent a message that is not JSON-RPC 2.0: " + why,
                    BoundedText(m.dump(-1, ' ', false, json::error_handler_t::replace), 200)));
  };
  if (!m.is_object() || m.value("jsonrpc", json()) != "2.0") return bad("no \"jsonrpc\": \"2.0\"");
  bool has_id = m.contains("id") && !m["id"].is_null();
  if (m.contains("method")) {
    if (!m["method"].is_string()) return bad("\"method\" is not a string");
    const std::string& method = m["method"].get_ref<const std::string&>();
    if (has_id) {  // the server asks us something: only ping is answered
      json answer = {{"jsonrpc", "2.0"}, {"id", m["id"]}};
      if (method == "ping") {
        answer["result"] = json::object();
      } else {
        answer["error"] = {{"code", -32601},
                           {"message", "affordance does not serve " + BoundedText(method, 100)}};
      }
      (void)Send(answer, std::nullopt, NowMs() + 1000);
      return;
    }
    if (method == "notifications/tools/list_changed" ||
        method == "notifications/resources/list_changed") {
      list_changed_ = true;
    }
    return;  // other notifications (progress, logging) are not needed
  }
  if (!has_id || !m["id"].is_number_integer()) {
    // An answer without a usable id cannot be matched: an error answer to a message it could not
    // parse says our stream is out of step with it.
    if (m.contains("error")) {
      return bad("an error answer without an id: " +
                 BoundedText(m["error"].is_object() ? Text(m["error"], "message", 200) : "", 200));
    }
    return bad("an answer without a numeric id");
  }
  int64_t id = m["id"].get<int64_t>();
  bool has_result = m.contains("result"), has_error = m.contains("error");
  if (has_result == has_error) {
    Deliver(id, MakeError("connect.mcp_protocol",
                          "the MCP server's answer has both or neither of result and error"));
    return;
  }
  if (has_error) {
    const json& e = m["error"];
    std::string message = e.is_object() ? Text(e, "message", 2000) : "";
    int64_t code = e.is_object() && e.contains("code") && e["code"].is_number_integer()
                       ? e["code"].get<int64_t>()
                       : 0;
    Deliver(id, MakeError(ErrorKind::kInvalid, "connect.mcp_error",
                          "the MCP server answered error " + std::to_string(code) +
                              (message.empty() ? "" : ": " + message)));
    return;
  }
  if (!m["result"].is_object()) {
    Deliver(id, MakeError("connect.mcp_protocol", "the MCP server's result is not an object"));
    return;
  }
  Deliver(id, m["result"]);
}

Status RpcSession::Initialize(int64_t timeout_ms) {
  json params = {{"protocolVersion", kProtocolVersions[0]},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "affordance"}, {"version", Version()}}}};
  McpReply reply = Request("initialize", params, timeout_ms);
  if (!reply.result) return reply.result.error();
  const json& r = *reply.result;
  std::string version =
      r.value("protocolVersion", json()).is_string() ? r["protocolVersion"].get<std::string>() : "";
  bool known = false;
  for (const char* v : kProtocolVersions) known = known || version == v;
  if (!known) {
    Error e = MakeError("connect.mcp_version",
                        "the MCP server speaks protocol version \"" + BoundedText(version, 40) +
                            "\", which affordance does not (it speaks 2025-11-25, 2025-06-18, "
                            "2025-03-26, 2024-11-05)");
    Fatal(e);
    return e;
  }
  info_.protocol_version = version;
  if (r.contains("serverInfo") && r["serverInfo"].is_object()) {
    info_.name = Text(r["serverInfo"], "name", 200);
    info_.version = Text(r["serverInfo"], "version", 100);
  }
  info_.instructions = Text(r, "instructions", 4000);
  if (r.contains("capabilities") && r["capabilities"].is_object()) {
    info_.capabilities = r["capabilities"];
  }
  OnInitialized(version);
  json note = {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
  if (!Send(note, std::nullopt, NowMs() + timeout_ms)) return death();
  return {};
}

Result<std::vector<std::string>> McpEnvironment(const SourceSpec& source) {
  std::vector<std::string> env;
  for (const char* name : {"PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ"}) {
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  }
  for (const auto& [name, value] : source.env) {
    std::string out;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value.compare(i, 2, "${") == 0) {
        size_t end = value.find('}', i + 2);
        if (end == std::string::npos) {
          return MakeError(ErrorKind::kInvalid, "connect.mcp_start_failed",
                           "the env value of " + name + " has an unclosed ${");
        }
        std::string var = value.substr(i + 2, end - i - 2);
        const char* v = std::getenv(var.c_str());
        if (v == nullptr) {
          return MakeError(ErrorKind::kInvalid, "connect.mcp_start_failed",
                           "the MCP server's env " + name + " names the environment variable " +
                               var + ", which is not set");
        }
        out += v;
        i = end;
      } else {
        out += value[i];
      }
    }
    const std::string prefix = name + "=";
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&prefix](const std::string& e) { return e.rfind(prefix, 0) == 0; }),
              env.end());
    env.push_back(prefix + out);
  }
  return env;
}

namespace {

// A child process speaking newline-delimited JSON-RPC on its stdin/stdout.
class StdioSession final : public RpcSession {
 public:
  explicit StdioSession(const SourceSpec& s) : source_(s) {
    max_message_bytes_ = static_cast<int64_t>(s.max_message_bytes);
  }
  ~StdioSession() override { Stop(); }

  Status Start() {
    static std::once_flag ignore_sigpipe;
    std::call_once(ignore_sigpipe, [] {
      struct sigaction old {};
      sigaction(SIGPIPE, nullptr, &old);
      if (old.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);  // a dead server's pipe: EPIPE
    });
    auto env = McpEnvironment(source_);
    if (!env) return env.error();
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0) return StartError(std::strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
      close(in[0]), close(in[1]);
      return StartError(std::strerror(errno));
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
      close(in[0]), close(in[1]), close(out[0]), close(out[1]);
      return StartError(std::strerror(errno));
    }
    if (pipe2(wake_, O_CLOEXEC) != 0) {
      for (int f : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(f);
      return StartError(std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    if (!source_.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, source_.cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none, defaults;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    std::vector<std::string> argv{source_.command};
    argv.insert(argv.end(), source_.args.begin(), source_.args.end());
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    std::vector<char*> envp;
    envp.reserve(env->size() + 1);
    for (auto& e : *env) envp.push_back(e.data());
    envp.push_back(nullptr);
    int rc = source_.command.find('/') == std::string::npos
                 ? SpawnOnPath(args, actions, attr, envp)
                 : posix_spawn(&pid_, args[0], &actions, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(in[0]), close(out[1]), close(err[1]);
    if (rc != 0) {
      close(in[1]), close(out[0]), close(err[0]);
      pid_ = -1;
      return StartError(source_.command + ": " + std::strerror(rc));
    }
    stdin_ = in[1];
    stdout_ = out[0];
    stderr_ = err[0];
    fcntl(stdin_, F_SETFL, fcntl(stdin_, F_GETFL) | O_NONBLOCK);
    reader_ = std::thread([this] { ReadLoop(); });
    return {};
  }

  void Stop() override {
    std::call_once(stopped_, [this] {
      stopping_ = true;
      Fatal(MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                      "the MCP session was stopped"));
      if (pid_ > 0) {
        {
          std::lock_guard<std::mutex> lock(write_mu_);
          if (stdin_ >= 0) close(stdin_), stdin_ = -1;
        }
        // A short grace to exit on its own (its input is closed), then TERM, then KILL.
        if (!WaitExit(500)) {
          kill(-pid_, SIGTERM);
          if (!WaitExit(1500)) {
            kill(-pid_, SIGKILL);
            WaitExit(-1);
          }
        }
      }
      if (wake_[1] >= 0) (void)!write(wake_[1], "x", 1);
      if (reader_.joinable()) reader_.join();
      for (int* f : {&stdout_, &stderr_, &wake_[0], &wake_[1]}) {
        if (*f >= 0) close(*f), *f = -1;
      }
    });
  }

  std::string StderrLog() const override {
    std::lock_guard<std::mutex> lock(log_mu_);
    return ValidUtf8(log_);
  }

 protected:
  bool Send(const json& message, std::optional<int64_t>, int64_t deadline_ms) override {
    std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::lock_guard<std::mutex> lock(write_mu_);
    size_t off = 0;
    while (off < line.size()) {
      if (stdin_ < 0) return false;
      ssize_t n = write(stdin_, line.data() + off, line.size() - off);
      if (n > 0) {
        off += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) {
        int64_t left = deadline_ms - NowMs();
        if (left <= 0) {
          // It stopped reading: the stream is out of step now (half a line sent).
          Fatal(MakeError(ErrorKind::kTimeout, "connect.mcp_timeout",
                          "the MCP server stopped reading its input"));
          return off > 0;
        }
        pollfd p{stdin_, POLLOUT, 0};
        poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
        continue;
      }
      return off > 0;  // EPIPE: it is gone; a partial line may have reached it
    }
    return true;
  }

  void OnFatal() override {
    // A fatal protocol error: the server must not go on running unsupervised.
    if (pid_ > 0 && !exited_ && !stopping_) kill(-pid_, SIGKILL);
  }

 private:
  Status StartError(const std::string& detail) {
    return MakeError(ErrorKind::kUnavailable, "connect.mcp_start_failed",
                     "cannot start the MCP server", detail);
  }

  int SpawnOnPath(std::vector<char*>& args, posix_spawn_file_actions_t& actions,
                  posix_spawnattr_t& attr, std::vector<char*>& envp) {
    // posix_spawnp searches our PATH; the child gets its own environment.
    return posix_spawnp(&pid_, args[0], &actions, &attr, args.data(), envp.data());
  }

  // True when the child exited within `ms` (-1: wait for it).
  bool WaitExit(int ms) {
    if (exited_) return true;
    int64_t deadline = NowMs() + ms;
    while (true) {
      int status = 0;
      pid_t r = waitpid(pid_, &status, ms < 0 ? 0 : WNOHANG);
      if (r == pid_) {
        exited_ = true;
        exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
      }
      if (r < 0 && errno != EINTR) {
        exited_ = true;
        return true;
      }
      if (ms >= 0 && NowMs() >= deadline) return false;
      if (ms >= 0) usleep(10000);
    }
  }

  void AppendLog(const char* data, size_t n) {
    std::lock_guard<std::mutex> lock(log_mu_);
    size_t cap = static_cast<size_t>(source_.stderr_log_bytes);
    log_.append(data, n);
    if (log_.size() > cap) log_.erase(0, log_.size() - cap);
  }

  void ReadLoop() {
    std::string line;
    char buf[65536];
    bool out_open = true, err_open = true;
    while (out_open) {
      pollfd fds[3] = {
          {stdout_, POLLIN, 0}, {err_open ? stderr_ : -1, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      int n = poll(fds, 3, 1000);
      if (n < 0 && errno != EINTR) break;
      if (fds[2].revents) break;
      if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t got = read(stderr_, buf, sizeof buf);
        if (got <= 0)
          err_open = false;
        else
          AppendLog(buf, static_cast<size_t>(got));
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t got = read(stdout_, buf, sizeof buf);
        if (got <= 0) {
          out_open = false;
          break;
        }
        size_t start = 0;
        for (size_t i = 0; i < static_cast<size_t>(got); ++i) {
          if (buf[i] != '\n') continue;
          line.append(buf + start, i - start);
          HandleText(line);
          line.clear();
          start = i + 1;
        }
        line.append(buf + start, static_cast<size_t>(got) - start);
        if (static_cast<int64_t>(line.size()) > max_message_bytes_) {
          Fatal(MakeError(ErrorKind::kTooLarge, "connect.mcp_message_too_large",
                          "the MCP server sent a message over " +
                              std::to_string(max_message_bytes_) + " bytes"));
          return;
        }
      }
    }
    if (!out_open) {
      // Its stdout closed: it exited (or is about to). Collect the stderr it left.
      for (int i = 0; i < 20 && err_open; ++i) {
        pollfd p{stderr_, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0) break;
        ssize_t got = read(stderr_, buf, sizeof buf);
        if (got <= 0) break;
        AppendLog(buf, static_cast<size_t>(got));
      }
      bool gone = WaitExit(200);
      std::string tail = StderrLog();
      if (tail.size() > 400) tail = ValidUtf8(tail.substr(tail.size() - 400));
      Fatal(MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                      gone ? "the MCP server exited (status " + std::to_string(exit_status_) + ")"
                           : "the MCP server closed its output",
                      tail));
    }
  }

  SourceSpec source_;
  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
  int wake_[2] = {-1, -1};
  std::thread reader_;
  std::mutex write_mu_;
  mutable std::mutex log_mu_;
  std::string log_;
  std::once_flag stopped_;
  std::atomic<bool> exited_{false};
  std::atomic<bool> stopping_{false};
  int exit_status_ = -1;
};

}  // namespace

Result<std::unique_ptr<McpSession>> McpSession::Open(const SourceSpec& source) {
  std::unique_ptr<RpcSession> session;
  if (!source.url.empty()) {
    auto http = NewHttpSession(source);
    if (!http) return http.error();
    session = std::move(http.value());
  } else {
    auto stdio = std::make_unique<StdioSession>(source);
    if (Status s = stdio->Start(); !s) return s.error();
    session = std::move(stdio);
  }
  if (Status s = session->Initialize(source.init_timeout_ms); !s) {
    Error e = s.error();
    if (e.detail.empty()) {
      std::string tail = session->StderrLog();
      e.detail = tail.size() > 400 ? ValidUtf8(tail.substr(tail.size() - 400)) : tail;
    }
    session->Stop();
    return e;
  }
  return std::unique_ptr<McpSession>(std::move(session));
}

}  // namespace affordance::connect
