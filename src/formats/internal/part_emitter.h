// Opens, feeds and closes text and reasoning parts, and names parts, for one turn's parser. It also
// recognises citations in prose (docs/HARNESS.md "Evidence on claims"): `[r3]`, `[r1, r3]` (up to
// kMaxCitationRefs references of at most 6 digits, a comma and spaces between them). A piece that
// could still become one is held back, as a half tag is; the spelling stays in the text, and a
// citation part follows the delta that completed it.
#pragma once

#include "formats/stream_part.h"

#include <string>
#include <string_view>
#include <vector>

namespace affordance::formats::internal {

inline constexpr size_t kMaxCitationRefs = 16;

class PartEmitter {
 public:
  explicit PartEmitter(std::string prefix) : prefix_(std::move(prefix)) {}

  // Appends prose / reasoning. A piece that is only whitespace does not open a part; it is kept and
  // emitted in front of the next non-whitespace piece of the same kind, or discarded when a
  // structural element (a call, the end of the turn) comes first.
  void Text(std::string_view s, std::vector<StreamPart>& out);
  void Reasoning(std::string_view s, std::vector<StreamPart>& out) {
    FlushHeld(out);
    Content(kReasoning, s, out);
  }
  // Ends an open text or reasoning part (text held back as a possible citation is text after all).
  void CloseContent(std::vector<StreamPart>& out) {
    FlushHeld(out);
    Close(out);
  }
  // A fresh tool call id.
  std::string NextCallId() { return prefix_ + "call-" + std::to_string(calls_++); }

 private:
  enum Kind { kNone, kText, kReasoning };
  void Content(Kind kind, std::string_view s, std::vector<StreamPart>& out);
  void Close(std::vector<StreamPart>& out);
  void FlushHeld(std::vector<StreamPart>& out);

  std::string prefix_;
  Kind open_ = kNone;
  std::string open_id_;
  int64_t open_bytes_ = 0;  // bytes of the open part's text so far
  std::string held_;        // a possible citation's beginning ("[r1, r")
  Kind pending_kind_ = kNone;
  std::string pending_ws_;
  int texts_ = 0, reasonings_ = 0, calls_ = 0;
};

}  // namespace affordance::formats::internal
