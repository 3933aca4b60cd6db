// Qwen3 (Hermes-style) output: text, <think> reasoning, <tool_call> JSON calls, end of turn.
#include "formats/internal/call_body.h"
#include "formats/internal/parsers.h"
#include "formats/internal/part_emitter.h"
#include "formats/internal/tag_scanner.h"

#include <optional>

namespace affordance::formats::internal {
namespace {

enum Tag { kCallOpen, kCallClose, kThinkOpen, kThinkClose, kImEnd, kEndOfText };

class Qwen3Parser final : public OutputParser {
 public:
  explicit Qwen3Parser(ParserOptions options)
      : emitter_(options.id_prefix),
        scanner_({"<tool_call>", "</tool_call>", "<think>", "</think>", "<|im_end|>",
                  "<|endoftext|>"}) {}

  void Push(const OutputToken& token, std::vector<StreamPart>& out) override {
    if (ended_) return;
    scanner_.Push(
        token.text, [&](std::string_view s) { OnText(s, out); }, [&](int tag) { OnTag(tag, out); });
  }

  void Finish(std::vector<StreamPart>& out) override {
    if (finished_) return;
    finished_ = true;
    scanner_.Flush([&](std::string_view s) { OnText(s, out); });
    if (call_) {
      CloseCall(false, "the output ended inside a <tool_call> (no </tool_call>)", out);
    }
    emitter_.CloseContent(out);
  }

  bool ended() const override { return ended_; }
  int tool_calls() const override { return calls_; }
  int tool_errors() const override { return errors_; }

 private:
  void OnText(std::string_view s, std::vector<StreamPart>& out) {
    if (ended_) return;
    if (call_)
      call_->Append(s, out);
    else if (thinking_)
      emitter_.Reasoning(s, out);
    else
      emitter_.Text(s, out);
  }

  void OnTag(int tag, std::vector<StreamPart>& out) {
    if (ended_) return;
    static const char* const kSpelling[] = {"<tool_call>", "</tool_call>", "<think>", "</think>"};
    switch (tag) {
      case kCallOpen:
        if (call_) CloseCall(false, "a new <tool_call> began before </tool_call>", out);
        emitter_.CloseContent(out);
        thinking_ = false;
        call_.emplace(emitter_.NextCallId(), "arguments");
        return;
      case kCallClose:
        if (call_) {
          CloseCall(true, {}, out);
        } else {
          emitter_.CloseContent(out);
          StreamPart part = StreamPart::Of(PartType::kToolInputError, emitter_.NextCallId());
          part.input_text = "</tool_call>";
          part.error_text = "</tool_call> without an opening <tool_call>";
          out.push_back(std::move(part));
          ++errors_;
        }
        return;
      case kThinkOpen:
        if (!call_ && !thinking_) {
          emitter_.CloseContent(out);
          thinking_ = true;
          return;
        }
        break;
      case kThinkClose:
        if (!call_ && thinking_) {
          emitter_.CloseContent(out);
          thinking_ = false;
          return;
        }
        break;
      case kImEnd:
      case kEndOfText:
        Finish(out);
        ended_ = true;
        return;
    }
    // A tag that means nothing where it stands is ordinary text there.
    OnText(kSpelling[tag], out);
  }

  void CloseCall(bool closed, std::string_view why, std::vector<StreamPart>& out) {
    if (call_->Close(closed, why, out))
      ++calls_;
    else
      ++errors_;
    call_.reset();
  }

  PartEmitter emitter_;
  TagScanner scanner_;
  std::optional<CallBody> call_;
  bool thinking_ = false;
  bool ended_ = false;
  bool finished_ = false;
  int calls_ = 0;
  int errors_ = 0;
};

}  // namespace

std::unique_ptr<OutputParser> MakeQwen3Parser(ParserOptions options) {
  return std::make_unique<Qwen3Parser>(std::move(options));
}

}  // namespace affordance::formats::internal
