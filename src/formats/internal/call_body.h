// The body of one tool call, received incrementally: {"name": N, "<args_key>": A}.
//
// While the body arrives in the canonical key order, tool-input-start is emitted as soon as the
// name is complete and the arguments stream out as tool-input-delta parts, exactly as written.
// Close() parses the whole body: a well-formed call yields tool-input-end + tool-call; anything
// else (bad JSON, a missing or non-string name, unexpected keys, arguments that are not an object,
// a call that was never closed) yields one tool-input-error with the raw body and the reason.
// Arguments nested deeper than kMaxJsonDepth (base/json_limits.h) are refused before any value is
// built: a tool-input-error with error_code kTooDeepCode.
#pragma once

#include "formats/stream_part.h"

#include <string>
#include <string_view>
#include <vector>

namespace affordance::formats::internal {

// The tool-input-error code and message of a call whose arguments nest deeper than kMaxJsonDepth,
// shared by every parser of model output so the model reads one wording whatever its format.
inline constexpr std::string_view kTooDeepCode = "formats.too_deep";
std::string TooDeepArgumentsMessage();

class CallBody {
 public:
  CallBody(std::string id, std::string args_key)
      : id_(std::move(id)), args_key_(std::move(args_key)) {}

  void Append(std::string_view text, std::vector<StreamPart>& out);
  // `closed` is false when the call was cut off (no closing tag / end of turn inside the call);
  // `why_open` then says what happened. Returns true for a well-formed call.
  bool Close(bool closed, std::string_view why_open, std::vector<StreamPart>& out);

  const std::string& raw() const { return raw_; }

 private:
  enum class Phase { kPrefix, kArgs, kTrailer, kBuffered };
  void TryPrefix(std::vector<StreamPart>& out);
  void StreamArgs(std::vector<StreamPart>& out);
  void Fail(std::string error, std::vector<StreamPart>& out, std::string_view code = {});

  std::string id_;
  std::string args_key_;
  std::string raw_;
  Phase phase_ = Phase::kPrefix;
  bool started_ = false;
  std::string name_;
  size_t args_begin_ = 0;
  size_t scanned_ = 0;  // raw_ offset up to which argument text was streamed
  // JSON value end tracking for the arguments.
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool value_started_ = false;
  bool scalar_ = false;
};

}  // namespace affordance::formats::internal
