#include "server/peer_user.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace affordance::server {
namespace {

// Lines as the kernel prints them (x86-64: each address word in little-endian host order).
const char* kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n"
    "   0: 0100007F:0C43 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 "
    "1 1 0 100 0 0 10 0\n"
    "   1: 0100007F:D431 0100007F:0C43 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "2 1 0 20 4 30 10 -1\n"
    "   2: 0100007F:0C43 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 "
    "3 1 0 20 4 30 10 -1\n";

TEST(PeerUser, TheClientsSideOfTheConnectionNamesItsOwner) {
  // Our end is 127.0.0.1:3139 (0x0C43); the peer's is 127.0.0.1:54321 (0xD431).
  auto uid = PeerUidIn(kTcp, {"127.0.0.1", 54321}, {"127.0.0.1", 3139});
  ASSERT_TRUE(uid.has_value());
  EXPECT_EQ(*uid, 1000u);  // not line 2, which is the server's own socket (uid 0)
  EXPECT_FALSE(PeerUidIn(kTcp, {"127.0.0.1", 54322}, {"127.0.0.1", 3139}).has_value());
  EXPECT_FALSE(PeerUidIn(kTcp, {"not an address", 1}, {"127.0.0.1", 3139}).has_value());
  EXPECT_FALSE(PeerUidIn("garbage\nmore garbage 1 2 3\n", {"127.0.0.1", 1}, {"127.0.0.1", 2}));
}

TEST(PeerUser, IPv6AndV4MappedAddresses) {
  const char* tcp6 =
      "  sl  local_address                         remote_address                        st "
      "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
      "   0: 00000000000000000000000001000000:D431 00000000000000000000000001000000:0C43 01 "
      "00000000:00000000 00:00000000 00000000  1234        0 9 1 0 20 4 30 10 -1\n";
  EXPECT_EQ(PeerUidIn(tcp6, {"::1", 54321}, {"::1", 3139}).value_or(0), 1234u);
  // A dual-stack server sees an IPv4 client as ::ffff:127.0.0.1; its socket is an IPv4 one.
  EXPECT_EQ(PeerUidIn(kTcp, {"::ffff:127.0.0.1", 54321}, {"::ffff:127.0.0.1", 3139}).value_or(0),
            1000u);
}

TEST(PeerUser, ARealLoopbackConnectionIsOurs) {
  int server = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(server, 1), 0);
  socklen_t len = sizeof a;
  getsockname(server, reinterpret_cast<sockaddr*>(&a), &len);
  int client = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  sockaddr_in c{};
  len = sizeof c;
  getsockname(client, reinterpret_cast<sockaddr*>(&c), &len);
  auto uid = PeerUid({"127.0.0.1", ntohs(c.sin_port)}, {"127.0.0.1", ntohs(a.sin_port)});
  ASSERT_TRUE(uid.has_value());
  EXPECT_EQ(*uid, static_cast<uint32_t>(geteuid()));
  close(client);
  close(server);
}

}  // namespace
}  // namespace affordance::server
