// Test support: a real `affordance serve` child process on a loopback port chosen by the kernel,
// and a raw HTTP/1.1 client over a plain socket (for streams, slow and half-closed clients).
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace affordance::server::testing {

inline std::string Source(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

inline std::string Call(const std::string& name, const nlohmann::json& args) {
  return "<tool_call>\n" + nlohmann::json{{"name", name}, {"arguments", args}}.dump() +
         "\n</tool_call>";
}

// Another OS user than the one running the tests (and the server): nobody.
inline constexpr uid_t kNobody = 65534;

// Runs `fn` in a child process as another OS user (nobody) and returns what it printed (the tests
// run as root, so the child may drop to any user).
inline std::string AsNobody(const std::function<std::string()>& fn) {
  int out[2];
  if (pipe(out) != 0) return "";
  pid_t pid = fork();
  if (pid == 0) {
    close(out[0]);
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(3);
    const std::string s = fn();
    (void)!write(out[1], s.data(), s.size());
    _exit(0);
  }
  close(out[1]);
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  close(out[0]);
  waitpid(pid, nullptr, 0);
  return got;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-server-XXXXXX");
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

class ServerProcess {
 public:
  // Starts the server; `port()` is 0 when it did not come up (out/err say why). `connectors`
  // defaults to the examples (read only: a test that writes passes a copy).
  ServerProcess(const std::string& data, const std::string& script,
                std::vector<std::string> extra = {}, std::string connectors = "",
                const std::string& grant = "--read") {
    if (connectors.empty()) connectors = Source("examples/connectors");
    // Reads need grants (docs/AUTHORITY.md): the person grants the calendar read first.
    Spawn({AFFORDANCE_CLI, "grants", "grant", "calendar", grant, "--data", data, "--connectors",
           connectors});
    std::vector<std::string> args = {
        AFFORDANCE_CLI, "serve",  "--port",   "0",    "--json",       "--data",  data,
        "--provider",   "replay", "--script", script, "--connectors", connectors};
    args.insert(args.end(), extra.begin(), extra.end());
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    out_fd_ = out[0];
    std::string line;
    char c;
    pollfd p{out_fd_, POLLIN, 0};
    while (poll(&p, 1, 120000) > 0 && read(out_fd_, &c, 1) == 1) {
      if (c == '\n') break;
      line.push_back(c);
    }
    first_line_ = line;
    try {
      auto j = nlohmann::json::parse(line);
      if (j.contains("port")) port_ = j["port"].get<int>();
    } catch (...) {
    }
  }
  ~ServerProcess() { Stop(); }
  // Runs a command to completion (output discarded); returns its exit status.
  static int Spawn(std::vector<std::string> args) {
    pid_t pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // SIGTERM and wait; returns the exit status.
  int Stop() { return Reap(true); }
  // Waits for the process to exit by itself; returns the exit status.
  int Wait() { return Reap(false); }
  int Reap(bool terminate) {
    if (pid_ <= 0) return exit_;
    if (terminate) kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    close(out_fd_);
    exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exit_;
  }
  bool alive() const { return pid_ > 0 && kill(pid_, 0) == 0; }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& first_line() const { return first_line_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int port_ = 0;
  int exit_ = -1;
  std::string first_line_;
};

// A loopback TCP connection.
class Socket {
 public:
  explicit Socket(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~Socket() { Close(); }
  bool ok() const { return fd_ >= 0; }
  void Send(const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }
  void ShutdownWrite() { shutdown(fd_, SHUT_WR); }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  // Reads until `until` appears in what was read (or EOF / timeout); returns everything read.
  std::string ReadUntil(const std::string& until, int timeout_ms = 30000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (until.empty() || buf_.find(until) == std::string::npos) {
      int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      deadline - std::chrono::steady_clock::now())
                                      .count());
      if (left <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, left) <= 0) break;
      char chunk[8192];
      ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      buf_.append(chunk, static_cast<size_t>(n));
    }
    return buf_;
  }

 private:
  int fd_ = -1;
  std::string buf_;
};

struct Response {
  int status = 0;
  // The value of header `name` (lower-case), "" when absent.
  std::string Header(const std::string& name) const {
    std::string lower = head;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t at = lower.find("\r\n" + name + ": ");
    if (at == std::string::npos) return "";
    size_t start = at + 4 + name.size();
    return head.substr(start, head.find("\r\n", start) - start);
  }
  std::string head;  // status line + headers
  std::string body;  // de-chunked
  nlohmann::json json() const { return nlohmann::json::parse(body); }
};

// Parses a complete HTTP/1.1 response (Content-Length or chunked).
inline Response Parse(const std::string& raw) {
  Response r;
  size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return r;
  r.head = raw.substr(0, end);
  if (r.head.size() > 12) r.status = std::stoi(r.head.substr(9, 3));
  std::string rest = raw.substr(end + 4);
  std::string lower = r.head;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("transfer-encoding: chunked") != std::string::npos) {
    size_t pos = 0;
    while (pos < rest.size()) {
      size_t eol = rest.find("\r\n", pos);
      if (eol == std::string::npos) break;
      size_t n = std::stoul(rest.substr(pos, eol - pos), nullptr, 16);
      if (n == 0) break;
      r.body += rest.substr(eol + 2, n);
      pos = eol + 2 + n + 2;
    }
  } else {
    r.body = rest;
  }
  return r;
}

// A request as a client on this machine sends it: Host names the server (the gate refuses any
// other name, server/gate.h).
inline std::string Request(int port, const std::string& method, const std::string& path,
                           const std::string& body = "", const std::string& headers = "") {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
         "\r\nConnection: close\r\n" + headers +
         (body.empty() && method == "GET" ? ""
                                          : "Content-Type: application/json\r\nContent-Length: " +
                                                std::to_string(body.size()) + "\r\n") +
         "\r\n" + body;
}

// One request on a fresh connection, read to the end.
inline Response Http(int port, const std::string& method, const std::string& path,
                     const std::string& body = "", const std::string& headers = "") {
  Socket s(port);
  if (!s.ok()) return {};
  s.Send(Request(port, method, path, body, headers));
  return Parse(s.ReadUntil(""));
}

// The person's web session for a client of this machine's own OS user (POST /api/session, as
// the web UI starts it): the header line that lets a request decide. "" when none was minted.
inline std::string PersonHeader(int port) {
  auto r = Http(port, "POST", "/api/session", "{}");
  if (r.status != 201) return "";
  return "x-affordance-session: " + r.json()["session"]["token"].get<std::string>() + "\r\n";
}

// The JSON chunks of an SSE body ("data: {...}\n\n" ... "data: [DONE]\n\n").
inline std::vector<nlohmann::json> Chunks(const std::string& body, bool* done = nullptr) {
  std::vector<nlohmann::json> out;
  size_t pos = 0;
  if (done) *done = false;
  while ((pos = body.find("data: ", pos)) != std::string::npos) {
    size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) break;
    std::string data = body.substr(pos + 6, end - pos - 6);
    if (data == "[DONE]") {
      if (done) *done = true;
    } else {
      out.push_back(nlohmann::json::parse(data));
    }
    pos = end + 2;
  }
  return out;
}

inline std::string ChatBody(const std::string& id, const std::string& text) {
  return nlohmann::json{
      {"id", id},
      {"trigger", "submit-message"},
      {"messages",
       {{{"id", "u1"}, {"role", "user"}, {"parts", {{{"type", "text"}, {"text", text}}}}}}}}
      .dump();
}

}  // namespace affordance::server::testing
