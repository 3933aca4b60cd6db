// PgCluster: a real, throwaway PostgreSQL server for tests, started once per test process on
// first use (initdb into a fresh temp folder, pg_ctl start on a free port on 127.0.0.1 with trust
// authentication and fsync off), with a fresh database per caller (NewDatabase).
//
//   auto& pg = testing::PgCluster::Shared();
//   ASSERT_TRUE(pg.ok()) << pg.error();       // no server binaries: a failure, never a skip
//   std::string uri = pg.NewDatabase();       // postgresql://affordance@127.0.0.1:<port>/<db>
//
// Binaries: $AFFORDANCE_PG_BINDIR, else `pg_config --bindir`, else the newest
// /usr/lib/postgresql/*/bin, else PATH (scripts/setup installs postgresql-15).
//
// Root: initdb refuses to run as root (CI runs tests as root), so the server runs as the
// `postgres` user when it exists, else `nobody` (the temp folder is handed to that user).
//
// Cleanup: a small reaper process forked at start holds the read end of a pipe whose write end
// only this process holds; when this process exits (normally, by a failed assertion, by a crash
// or SIGKILL) the pipe closes and the reaper stops the server (immediate mode) and removes the
// folder. So no server outlives its test binary.
#pragma once

#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace affordance::store::testing {

// Runs `sql` on a fresh connection to `uri`; returns the first column of the last row of the
// last statement, "" when it returned none, or "ERROR: <message>".
inline std::string PgRawSql(const std::string& uri, const std::string& sql) {
  PGconn* conn = PQconnectdb(uri.c_str());
  std::string out;
  if (PQstatus(conn) != CONNECTION_OK) {
    out = std::string("ERROR: ") + PQerrorMessage(conn);
  } else {
    PGresult* r = PQexec(conn, sql.c_str());
    auto status = PQresultStatus(r);
    if (status == PGRES_TUPLES_OK) {
      out = PQntuples(r) > 0 ? PQgetvalue(r, PQntuples(r) - 1, 0) : "";
    } else if (status != PGRES_COMMAND_OK) {
      out = std::string("ERROR: ") + PQresultErrorMessage(r);
    }
    PQclear(r);
  }
  PQfinish(conn);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class PgCluster {
 public:
  // The process's cluster, started on first use (then kept until the process exits).
  static PgCluster& Shared() {
    static PgCluster* cluster = new PgCluster();  // never destroyed: the reaper cleans up
    return *cluster;
  }

  bool ok() const { return error_.empty(); }
  // Why the cluster could not start (with the tail of the server's or initdb's log).
  const std::string& error() const { return error_; }
  int port() const { return port_; }

  // The URI of database `db` on this cluster.
  std::string Uri(const std::string& db) const {
    return "postgresql://affordance@127.0.0.1:" + std::to_string(port_) + "/" + db;
  }

  // A new empty database; "" when it cannot be created (`error` says why).
  std::string NewDatabase(std::string* error = nullptr) {
    static std::atomic<int> counter{0};
    std::string name = "t" + std::to_string(getpid()) + "_" + std::to_string(++counter);
    std::string result = PgRawSql(Uri("postgres"), "CREATE DATABASE " + name);
    if (result.rfind("ERROR", 0) == 0) {
      if (error) *error = result;
      return "";
    }
    return Uri(name);
  }

  // Stops the server (fast shutdown: connections are closed) and starts it again on the same
  // port: what a database restart looks like to a client. False with `error` on failure.
  bool Stop(std::string* error = nullptr) { return PgCtl({"stop", "-m", "fast"}, error); }
  bool Start(std::string* error = nullptr) { return PgCtl(StartArgs(), error); }

 private:
  PgCluster() { error_ = Boot(); }

  struct Account {
    uid_t uid;
    gid_t gid;
    bool switch_user;
  };

  static Account RunAs() {
    if (geteuid() != 0) return {getuid(), getgid(), false};
    for (const char* name : {"postgres", "nobody"}) {
      if (passwd* pw = getpwnam(name)) return {pw->pw_uid, pw->pw_gid, true};
    }
    return {65534, 65534, true};
  }

  static bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

  static std::string FindBinDir() {
    if (const char* env = getenv("AFFORDANCE_PG_BINDIR"); env && *env) {
      const std::string dir = env;  // chosen explicitly: no fallback
      return Executable(dir + "/initdb") && Executable(dir + "/pg_ctl") ? dir : "";
    }
    if (FILE* p = popen("pg_config --bindir 2>/dev/null", "r")) {
      char buf[512] = {0};
      std::string dir = fgets(buf, sizeof buf, p) ? buf : "";
      pclose(p);
      while (!dir.empty() && (dir.back() == '\n' || dir.back() == ' ')) dir.pop_back();
      if (!dir.empty() && Executable(dir + "/initdb") && Executable(dir + "/pg_ctl")) return dir;
    }
    glob_t g{};
    std::vector<std::string> dirs;
    if (glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        dirs.push_back(std::filesystem::path(g.gl_pathv[i]).parent_path().string());
      }
    }
    globfree(&g);
    // Newest version first ("/usr/lib/postgresql/15/bin" sorts by its number).
    std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
      return std::atoi(a.c_str() + 20) > std::atoi(b.c_str() + 20);
    });
    for (const auto& d : dirs) {
      if (Executable(d + "/pg_ctl")) return d;
    }
    if (const char* path = getenv("PATH")) {
      std::stringstream ss(path);
      std::string d;
      while (std::getline(ss, d, ':')) {
        if (!d.empty() && Executable(d + "/initdb") && Executable(d + "/pg_ctl")) return d;
      }
    }
    return "";
  }

  static int FreePort() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port = ntohs(addr.sin_port);
    }
    close(fd);
    return port;
  }

  // Runs `argv` as the cluster's account with its output appended to <dir>/tool.log; the exit
  // status (-1 when it could not run).
  int Run(const std::vector<std::string>& argv) const {
    // Everything the child needs is built before fork: the process may have other threads.
    const std::string log_path = dir_ + "/tool.log";
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
      int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (log >= 0) {
        dup2(log, 1);
        dup2(log, 2);
      }
      int null = open("/dev/null", O_RDONLY);
      if (null >= 0) dup2(null, 0);
      if (account_.switch_user &&
          (setgroups(0, nullptr) != 0 || setgid(account_.gid) != 0 || setuid(account_.uid) != 0)) {
        _exit(126);
      }
      if (chdir(dir_.c_str()) != 0) _exit(126);
      execv(args[0], args.data());
      _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  std::string Tail(const std::string& file) const {
    std::ifstream in(dir_ + "/" + file);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
  }

  std::vector<std::string> StartArgs() const {
    return {"start",
            "-w",
            "-t",
            "60",
            "-l",
            dir_ + "/server.log",
            "-o",
            "-k " + dir_ + " -p " + std::to_string(port_) +
                " -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
                " -c full_page_writes=off -c max_connections=200"};
  }

  bool PgCtl(std::vector<std::string> args, std::string* error) const {
    args.insert(args.begin(), {bin_ + "/pg_ctl", "-D", dir_ + "/data"});
    if (Run(args) == 0) return true;
    if (error) *error = "pg_ctl " + args[3] + " failed:\n" + Tail("tool.log") + Tail("server.log");
    return false;
  }

  // Forks the reaper (see the file comment).
  void StartReaper() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
      setsid();  // outlives a Ctrl-C to the test's process group long enough to clean up
      close(fds[1]);
      char c;
      while (read(fds[0], &c, 1) != 0 && errno == EINTR) {
      }
      Run({bin_ + "/pg_ctl", "-D", dir_ + "/data", "stop", "-m", "immediate"});
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      _exit(0);
    }
    close(fds[0]);
    reaper_fd_ = fds[1];  // kept open (and out of every exec) until this process exits
  }

  std::string Boot() {
    bin_ = FindBinDir();
    if (bin_.empty()) {
      return "no PostgreSQL server binaries (initdb, pg_ctl) found: looked in "
             "$AFFORDANCE_PG_BINDIR, `pg_config --bindir`, /usr/lib/postgresql/*/bin and PATH; "
             "install postgresql-15 (scripts/setup does)";
    }
    account_ = RunAs();
    std::string pattern =
        (std::filesystem::temp_directory_path() / "affordance-pg-XXXXXX").string();
    if (!mkdtemp(pattern.data())) return "cannot create a temp folder for PostgreSQL";
    dir_ = pattern;
    if (account_.switch_user && chown(dir_.c_str(), account_.uid, account_.gid) != 0) {
      return "cannot hand " + dir_ + " to the PostgreSQL user";
    }
    StartReaper();
    if (Run({bin_ + "/initdb", "-D", dir_ + "/data", "-U", "affordance", "--auth=trust", "-N", "-E",
             "UTF8", "--locale=C"}) != 0) {
      return "initdb failed:\n" + Tail("tool.log");
    }
    std::string last_error;
    for (int attempt = 0; attempt < 3; ++attempt) {  // a free port may be taken meanwhile
      port_ = FreePort();
      if (Start(&last_error)) return "";
    }
    return "cannot start PostgreSQL: " + last_error;
  }

  std::string bin_, dir_, error_;
  Account account_{};
  int port_ = 0;
  int reaper_fd_ = -1;
};

}  // namespace affordance::store::testing
