#include "formats/internal/part_emitter.h"

namespace affordance::formats::internal {
namespace {
bool AllSpace(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') return false;
  }
  return true;
}
enum class Spelling { kNo, kPrefix, kComplete };

// Whether `h` (which starts with '[') is a citation, the beginning of one, or neither.
Spelling Classify(std::string_view h, std::vector<std::string>* refs) {
  constexpr size_t kMaxDigits = 6;
  constexpr size_t kMaxSpelling = 128;
  if (h.size() > kMaxSpelling) return Spelling::kNo;
  size_t i = 1;
  size_t count = 0;
  while (true) {
    if (i == h.size()) return Spelling::kPrefix;
    if (h[i] != 'r') return Spelling::kNo;
    const size_t from = ++i;
    while (i < h.size() && h[i] >= '0' && h[i] <= '9') ++i;
    const size_t digits = i - from;
    if (digits > kMaxDigits) return Spelling::kNo;
    if (i == h.size()) return Spelling::kPrefix;
    if (digits == 0 || ++count > kMaxCitationRefs) return Spelling::kNo;
    if (refs != nullptr) refs->emplace_back(h.substr(from - 1, digits + 1));
    if (h[i] == ']') return i + 1 == h.size() ? Spelling::kComplete : Spelling::kNo;
    if (h[i] != ',') return Spelling::kNo;
    ++i;
    while (i < h.size() && h[i] == ' ') ++i;
  }
}

}  // namespace

void PartEmitter::Text(std::string_view s, std::vector<StreamPart>& out) {
  size_t plain = 0;  // start of the run of plain text not yet emitted
  for (size_t i = 0; i < s.size(); ++i) {
    if (held_.empty()) {
      const size_t open = s.find('[', i);  // prose without a bracket passes in one piece
      if (open == std::string_view::npos) break;
      i = open;
      Content(kText, s.substr(plain, i - plain), out);
      held_.push_back('[');  // held_ was empty
      plain = i + 1;
      continue;
    }
    held_.push_back(s[i]);
    plain = i + 1;
    switch (Classify(held_, nullptr)) {
      case Spelling::kPrefix:
        break;
      case Spelling::kComplete: {
        StreamPart citation = StreamPart::Of(PartType::kCitation);
        Classify(held_, &citation.refs);
        Content(kText, held_, out);
        citation.id = open_id_;
        citation.offset = open_bytes_ - static_cast<int64_t>(held_.size());
        citation.delta = std::move(held_);
        held_.clear();
        out.push_back(std::move(citation));
        break;
      }
      case Spelling::kNo: {
        // The '[' was text; what followed it may begin another citation.
        std::string rest = held_.substr(1);
        held_.clear();
        Content(kText, "[", out);
        Text(rest, out);
        break;
      }
    }
  }
  if (held_.empty()) Content(kText, s.substr(plain), out);
}

void PartEmitter::FlushHeld(std::vector<StreamPart>& out) {
  if (held_.empty()) return;
  std::string held = std::move(held_);
  held_.clear();
  Content(kText, held, out);
}

void PartEmitter::Close(std::vector<StreamPart>& out) {
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
    Close(out);
    open_ = kind;
    open_bytes_ = 0;
    open_id_ = prefix_ + (kind == kText ? "text-" + std::to_string(texts_++)
                                        : "reasoning-" + std::to_string(reasonings_++));
    out.push_back(
        StreamPart::Of(kind == kText ? PartType::kTextStart : PartType::kReasoningStart, open_id_));
    if (!pending.empty()) {
      pending.append(s);
      StreamPart delta = StreamPart::Of(
          kind == kText ? PartType::kTextDelta : PartType::kReasoningDelta, open_id_);
      delta.delta = std::move(pending);
      open_bytes_ += static_cast<int64_t>(delta.delta.size());
      out.push_back(std::move(delta));
      return;
    }
  }
  StreamPart delta =
      StreamPart::Of(kind == kText ? PartType::kTextDelta : PartType::kReasoningDelta, open_id_);
  delta.delta.assign(s);
  open_bytes_ += static_cast<int64_t>(s.size());
  out.push_back(std::move(delta));
}

}  // namespace affordance::formats::internal
