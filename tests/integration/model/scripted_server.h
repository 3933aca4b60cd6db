// A real cpp-httplib server on loopback whose answers each test scripts (error cases the real
// llama-server cannot be made to produce on demand: refusals, disconnects, silence, bad events).
#pragma once

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace affordance::model::testing {

class ScriptedServer {
 public:
  // A handler writes the response for one request; `stopping` turns true at shutdown so slow
  // handlers can end early.
  using Script = std::function<void(const httplib::Request&, httplib::Response&,
                                    const std::atomic<bool>& stopping)>;

  explicit ScriptedServer(Script script, int port = 0) : script_(std::move(script)) {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(req);
      }
      script_(req, res, stopping_);
    };
    server_.Post(R"(/.*)", handler);
    port_ = port == 0 ? server_.bind_to_any_port("127.0.0.1") : port;
    if (port != 0 && !server_.bind_to_port("127.0.0.1", port)) port_ = -1;
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (port_ > 0 && !server_.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~ScriptedServer() { Stop(); }

  void Stop() {
    stopping_ = true;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  size_t request_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_.size();
  }
  httplib::Request request(size_t i) {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_.at(i);
  }

  // Streams `events` as SSE ("data: <event>\n\n" each); when `then_drop` the connection is cut
  // after them instead of ending cleanly.
  static void StreamEvents(httplib::Response& res, std::vector<std::string> events,
                           bool then_drop = false,
                           std::chrono::milliseconds gap = std::chrono::milliseconds(0)) {
    res.set_chunked_content_provider("text/event-stream",
                                     [events = std::move(events), then_drop, gap, i = size_t{0}](
                                         size_t, httplib::DataSink& sink) mutable {
                                       if (i < events.size()) {
                                         if (gap.count() > 0 && i > 0)
                                           std::this_thread::sleep_for(gap);
                                         std::string frame = "data: " + events[i++] + "\n\n";
                                         return sink.write(frame.data(), frame.size());
                                       }
                                       if (then_drop)
                                         return false;  // abort the connection mid-stream
                                       sink.done();
                                       return true;
                                     });
  }

 private:
  Script script_;
  httplib::Server server_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::vector<httplib::Request> requests_;
  int port_ = -1;
};

// A loopback port that nothing listens on (bound, then released).
inline int UnusedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);  // never listened: connecting to it is refused
  return ntohs(addr.sin_port);
}

}  // namespace affordance::model::testing
