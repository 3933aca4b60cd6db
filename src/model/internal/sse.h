// Incremental Server-Sent Events reader: bytes in, complete `data` payloads out.
#pragma once

#include <string>
#include <string_view>

namespace affordance::model::internal {

class SseReader {
 public:
  // Feeds received bytes; calls on_data(std::string_view payload) for every complete event that
  // has data (multi-line data joined with "\n"). Comment lines (":") and other fields are
  // skipped; "\r\n" and "\r" line ends are accepted. Returns false as soon as on_data does.
  template <class OnData>
  bool Feed(std::string_view bytes, OnData&& on_data) {
    buffer_.append(bytes);
    size_t pos = 0;
    while (true) {
      size_t eol = buffer_.find_first_of("\r\n", pos);
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
      }
    }
    buffer_.erase(0, pos);
    return true;
  }

  // True when bytes of an unfinished event are pending (the stream was cut mid-event).
  bool pending() const { return has_data_ || !buffer_.empty(); }

 private:
  std::string buffer_;
  std::string data_;
  bool has_data_ = false;
};

}  // namespace affordance::model::internal
