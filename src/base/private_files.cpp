#include "base/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace affordance {
namespace {

std::string Octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

void Notice(const std::string& line) {
  const std::string text = "affordance: " + line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

// Brings an existing path that group or others can reach down to `mode` when we may.
Status Tighten(const std::filesystem::path& path, const struct stat& st, mode_t mode,
               const char* what, std::string_view error_code) {
  if ((st.st_mode & 077) == 0) return {};
  if (st.st_uid != geteuid() || (S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX))) {
    const bool dir = S_ISDIR(st.st_mode);
    Notice(std::string("the ") + what + " " + path.string() + " is open to other users (mode " +
           Octal(st.st_mode) + ") and is not yours to change" +
           (dir ? "; the files affordance creates in it are private (0600), but choose a folder "
                  "of your own with --data"
                : ""));
    return {};
  }
  if (chmod(path.c_str(), mode) != 0) {
    return MakeError(std::string(error_code),
                     std::string("cannot make the ") + what + " private: " + std::strerror(errno),
                     path.string());
  }
  Notice(std::string("made the ") + what + " " + path.string() + " private: mode " +
         Octal(st.st_mode) + " -> " + Octal(mode) + " (it holds your data)");
  return {};
}

}  // namespace

Status EnsurePrivateDir(const std::filesystem::path& dir, std::string_view error_code) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    std::error_code ec;
    if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
    if (mkdir(dir.c_str(), kPrivateDirMode) != 0 && errno != EEXIST) {
      return MakeError(std::string(error_code),
                       "cannot create the folder " + dir.string() + ": " + std::strerror(errno),
                       dir.string());
    }
    if (stat(dir.c_str(), &st) != 0) {
      return MakeError(std::string(error_code),
                       "cannot read the folder " + dir.string() + ": " + std::strerror(errno),
                       dir.string());
    }
    // mkdir's mode passed through the umask, which may take the owner's own bits too.
    if ((st.st_mode & 07777) != kPrivateDirMode && st.st_uid == geteuid()) {
      chmod(dir.c_str(), kPrivateDirMode);
    }
    return {};
  }
  if (!S_ISDIR(st.st_mode)) {
    return MakeError(std::string(error_code), dir.string() + " is not a folder", dir.string());
  }
  return Tighten(dir, st, kPrivateDirMode, "data folder", error_code);
}

Status EnsurePrivateFile(const std::filesystem::path& file, std::string_view error_code) {
  const int fd =
      open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kPrivateFileMode);
  if (fd >= 0) {
    const int rc = fchmod(fd, kPrivateFileMode);  // the umask may have taken the owner's bits
    close(fd);
    if (rc != 0) {
      return MakeError(std::string(error_code),
                       "cannot make " + file.string() + " private: " + std::strerror(errno),
                       file.string());
    }
    return {};
  }
  if (errno != EEXIST) {
    return MakeError(std::string(error_code),
                     "cannot create " + file.string() + ": " + std::strerror(errno), file.string());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::filesystem::path path = file.string() + suffix;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) continue;  // a companion that does not exist yet
    if (!S_ISREG(st.st_mode)) {
      return MakeError(std::string(error_code), path.string() + " is not a regular file",
                       path.string());
    }
    if (Status s = Tighten(path, st, kPrivateFileMode, "file", error_code); !s) return s;
  }
  return {};
}

}  // namespace affordance
