#include "server/operator_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

namespace affordance::server {

std::string RandomHex(size_t bytes) {
  static const char* kHex = "0123456789abcdef";
  std::random_device rd;  // the system's random source (getrandom / /dev/urandom)
  std::string out;
  out.reserve(bytes * 2);
  for (size_t i = 0; i < bytes; ++i) {
    unsigned v = rd() & 0xff;
    out.push_back(kHex[v >> 4]);
    out.push_back(kHex[v & 0xf]);
  }
  return out;
}

bool SecretMatches(std::string_view presented, std::string_view secret) {
  if (secret.empty() || presented.size() != secret.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < secret.size(); ++i) {
    diff |= static_cast<unsigned char>(presented[i] ^ secret[i]);
  }
  return diff == 0;
}

Result<std::string> LoadOperatorSecret(const std::string& data_dir) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  const std::string path = data_dir + "/" + std::string(kOperatorSecretFile);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) {
    std::string secret = RandomHex(32) + "\n";
    bool ok = ::fchmod(fd, 0600) == 0 &&
              ::write(fd, secret.data(), secret.size()) == static_cast<ssize_t>(secret.size()) &&
              ::fsync(fd) == 0;
    ::close(fd);
    if (!ok) {
      ::unlink(path.c_str());
      return MakeError("mcp.trust_root", "cannot write the operator trust root", path);
    }
  } else if (errno != EEXIST) {
    return MakeError("mcp.trust_root", "cannot create the operator trust root",
                     path + ": " + std::strerror(errno));
  }
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    return MakeError("mcp.trust_root", "cannot read the operator trust root",
                     path + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeError("mcp.trust_root", "the operator trust root is not a regular file", path);
  }
  if ((st.st_mode & 077) != 0 || st.st_uid != ::geteuid()) {
    ::close(fd);
    return MakeError("mcp.trust_root_unsafe",
                     "the operator trust root must be mode 0600 and owned by this user "
                     "(chmod 600 it, or delete it to make a new one)",
                     path);
  }
  char buf[256];
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  std::string secret(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!secret.empty() &&
         (secret.back() == '\n' || secret.back() == '\r' || secret.back() == ' ')) {
    secret.pop_back();
  }
  if (secret.size() < 32) {
    return MakeError("mcp.trust_root", "the operator trust root is empty or too short", path);
  }
  return secret;
}

}  // namespace affordance::server
