#include "server/peer_user.h"

#include <arpa/inet.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace affordance::server {
namespace {

struct Endpoint {
  std::vector<unsigned char> bytes;  // 4 or 16, network order
  uint16_t port = 0;
};

// "127.0.0.1" / "::1"; a v4-mapped IPv6 address becomes its IPv4 address (the client's socket is
// an IPv4 one then).
std::optional<Endpoint> FromText(const SocketEnd& end) {
  Endpoint e;
  e.port = end.port;
  std::array<unsigned char, 16> b{};
  if (inet_pton(AF_INET, end.address.c_str(), b.data()) == 1) {
    e.bytes.assign(b.begin(), b.begin() + 4);
    return e;
  }
  if (inet_pton(AF_INET6, end.address.c_str(), b.data()) == 1) {
    static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(b.data(), kMapped, 12) == 0) {
      e.bytes.assign(b.begin() + 12, b.end());
    } else {
      e.bytes.assign(b.begin(), b.end());
    }
    return e;
  }
  return std::nullopt;
}

// "0100007F:1F90": the kernel prints each 32-bit word of the address as a number in host byte
// order, so reading the word back and copying its bytes gives the address in network order.
std::optional<Endpoint> FromTable(std::string_view field) {
  const size_t colon = field.find(':');
  if (colon == std::string_view::npos || (colon != 8 && colon != 32)) return std::nullopt;
  Endpoint e;
  for (size_t at = 0; at < colon; at += 8) {
    const std::string word(field.substr(at, 8));
    char* end = nullptr;
    const uint32_t w = static_cast<uint32_t>(std::strtoul(word.c_str(), &end, 16));
    if (end != word.c_str() + 8) return std::nullopt;
    unsigned char bytes[4];
    std::memcpy(bytes, &w, 4);
    e.bytes.insert(e.bytes.end(), bytes, bytes + 4);
  }
  const std::string port(field.substr(colon + 1));
  char* end = nullptr;
  const unsigned long p = std::strtoul(port.c_str(), &end, 16);
  if (port.empty() || *end != '\0' || p > 0xffff) return std::nullopt;
  e.port = static_cast<uint16_t>(p);
  return e;
}

bool Same(const Endpoint& a, const Endpoint& b) { return a.port == b.port && a.bytes == b.bytes; }

}  // namespace

std::optional<uint32_t> PeerUidIn(std::string_view table, const SocketEnd& peer,
                                  const SocketEnd& us) {
  auto want_local = FromText(peer);
  auto want_remote = FromText(us);
  if (!want_local || !want_remote) return std::nullopt;
  std::istringstream lines{std::string(table)};
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string sl, local, remote, state, queues, timer, retransmits, uid;
    if (!(fields >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid)) {
      continue;
    }
    auto l = FromTable(local);
    auto r = FromTable(remote);
    if (!l || !r || !Same(*l, *want_local) || !Same(*r, *want_remote)) continue;
    char* end = nullptr;
    const unsigned long u = std::strtoul(uid.c_str(), &end, 10);
    if (uid.empty() || *end != '\0') return std::nullopt;
    return static_cast<uint32_t>(u);
  }
  return std::nullopt;
}

std::optional<uint32_t> PeerUid(const SocketEnd& peer, const SocketEnd& us) {
  auto e = FromText(peer);
  if (!e) return std::nullopt;
  std::ifstream in(e->bytes.size() == 4 ? "/proc/net/tcp" : "/proc/net/tcp6");
  if (!in) return std::nullopt;
  std::stringstream table;
  table << in.rdbuf();
  return PeerUidIn(table.str(), peer, us);
}

}  // namespace affordance::server
