// One real llama-server process (built by scripts/build-llama) per test program, serving the
// random-weight Qwen3-vocabulary model (random_gguf.h) on a free loopback port.
#pragma once

#include "random_gguf.h"
#include "scripted_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace affordance::model::testing {

using namespace std::chrono_literals;

// One llama-server process for the whole test program.
class LlamaServer {
 public:
  // `parallel`: llama-server's slots (sequences it batches continuously), each with a context of
  // 4096 tokens; one process per value, started on first use.
  static LlamaServer& Get(int parallel = 1) {
    if (parallel == 1) {
      static LlamaServer one(1);
      return one;
    }
    static LlamaServer many(parallel);
    return many;
  }
  bool ready() const { return ready_; }
  const std::string& failure() const { return failure_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  ~LlamaServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      for (int i = 0; i < 200 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) {
        std::this_thread::sleep_for(10ms);
      }
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, WNOHANG);
    }
  }

 private:
  explicit LlamaServer(int parallel) {
    auto model = RandomQwen3Gguf();
    if (!model.ok()) {
      failure_ = model.error().ToString();
      return;
    }
    port_ = UnusedPort();
    std::vector<std::string> args = {AFFORDANCE_LLAMA_SERVER,
                                     "-m",
                                     *model,
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     std::to_string(port_),
                                     "-c",
                                     std::to_string(4096 * parallel),
                                     "--parallel",
                                     std::to_string(parallel),
                                     "--metrics",
                                     "-t",
                                     "2",
                                     "--no-webui",
                                     "--no-warmup",
                                     "--log-disable"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
      failure_ = "cannot start " + args[0];
      pid_ = -1;
      return;
    }
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(0, 200000);
    for (int i = 0; i < 300; ++i) {
      if (auto res = client.Get("/health"); res && res->status == 200) {
        ready_ = true;
        return;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        failure_ = "llama-server exited during start-up";
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(100ms);
    }
    failure_ = "llama-server did not become healthy in 30 s";
  }

  pid_t pid_ = -1;
  int port_ = 0;
  bool ready_ = false;
  std::string failure_;
};

}  // namespace affordance::model::testing
