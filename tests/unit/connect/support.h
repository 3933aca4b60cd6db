// Shared test support for the connector road: temporary folders, the example manifests with
// their paths pointed at test copies, and a scripted Chooser (the stand-in for the model, which
// cannot run here; the harness implements Chooser with the real model).
#pragma once

#include "connect/chooser.h"
#include "connect/manifest.h"
#include "connect/road.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace affordance::connect::testing {

// 2026-11-27T12:00:00Z, a Friday: "next week" is 2026-11-30 .. 2026-12-07.
inline constexpr int64_t kNow = 1795780800;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-connect-XXXXXX");
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string Source(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

// The example calendar manifest, reading `ics` (default: the example calendar.ics).
inline ConnectorManifest CalendarManifest(const std::string& ics = "") {
  auto m = ParseManifest(ReadText(Source("examples/connectors/calendar.json")),
                         Source("examples/connectors/calendar.json"));
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().ToString());
  ConnectorManifest out = m.value();
  if (!ics.empty()) out.source.paths = {ics};
  return out;
}

inline RoadOptions TestOptions(const TempDir& dir, int64_t* clock = nullptr) {
  RoadOptions o;
  o.data_dir = dir / "data";
  if (clock) {
    o.clock = [clock] { return *clock; };
  } else {
    o.clock = [] { return kNow; };
  }
  return o;
}

// Writes an .ics file of `n` one-hour events, one every 37 minutes from `start` (epoch seconds),
// with UIDs "gen-<i>@bench" and summaries "Generated <i>".
inline void GenerateIcs(const std::string& path, int n, int64_t start) {
  std::string text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//affordance//test//EN\r\n";
  char buf[64];
  auto stamp = [&](int64_t t) {
    time_t tt = static_cast<time_t>(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return std::string(buf);
  };
  for (int i = 0; i < n; ++i) {
    int64_t s = start + int64_t{i} * 37 * 60;
    text += "BEGIN:VEVENT\r\nUID:gen-" + std::to_string(i) + "@bench\r\nSUMMARY:Generated " +
            std::to_string(i) + "\r\nDTSTART:" + stamp(s) + "\r\nDTEND:" + stamp(s + 3600) +
            "\r\nLOCATION:Room " + std::to_string(i % 17) + "\r\nEND:VEVENT\r\n";
  }
  text += "END:VCALENDAR\r\n";
  WriteText(path, text);
}

// Replays a fixed list of choices and records what it was asked.
class ScriptedChooser : public Chooser {
 public:
  explicit ScriptedChooser(std::deque<Choice> script) : script_(std::move(script)) {}
  Result<Choice> Choose(const ChoiceRequest& request) override {
    asked.push_back(request);
    if (script_.empty()) return Choice{"", {}, "script exhausted"};
    Choice c = script_.front();
    script_.pop_front();
    return c;
  }
  std::vector<ChoiceRequest> asked;

 private:
  std::deque<Choice> script_;
};

}  // namespace affordance::connect::testing
