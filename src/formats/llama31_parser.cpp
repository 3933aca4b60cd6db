// Llama 3.1 output: one JSON call at the start of the turn (or after <|python_tag|>), else text.
#include "formats/internal/call_body.h"
#include "formats/internal/parsers.h"
#include "formats/internal/part_emitter.h"
#include "formats/internal/tag_scanner.h"

#include <optional>

namespace affordance::formats::internal {
namespace {

enum Tag { kPythonTag, kEomId, kEotId };

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

class Llama31Parser final : public OutputParser {
 public:
  explicit Llama31Parser(ParserOptions options)
      : emitter_(options.id_prefix), scanner_({"<|python_tag|>", "<|eom_id|>", "<|eot_id|>"}) {}

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
      // The turn ended (or generation stopped) with the call's JSON as the last thing: Llama has
      // no closing tag, so an ended turn closes the call; a cut-off one leaves it open.
      CloseCall(ended_by_token_, "the output stopped before the tool call was complete", out);
    }
    emitter_.CloseContent(out);
  }

  void EndTurn(std::vector<StreamPart>& out) override {
    if (finished_) return;
    ended_by_token_ = true;
    Finish(out);
    ended_ = true;
  }

  bool ended() const override { return ended_; }
  int tool_calls() const override { return calls_; }
  int tool_errors() const override { return errors_; }

 private:
  void OnText(std::string_view s, std::vector<StreamPart>& out) {
    if (ended_) return;
    if (call_) {
      call_->Append(s, out);
      return;
    }
    if (at_start_) {
      size_t i = 0;
      while (i < s.size() && IsSpace(s[i])) ++i;
      if (i == s.size()) {
        emitter_.Text(s, out);  // whitespace only: held by the emitter, decides nothing yet
        return;
      }
      at_start_ = false;
      if (s[i] == '{') {
        emitter_.CloseContent(out);
        call_.emplace(emitter_.NextCallId(), "parameters");
        call_->Append(s.substr(i), out);
        return;
      }
    }
    emitter_.Text(s, out);
  }

  void OnTag(int tag, std::vector<StreamPart>& out) {
    if (ended_) return;
    switch (tag) {
      case kPythonTag:
        if (call_) {
          call_->Append("<|python_tag|>", out);  // inside a call it is just more (bad) input
          return;
        }
        at_start_ = false;
        emitter_.CloseContent(out);
        call_.emplace(emitter_.NextCallId(), "parameters");
        return;
      case kEomId:
      case kEotId:
        ended_by_token_ = true;
        Finish(out);
        ended_ = true;
        return;
    }
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
  bool at_start_ = true;
  bool ended_ = false;
  bool ended_by_token_ = false;
  bool finished_ = false;
  int calls_ = 0;
  int errors_ = 0;
};

class PlainParser final : public OutputParser {
 public:
  explicit PlainParser(ParserOptions options) : emitter_(options.id_prefix) {}
  void Push(const OutputToken& token, std::vector<StreamPart>& out) override {
    emitter_.Text(token.text, out);
  }
  void Finish(std::vector<StreamPart>& out) override { emitter_.CloseContent(out); }
  bool ended() const override { return false; }
  int tool_calls() const override { return 0; }
  int tool_errors() const override { return 0; }

 private:
  PartEmitter emitter_;
};

}  // namespace

std::unique_ptr<OutputParser> MakeLlama31Parser(ParserOptions options) {
  return std::make_unique<Llama31Parser>(std::move(options));
}
std::unique_ptr<OutputParser> MakePlainParser(ParserOptions options) {
  return std::make_unique<PlainParser>(std::move(options));
}

}  // namespace affordance::formats::internal
