// Opens, feeds and closes text and reasoning parts, and names parts, for one turn's parser.
#pragma once

#include "formats/stream_part.h"

#include <string>
#include <string_view>
#include <vector>

namespace affordance::formats::internal {

class PartEmitter {
 public:
  explicit PartEmitter(std::string prefix) : prefix_(std::move(prefix)) {}

  // Appends prose / reasoning. A piece that is only whitespace does not open a part; it is kept and
  // emitted in front of the next non-whitespace piece of the same kind, or discarded when a
  // structural element (a call, the end of the turn) comes first.
  void Text(std::string_view s, std::vector<StreamPart>& out) { Content(kText, s, out); }
  void Reasoning(std::string_view s, std::vector<StreamPart>& out) { Content(kReasoning, s, out); }
  // Ends an open text or reasoning part.
  void CloseContent(std::vector<StreamPart>& out);
  // A fresh tool call id.
  std::string NextCallId() { return prefix_ + "call-" + std::to_string(calls_++); }

 private:
  enum Kind { kNone, kText, kReasoning };
  void Content(Kind kind, std::string_view s, std::vector<StreamPart>& out);

  std::string prefix_;
  Kind open_ = kNone;
  std::string open_id_;
  Kind pending_kind_ = kNone;
  std::string pending_ws_;
  int texts_ = 0, reasonings_ = 0, calls_ = 0;
};

}  // namespace affordance::formats::internal
