#include "formats/internal/call_body.h"

#include "base/json_limits.h"

namespace affordance::formats::internal {

std::string TooDeepArgumentsMessage() {
  return "the tool call's arguments nest deeper than " + std::to_string(kMaxJsonDepth) +
         " levels of arrays and objects";
}

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// A cursor over the canonical call prefix. Each step returns kMore when the text ended before the
// expected element was complete, kNo when the text cannot be that element.
enum class Match { kYes, kMore, kNo };

struct Cursor {
  std::string_view s;
  size_t i = 0;
  void Space() {
    while (i < s.size() && IsSpace(s[i])) ++i;
  }
  Match Char(char c) {
    Space();
    if (i == s.size()) return Match::kMore;
    if (s[i] != c) return Match::kNo;
    ++i;
    return Match::kYes;
  }
  // A JSON string literal; `literal` receives its exact spelling including quotes.
  Match String(std::string_view* literal) {
    Space();
    if (i == s.size()) return Match::kMore;
    if (s[i] != '"') return Match::kNo;
    size_t begin = i++;
    bool esc = false;
    for (; i < s.size(); ++i) {
      char c = s[i];
      if (esc) {
        esc = false;
        continue;
      }
      if (c == '\\') {
        esc = true;
        continue;
      }
      if (c == '"') {
        ++i;
        *literal = s.substr(begin, i - begin);
        return Match::kYes;
      }
      if (static_cast<unsigned char>(c) < 0x20) return Match::kNo;
    }
    return Match::kMore;
  }
  Match Key(std::string_view key) {
    std::string_view lit;
    Match m = String(&lit);
    if (m != Match::kYes) return m;
    if (lit.size() != key.size() + 2 || lit.substr(1, key.size()) != key) return Match::kNo;
    return Char(':');
  }
};

}  // namespace

void CallBody::Append(std::string_view text, std::vector<StreamPart>& out) {
  raw_.append(text);
  if (phase_ == Phase::kPrefix) TryPrefix(out);
  if (phase_ == Phase::kArgs) StreamArgs(out);
}

void CallBody::TryPrefix(std::vector<StreamPart>& out) {
  // The canonical prefix is short; past this size stop re-scanning it (bounded work per token)
  // and parse the call only when it closes.
  constexpr size_t kMaxPrefix = 512;
  if (raw_.size() > kMaxPrefix) {
    phase_ = Phase::kBuffered;
    return;
  }
  Cursor c{raw_};
  std::string_view name_literal;
  Match m = c.Char('{');
  if (m == Match::kYes) m = c.Key("name");
  if (m == Match::kYes) m = c.String(&name_literal);
  if (m == Match::kYes) m = c.Char(',');
  if (m == Match::kYes) m = c.Key(args_key_);
  if (m == Match::kYes) {
    c.Space();
    if (c.i == raw_.size()) return;  // wait for the first character of the value
  }
  if (m == Match::kMore) return;
  if (m == Match::kNo) {
    phase_ = Phase::kBuffered;
    return;
  }
  nlohmann::json name = nlohmann::json::parse(name_literal, nullptr, /*allow_exceptions=*/false);
  if (!name.is_string() || name.get_ref<const std::string&>().empty()) {
    phase_ = Phase::kBuffered;
    return;
  }
  name_ = name.get<std::string>();
  started_ = true;
  StreamPart start = StreamPart::Of(PartType::kToolInputStart, id_);
  start.tool_name = name_;
  out.push_back(std::move(start));
  args_begin_ = scanned_ = c.i;
  phase_ = Phase::kArgs;
}

void CallBody::StreamArgs(std::vector<StreamPart>& out) {
  size_t from = scanned_;
  size_t i = scanned_;
  bool done = false;
  for (; i < raw_.size() && !done; ++i) {
    char c = raw_[i];
    if (!value_started_) {
      value_started_ = true;
      if (c == '{' || c == '[') {
        depth_ = 1;
        continue;
      }
      if (c == '"') {
        in_string_ = true;
        continue;
      }
      scalar_ = true;
      continue;
    }
    if (in_string_) {
      if (escape_)
        escape_ = false;
      else if (c == '\\')
        escape_ = true;
      else if (c == '"') {
        in_string_ = false;
        if (depth_ == 0) done = true;
      }
      continue;
    }
    if (scalar_) {
      if (IsSpace(c) || c == ',' || c == '}' || c == ']') {
        done = true;
        --i;  // the delimiter is not part of the value
      }
      continue;
    }
    if (c == '"')
      in_string_ = true;
    else if (c == '{' || c == '[')
      ++depth_;
    else if (c == '}' || c == ']') {
      if (--depth_ == 0) done = true;
    }
  }
  scanned_ = i;
  if (scanned_ > from) {
    StreamPart delta = StreamPart::Of(PartType::kToolInputDelta, id_);
    delta.delta = raw_.substr(from, scanned_ - from);
    out.push_back(std::move(delta));
  }
  if (done) phase_ = Phase::kTrailer;
}

void CallBody::Fail(std::string error, std::vector<StreamPart>& out, std::string_view code) {
  StreamPart part = StreamPart::Of(PartType::kToolInputError, id_);
  part.tool_name = name_;
  part.input_text = raw_;
  part.error_text = std::move(error);
  part.error_code = code;
  out.push_back(std::move(part));
}

bool CallBody::Close(bool closed, std::string_view why_open, std::vector<StreamPart>& out) {
  if (!closed) {
    Fail(std::string(why_open), out, kUnterminatedCallCode);
    return false;
  }
  // The body object wraps the arguments: one level more than the arguments may have.
  if (JsonTextDepth(raw_, kMaxJsonDepth + 1) > kMaxJsonDepth + 1) {
    Fail(TooDeepArgumentsMessage(), out, kTooDeepCode);
    return false;
  }
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(raw_);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
    Fail(std::string("the tool call is not valid JSON: ") + e.what(), out);
    return false;
  }
  if (!body.is_object()) {
    Fail("the tool call must be a JSON object {\"name\": ..., \"" + args_key_ + "\": {...}}", out);
    return false;
  }
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (it.key() != "name" && it.key() != args_key_) {
      Fail("unexpected key \"" + it.key() + "\" in the tool call; expected only \"name\" and \"" +
               args_key_ + "\"",
           out);
      return false;
    }
  }
  auto name = body.find("name");
  if (name == body.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    Fail("the tool call has no \"name\" string", out);
    return false;
  }
  if (started_ && name_ != name->get<std::string>()) {
    Fail("the tool call's name changed while it streamed", out);  // unreachable for valid JSON
    return false;
  }
  name_ = name->get<std::string>();
  nlohmann::json args = nlohmann::json::object();
  std::string args_text = "{}";
  auto a = body.find(args_key_);
  if (a != body.end()) {
    if (a->is_string()) {
      // Arguments serialized as a JSON string (templates pass strings through verbatim).
      if (JsonTextDepth(a->get_ref<const std::string&>()) > kMaxJsonDepth) {
        Fail(TooDeepArgumentsMessage(), out, kTooDeepCode);
        return false;
      }
      nlohmann::json inner = nlohmann::json::parse(a->get<std::string>(), nullptr, false);
      if (!inner.is_object()) {
        Fail("\"" + args_key_ + "\" is a string that does not hold a JSON object", out);
        return false;
      }
      args = std::move(inner);
      args_text = a->get<std::string>();
    } else if (a->is_object()) {
      args = *a;
      args_text = started_ && phase_ == Phase::kTrailer
                      ? raw_.substr(args_begin_, scanned_ - args_begin_)
                      : a->dump();
    } else {
      Fail("\"" + args_key_ + "\" must be a JSON object", out);
      return false;
    }
  }
  if (!started_) {
    StreamPart start = StreamPart::Of(PartType::kToolInputStart, id_);
    start.tool_name = name_;
    out.push_back(std::move(start));
    StreamPart delta = StreamPart::Of(PartType::kToolInputDelta, id_);
    delta.delta = args_text;
    out.push_back(std::move(delta));
  }
  out.push_back(StreamPart::Of(PartType::kToolInputEnd, id_));
  StreamPart call = StreamPart::Of(PartType::kToolCall, id_);
  call.tool_name = name_;
  call.input = std::move(args);
  call.input_text = std::move(args_text);
  out.push_back(std::move(call));
  return true;
}

}  // namespace affordance::formats::internal
