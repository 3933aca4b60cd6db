// base/private_files.h on real files: what is created is private whatever the umask, what an older
// version left open is tightened with one line on stderr (once), and what is not ours is left.
#include "base/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace affordance {
namespace {

namespace fs = std::filesystem;

unsigned Mode(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

// A fresh folder, and the process umask set to 0 so only explicit modes count.
class PrivateFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "affordance-private-XXXXXX").string();
    root_ = mkdtemp(pattern.data());
    old_umask_ = umask(0);
  }
  void TearDown() override {
    umask(old_umask_);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path root_;
  mode_t old_umask_ = 0;
};

TEST_F(PrivateFiles, WhatIsCreatedIsPrivateWhateverTheUmask) {
  const fs::path dir = root_ / "share" / "affordance";
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(EnsurePrivateDir(dir, "test.open").ok());
  ASSERT_TRUE(EnsurePrivateFile(dir / "affordance.db", "test.open").ok());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // nothing to report
  EXPECT_EQ(Mode(dir), 0700u);
  EXPECT_EQ(Mode(dir / "affordance.db"), 0600u);
  EXPECT_EQ(fs::file_size(dir / "affordance.db"), 0u);
  // Calling again changes nothing and says nothing.
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(EnsurePrivateDir(dir, "test.open").ok());
  ASSERT_TRUE(EnsurePrivateFile(dir / "affordance.db", "test.open").ok());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(PrivateFiles, WhatAnOlderVersionLeftOpenIsTightenedOnceAndSaid) {
  const fs::path dir = root_ / "data";
  fs::create_directory(dir);
  chmod(dir.c_str(), 0755);
  for (const char* name : {"affordance.db", "affordance.db-wal", "affordance.db-shm"}) {
    std::ofstream(dir / name) << "x";
    chmod((dir / name).c_str(), 0644);
  }
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(EnsurePrivateDir(dir, "test.open").ok());
  ASSERT_TRUE(EnsurePrivateFile(dir / "affordance.db", "test.open").ok());
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(said, "affordance: made the data folder " + dir.string() +
                      " private: mode 0755 -> 0700 (it holds your data)\n"
                      "affordance: made the file " +
                      (dir / "affordance.db").string() +
                      " private: mode 0644 -> 0600 (it holds your data)\n"
                      "affordance: made the file " +
                      (dir / "affordance.db-wal").string() +
                      " private: mode 0644 -> 0600 (it holds your data)\n"
                      "affordance: made the file " +
                      (dir / "affordance.db-shm").string() +
                      " private: mode 0644 -> 0600 (it holds your data)\n");
  EXPECT_EQ(Mode(dir), 0700u);
  for (const char* name : {"affordance.db", "affordance.db-wal", "affordance.db-shm"}) {
    EXPECT_EQ(Mode(dir / name), 0600u) << name;
  }
  std::ifstream in(dir / "affordance.db");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "x");  // contents untouched
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(EnsurePrivateDir(dir, "test.open").ok());
  ASSERT_TRUE(EnsurePrivateFile(dir / "affordance.db", "test.open").ok());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // once
}

// A shared sticky folder (like /tmp) is never ours to change, even when we own it.
TEST_F(PrivateFiles, ASharedFolderIsLeftAsItIsAndTheNoticeSaysWhy) {
  const fs::path dir = root_ / "shared";
  fs::create_directory(dir);
  chmod(dir.c_str(), 01777);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(EnsurePrivateDir(dir, "test.open").ok());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "affordance: the data folder " + dir.string() +
                " is open to other users (mode 1777) and is not yours to change; the files "
                "affordance creates in it are private (0600), but choose a folder of your own "
                "with --data\n");
  EXPECT_EQ(Mode(dir), 01777u);
  ASSERT_TRUE(EnsurePrivateFile(dir / "affordance.db", "test.open").ok());
  EXPECT_EQ(Mode(dir / "affordance.db"), 0600u);
}

TEST_F(PrivateFiles, WhatIsNotAFolderOrAFileIsATypedError) {
  std::ofstream(root_ / "plain") << "x";
  auto dir = EnsurePrivateDir(root_ / "plain", "test.open");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().code, "test.open");
  EXPECT_EQ(dir.error().message, (root_ / "plain").string() + " is not a folder");
  fs::create_directory(root_ / "db");
  auto file = EnsurePrivateFile(root_ / "db", "test.open");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code, "test.open");
  EXPECT_EQ(file.error().message, (root_ / "db").string() + " is not a regular file");
  auto missing = EnsurePrivateFile(root_ / "no" / "such" / "affordance.db", "test.open");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "cannot create " + (root_ / "no/such/affordance.db").string() +
                                         ": No such file or directory");
}

}  // namespace
}  // namespace affordance
