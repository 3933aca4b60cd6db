#include "formats/internal/part_emitter.h"

namespace affordance::formats::internal {
namespace {
bool AllSpace(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') return false;
  }
  return true;
}
}  // namespace

void PartEmitter::CloseContent(std::vector<StreamPart>& out) {
  pending_ws_.clear();
  pending_kind_ = kNone;
  if (open_ == kNone) return;
  out.push_back(StreamPart::Of(open_ == kText ? PartType::kTextEnd : PartType::kReasoningEnd,
                               std::move(open_id_)));
  open_id_.clear();
  open_ = kNone;
}

void PartEmitter::Content(Kind kind, std::string_view s, std::vector<StreamPart>& out) {
  if (s.empty()) return;
  if (open_ != kind) {
    if (AllSpace(s)) {
      if (pending_kind_ != kind) pending_ws_.clear();
      pending_kind_ = kind;
      pending_ws_.append(s);
      return;
    }
    std::string pending;
    if (pending_kind_ == kind) pending = std::move(pending_ws_);
    CloseContent(out);
    open_ = kind;
    open_id_ = prefix_ + (kind == kText ? "text-" + std::to_string(texts_++)
                                        : "reasoning-" + std::to_string(reasonings_++));
    out.push_back(
        StreamPart::Of(kind == kText ? PartType::kTextStart : PartType::kReasoningStart, open_id_));
    if (!pending.empty()) {
      pending.append(s);
      StreamPart delta = StreamPart::Of(
          kind == kText ? PartType::kTextDelta : PartType::kReasoningDelta, open_id_);
      delta.delta = std::move(pending);
      out.push_back(std::move(delta));
      return;
    }
  }
  StreamPart delta =
      StreamPart::Of(kind == kText ? PartType::kTextDelta : PartType::kReasoningDelta, open_id_);
  delta.delta.assign(s);
  out.push_back(std::move(delta));
}

}  // namespace affordance::formats::internal
