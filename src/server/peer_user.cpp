#include "server/peer_user.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>

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

namespace {

// The kernel's socket diagnostics (NETLINK_SOCK_DIAG, what `ss` uses): one exact lookup of the
// socket by its two ends, answered from the kernel's hash table, so the cost does not grow with
// the number of open connections (reading /proc/net/tcp does: a server holding a thousand streams
// would read and parse the whole table for every new connection). nullopt when the lookup cannot
// be made (no netlink here); "no such socket" is a found answer of nothing.
struct DiagAnswer {
  bool asked = false;
  std::optional<uint32_t> uid;
};

DiagAnswer PeerUidByDiag(const Endpoint& local, const Endpoint& remote) {
  DiagAnswer answer;
  const int fd = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return answer;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  inet_diag_req_v2& r = message.request;
  r.sdiag_family = local.bytes.size() == 4 ? AF_INET : AF_INET6;
  r.sdiag_protocol = IPPROTO_TCP;
  r.idiag_states = ~0u;
  r.id.idiag_sport = htons(local.port);
  r.id.idiag_dport = htons(remote.port);
  std::memcpy(r.id.idiag_src, local.bytes.data(), local.bytes.size());
  std::memcpy(r.id.idiag_dst, remote.bytes.data(), remote.bytes.size());
  r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  timeval limit{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  if (::sendto(fd, &message, sizeof message, 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof kernel) != static_cast<ssize_t>(sizeof message)) {
    ::close(fd);
    return answer;
  }
  alignas(nlmsghdr) char buffer[8192];
  const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
  ::close(fd);
  if (n <= 0) return answer;
  const auto* h = reinterpret_cast<const nlmsghdr*>(buffer);
  if (!NLMSG_OK(h, static_cast<unsigned>(n))) return answer;
  if (h->nlmsg_type == NLMSG_ERROR) {
    const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
    answer.asked = e->error == -ENOENT;  // the kernel looked and found no such socket
    return answer;
  }
  if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg)))
    return answer;
  const auto* m = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
  answer.asked = true;
  answer.uid = m->idiag_uid;
  return answer;
}

}  // namespace

std::optional<uint32_t> PeerUid(const SocketEnd& peer, const SocketEnd& us) {
  auto local = FromText(peer);
  auto remote = FromText(us);
  if (!local || !remote) return std::nullopt;
  if (local->bytes.size() == remote->bytes.size()) {
    if (DiagAnswer d = PeerUidByDiag(*local, *remote); d.asked) return d.uid;
  }
  // No socket diagnostics here: the table, read whole.
  std::ifstream in(local->bytes.size() == 4 ? "/proc/net/tcp" : "/proc/net/tcp6");
  if (!in) return std::nullopt;
  std::stringstream table;
  table << in.rdbuf();
  return PeerUidIn(table.str(), peer, us);
}

}  // namespace affordance::server
