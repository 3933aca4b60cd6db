#include "server/server.h"

#include "server/internal/http_session.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>

#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace affordance::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

GateOptions GateOf(const ServerOptions& o, uint16_t port) {
  GateOptions g;
  g.port = port;
  g.bind_host = o.host;
  g.public_hosts = o.public_hosts;
  g.allowed_origins = o.allowed_origins;
  g.access_token = o.access_token;
  g.sessions = o.sessions;
  g.server_uid = static_cast<uint32_t>(::geteuid());
  g.refusals = o.refusals;
  g.backoff = o.backoff;
  return g;
}

}  // namespace

Status CheckBind(const ServerOptions& options) {
  if (auto s = CheckGateOptions(GateOf(options, options.port)); !s) return s;
  if (!options.access_token.empty() && options.access_token.size() < kMinAccessToken) {
    return MakeError("server.short_token",
                     "the access token must be at least " + std::to_string(kMinAccessToken) +
                         " characters (a random one: `openssl rand -hex 16`), on loopback too",
                     std::to_string(options.access_token.size()) + " characters");
  }
  boost::system::error_code ec;
  auto address = net::ip::make_address(options.host, ec);
  if (ec) return MakeError("server.bad_host", "--host must be an IP address", options.host);
  if (address.is_loopback()) return {};
  if (!options.allow_remote) {
    return MakeError("server.remote_needs_flag",
                     "binding a non-loopback address needs --allow-remote and --access-token",
                     options.host);
  }
  if (options.access_token.empty()) {
    return MakeError("server.remote_needs_token",
                     "binding a non-loopback address needs an access token (--access-token-file "
                     "or $AFFORDANCE_ACCESS_TOKEN) of at least 16 characters",
                     options.host);
  }
  return {};
}

struct Server::Impl {
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  net::signal_set signals{ioc, SIGINT, SIGTERM};
  Router router;
  std::unique_ptr<Gate> gate;
  std::shared_ptr<internal::SessionConfig> config;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::condition_variable cv;
  bool stopped = false;

  void Accept() {
    acceptor.async_accept(
        net::make_strand(ioc), [this](boost::system::error_code ec, tcp::socket s) {
          if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
          if (!ec) internal::StartSession(std::move(s), config);
          Accept();  // EMFILE and friends: keep serving the connections that exist
        });
  }

  void MarkStopped() {
    std::lock_guard lock(mu);
    stopped = true;
    cv.notify_all();
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<Server>> Server::Start(ServerOptions options, Router router) {
  if (auto s = CheckBind(options); !s) return s.error();
  auto impl = std::make_unique<Impl>();
  impl->router = std::move(router);
  impl->config = std::make_shared<internal::SessionConfig>();
  impl->config->router = &impl->router;
  impl->config->options = options;
  boost::system::error_code ec;
  tcp::endpoint endpoint(net::ip::make_address(options.host), options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return MakeError("server.bind",
                     "cannot listen on " + options.host + ":" + std::to_string(options.port),
                     ec.message());
  }
  // The gate knows the port only now (port 0 asks the kernel for one).
  impl->gate = std::make_unique<Gate>(GateOf(options, impl->acceptor.local_endpoint().port()));
  impl->config->gate = impl->gate.get();
  Impl* raw = impl.get();
  impl->signals.async_wait([raw](boost::system::error_code e, int) {
    if (!e) raw->MarkStopped();
  });
  impl->Accept();
  for (int i = 0; i < std::max(1, options.io_threads); ++i) {
    impl->threads.emplace_back([raw] { raw->ioc.run(); });
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::~Server() { Stop(); }

uint16_t Server::port() const {
  boost::system::error_code ec;
  auto ep = impl_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

const Router& Server::router() const { return impl_->router; }

const Gate& Server::gate() const { return *impl_->gate; }

void Server::Wait() {
  std::unique_lock lock(impl_->mu);
  impl_->cv.wait(lock, [&] { return impl_->stopped; });
}

void Server::Stop() {
  if (impl_->threads.empty()) return;
  net::post(impl_->ioc, [raw = impl_.get()] {
    boost::system::error_code ec;
    raw->acceptor.close(ec);
    raw->signals.cancel(ec);
  });
  impl_->ioc.stop();
  for (auto& t : impl_->threads) t.join();
  impl_->threads.clear();
  impl_->MarkStopped();
}

}  // namespace affordance::server
