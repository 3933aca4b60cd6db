// Each system library of DESIGN.md §3 works the way the product uses it.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/sha.h>
#include <pcre2.h>
#include <sqlite3.h>
#include <utf8proc.h>
#include <xxhash.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

namespace {

TEST(LibrariesSmoke, Pcre2JitMatchesUnicodeLetters) {
  int err = 0;
  PCRE2_SIZE offset = 0;
  const char* pattern = R"(\p{L}+)";
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                                 PCRE2_UTF | PCRE2_UCP, &err, &offset, nullptr);
  ASSERT_NE(re, nullptr);
  ASSERT_EQ(pcre2_jit_compile(re, PCRE2_JIT_COMPLETE), 0) << "PCRE2 JIT unavailable";
  size_t jit_size = 0;
  pcre2_pattern_info(re, PCRE2_INFO_JITSIZE, &jit_size);
  EXPECT_GT(jit_size, 0u);
  std::string subject = "42 Ελληνικά!";
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(re, nullptr);
  int rc = pcre2_jit_match(re, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0,
                           md, nullptr);
  ASSERT_GT(rc, 0);
  PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  EXPECT_EQ(subject.substr(ov[0], ov[1] - ov[0]), "Ελληνικά");
  pcre2_match_data_free(md);
  pcre2_code_free(re);
}

TEST(LibrariesSmoke, Utf8procComposesToNfc) {
  const char* decomposed = "e\xCC\x81";  // e + COMBINING ACUTE ACCENT
  utf8proc_uint8_t* nfc = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(decomposed));
  ASSERT_NE(nfc, nullptr);
  EXPECT_STREQ(reinterpret_cast<char*>(nfc), "\xC3\xA9");  // é
  std::free(nfc);
}

TEST(LibrariesSmoke, SqliteWritesAWalFile) {
  auto dir =
      std::filesystem::temp_directory_path() / ("affordance-smoke-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "mirror.db").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(
      sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);",
                   nullptr, nullptr, &err),
      SQLITE_OK)
      << (err ? err : "");
  EXPECT_TRUE(std::filesystem::exists(path + "-wal"));
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  std::filesystem::remove_all(dir);
}

TEST(LibrariesSmoke, JsonRoundTripsAndRejectsMalformedInput) {
  auto j = nlohmann::json::parse(R"({"name": "change__notes", "arguments": {"value": "ü"}})");
  EXPECT_EQ(j["arguments"]["value"], "ü");
  EXPECT_EQ(j.dump(), R"({"arguments":{"value":"ü"},"name":"change__notes"})");
  EXPECT_TRUE(nlohmann::json::parse("{\"a\": }", nullptr, false).is_discarded());
}

TEST(LibrariesSmoke, HttpRequestOnLoopback) {
  httplib::Server server;
  server.Get("/ping", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("pong", "text/plain");
  });
  int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread t([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::yield();
  httplib::Client client("127.0.0.1", port);
  auto res = client.Get("/ping");
  server.stop();
  t.join();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "pong");
}

TEST(LibrariesSmoke, HashesForIdentitiesAndCaches) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>("abc"), 3, digest);
  EXPECT_EQ(digest[0], 0xba);
  EXPECT_EQ(digest[31], 0xad);
  EXPECT_EQ(XXH3_64bits("abc", 3), XXH3_64bits("abc", 3));
  EXPECT_NE(XXH3_64bits("abc", 3), XXH3_64bits("abd", 3));
}

}  // namespace
