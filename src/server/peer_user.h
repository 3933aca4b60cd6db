// Whose socket is on the other end of a loopback connection. On a loopback connection both ends
// are sockets of this machine, and the kernel names the user that owns each one: asked for one
// socket by its two ends through socket diagnostics (NETLINK_SOCK_DIAG, as `ss -e` asks), or, where
// that is not available, found in its socket table (/proc/net/tcp, /proc/net/tcp6, as identd
// reads it). The server uses it to tell the person
// (whose browser runs as the user who started the server) from another OS user's process, which
// reaches the same port (docs/SECURITY.md).
//
// Thread safety: pure functions (they read /proc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace affordance::server {

struct SocketEnd {
  std::string address;  // an IP address as text ("127.0.0.1", "::1")
  uint16_t port = 0;
};

// The uid owning the socket whose local end is `peer` and whose remote end is `us` (the peer's
// side of our connection), or nullopt when the table has no such socket (not on this machine, or
// the table cannot be read).
std::optional<uint32_t> PeerUid(const SocketEnd& peer, const SocketEnd& us);

// The same over a socket table's text (the format of /proc/net/tcp or tcp6): for tests.
std::optional<uint32_t> PeerUidIn(std::string_view table, const SocketEnd& peer,
                                  const SocketEnd& us);

}  // namespace affordance::server
