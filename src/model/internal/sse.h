// Incremental Server-Sent Events reader: bytes in, complete `data` payloads out.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace affordance::model::internal {

class SseReader {
 public:
  // The largest event (its data, or one line of it still arriving) that is read; an engine that
  // sends more is broken or hostile, and buffering it would cost unbounded memory. A chat or
  // completion chunk is a few hundred bytes.
  static constexpr size_t kMaxEventBytes = size_t{8} << 20;

  // Feeds received bytes; calls on_data(std::string_view payload) for every complete event that
  // has data (multi-line data joined with "\n"). Comment lines (":") and other fields are
  // skipped; "\r\n" and "\r" line ends are accepted. Returns false as soon as on_data does, or
  // when an event grows past kMaxEventBytes (then too_large() is true and nothing more is read).
  // Each byte is scanned once, however the stream is split.
  template <class OnData>
  bool Feed(std::string_view bytes, OnData&& on_data) {
    if (too_large_) return false;
    buffer_.append(bytes);
    size_t pos = 0;
    while (true) {
      size_t eol = buffer_.find_first_of("\r\n", std::max(pos, scanned_));
      if (eol == std::string::npos) break;
      size_t next = eol + 1;
      if (buffer_[eol] == '\r') {
        if (next == buffer_.size()) break;  // wait: maybe "\r\n"
        if (buffer_[next] == '\n') ++next;
      }
      std::string_view line(buffer_.data() + pos, eol - pos);
      pos = next;
      if (line.empty()) {
        if (has_data_) {
          has_data_ = false;
          std::string data = std::move(data_);
          data_.clear();
          if (!on_data(std::string_view(data))) {
            buffer_.erase(0, pos);
            scanned_ = 0;
            return false;
          }
        }
        continue;
      }
      if (line.substr(0, 5) == "data:") {
        std::string_view value = line.substr(5);
        if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
        if (has_data_) data_.push_back('\n');
        data_.append(value);
        has_data_ = true;
        if (data_.size() > kMaxEventBytes) return Overflow();
      }
    }
    buffer_.erase(0, pos);
    // What is left is one unfinished line (at most a '\r' at its end still undecided).
    scanned_ = buffer_.empty() || buffer_.back() != '\r' ? buffer_.size() : buffer_.size() - 1;
    if (buffer_.size() > kMaxEventBytes) return Overflow();
    return true;
  }

  // True when bytes of an unfinished event are pending (the stream was cut mid-event).
  bool pending() const { return has_data_ || !buffer_.empty(); }
  // True once an event grew past kMaxEventBytes.
  bool too_large() const { return too_large_; }

 private:
  bool Overflow() {
    too_large_ = true;
    buffer_.clear();
    data_.clear();
    has_data_ = false;
    return false;
  }

  std::string buffer_;
  size_t scanned_ = 0;  // buffer_ before this offset holds no line end
  std::string data_;
  bool has_data_ = false;
  bool too_large_ = false;
};

}  // namespace affordance::model::internal
