// Test support: an MCP server over Streamable HTTP on loopback, made of the official SDK's server
// transport in front of a real stdio server (tests/fixtures/connect/mcp_http_bridge.mjs), run as
// a real child process in its own process group. It binds port 0 and says which port it got.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace affordance::connect::testing {

class HttpBridge {
 public:
  // node mcp_http_bridge.mjs <options...> -- <server...>
  HttpBridge(const std::vector<std::string>& options, const std::vector<std::string>& server) {
    std::vector<std::string> argv{
        AFFORDANCE_NODE,
        std::string(AFFORDANCE_SOURCE_DIR) + "/tests/fixtures/connect/mcp_http_bridge.mjs"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), server.begin(), server.end());
    std::vector<char*> args;  // built before fork: the child only execs
    args.reserve(argv.size() + 1);
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      execv(args[0], args.data());
      _exit(127);
    }
    close(out[1]);
    setpgid(pid_, pid_);
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out[0], POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[256];
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, static_cast<size_t>(n));
    }
    close(out[0]);
    auto j = nlohmann::json::parse(line.substr(0, line.find('\n')), nullptr, false);
    if (j.is_object() && j.contains("port")) port_ = j["port"].get<int>();
    EXPECT_GT(port_, 0) << "the HTTP bridge did not start: " << line;
  }
  ~HttpBridge() { Kill(SIGTERM); }
  HttpBridge(const HttpBridge&) = delete;
  HttpBridge& operator=(const HttpBridge&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "/mcp") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // Signals the bridge and the server behind it, and waits for the bridge.
  void Kill(int sig) {
    if (pid_ <= 0) return;
    kill(-pid_, sig);
    int status = 0;
    for (int i = 0; i < 300 && waitpid(pid_, &status, WNOHANG) == 0; ++i) usleep(10000);
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  // Forgets every session, as a restarted server would.
  bool Expire() const {
    httplib::Client c("127.0.0.1", port_);
    auto r = c.Post("/__expire", "", "text/plain");
    return r && r->status == 204;
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// The bridge's request log (--log): one JSON object per HTTP request.
inline std::vector<nlohmann::json> BridgeLog(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) out.push_back(j);
  }
  return out;
}

}  // namespace affordance::connect::testing
