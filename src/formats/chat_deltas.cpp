#include "formats/chat_deltas.h"

#include "base/json_limits.h"
#include "formats/internal/call_body.h"

namespace affordance::formats {
namespace {

// Parallel tool calls of one message: more than this many is not a real stream.
constexpr int64_t kMaxToolCallIndex = 4096;

// An integer field of `obj`, or `fallback` when it is missing or not an integer (usage counts are
// informational: a malformed one is ignored, never a reason to fail the turn).
int64_t IntOr(const nlohmann::json& obj, const char* key, int64_t fallback) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

std::string MapFinishReason(const std::string& r) {
  if (r == "tool_calls" || r == "function_call") return "tool-calls";
  if (r == "content_filter") return "content-filter";
  if (r == "stop" || r == "length") return r;
  return "other";
}

}  // namespace

ChatDeltaMapper::ChatDeltaMapper(ChatDeltaOptions options)
    : options_(std::move(options)), reasoning_(options_.id_prefix + "r") {
  content_ = MakeOutputParser(options_.content_format, {options_.id_prefix});
}

int ChatDeltaMapper::tool_calls() const { return calls_ok_ + content_->tool_calls(); }
int ChatDeltaMapper::tool_errors() const { return calls_failed_ + content_->tool_errors(); }

Status ChatDeltaMapper::Push(const nlohmann::json& chunk, std::vector<StreamPart>& out) {
  if (!chunk.is_object()) {
    return MakeError("formats.chat_chunk", "a chat stream chunk is not a JSON object",
                     chunk.dump().substr(0, 200));
  }
  if (auto e = chunk.find("error"); e != chunk.end()) {
    std::string message = e->is_object() && e->contains("message") && (*e)["message"].is_string()
                              ? (*e)["message"].get<std::string>()
                              : e->dump();
    return MakeError("formats.chat_error", "the server reported an error in the stream", message);
  }
  if (auto u = chunk.find("usage"); u != chunk.end() && u->is_object()) {
    has_usage_ = true;
    usage_.prompt_tokens = IntOr(*u, "prompt_tokens", 0);
    usage_.generated_tokens = IntOr(*u, "completion_tokens", 0);
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object()) {
      usage_.cached_prompt_tokens = IntOr(*d, "cached_tokens", 0);
    }
  }
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) {
    if (has_usage_) return {};
    return MakeError("formats.chat_chunk", "a chat stream chunk has no \"choices\" array",
                     chunk.dump().substr(0, 200));
  }
  if (choices->empty()) return {};  // the usage-only chunk of stream_options.include_usage
  const nlohmann::json& choice = (*choices)[0];
  if (!choice.is_object()) {
    return MakeError("formats.chat_chunk", "a chat stream choice is not a JSON object");
  }
  if (auto d = choice.find("delta"); d != choice.end() && d->is_object()) {
    for (const char* key : {"reasoning_content", "reasoning"}) {
      if (auto r = d->find(key);
          r != d->end() && r->is_string() && !r->get_ref<const std::string&>().empty()) {
        reasoning_.Reasoning(r->get_ref<const std::string&>(), out);
      }
    }
    if (auto c = d->find("content");
        c != d->end() && c->is_string() && !c->get_ref<const std::string&>().empty()) {
      reasoning_.CloseContent(out);
      content_->Push({-1, c->get_ref<const std::string&>(), false}, out);
    }
    if (auto t = d->find("tool_calls"); t != d->end() && t->is_array()) {
      for (const auto& call : *t) {
        if (Status s = PushToolCall(call, out); !s.ok()) return s;
      }
    }
  }
  if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) {
    finish_reason_ = MapFinishReason(f->get<std::string>());
  }
  return {};
}

void ChatDeltaMapper::AssignId(Call& call) {
  const std::string& prefix = options_.id_prefix;
  if (!call.server_id.empty() && call.server_id.compare(0, prefix.size(), prefix) != 0 &&
      server_ids_.insert(call.server_id).second) {
    call.id = call.server_id;
    return;
  }
  call.id = prefix + "api-call-" + std::to_string(generated_ids_++);
}

StreamPart ChatDeltaMapper::PartOf(PartType type, const Call& call) const {
  StreamPart part = StreamPart::Of(type, call.id);
  if (!call.server_id.empty() && call.server_id != call.id) {
    part.metadata = {{"serverToolCallId", call.server_id}};
  }
  return part;
}

Status ChatDeltaMapper::PushToolCall(const nlohmann::json& delta, std::vector<StreamPart>& out) {
  if (!delta.is_object()) return {};
  int index = static_cast<int>(calls_.size());
  if (auto i = delta.find("index"); i != delta.end()) {
    if (!i->is_number_integer() || *i < 0 || *i >= kMaxToolCallIndex) {
      return MakeError("formats.chat_chunk",
                       "a tool call delta's \"index\" is not a non-negative integer below " +
                           std::to_string(kMaxToolCallIndex),
                       i->dump().substr(0, 200));
    }
    index = i->get<int>();
  }
  Call& call = calls_[index];
  if (auto id = delta.find("id"); id != delta.end() && id->is_string() && call.server_id.empty()) {
    call.server_id = id->get<std::string>();
  }
  std::string args_piece;
  if (auto fn = delta.find("function"); fn != delta.end() && fn->is_object()) {
    if (auto n = fn->find("name"); n != fn->end() && n->is_string())
      call.name += n->get<std::string>();
    if (auto a = fn->find("arguments"); a != fn->end() && a->is_string()) {
      args_piece = a->get<std::string>();
    }
  }
  call.arguments += args_piece;
  if (!call.started && !call.name.empty()) {
    AssignId(call);
    call.started = true;
    StreamPart start = PartOf(PartType::kToolInputStart, call);
    start.tool_name = call.name;
    out.push_back(std::move(start));
    args_piece = call.arguments;  // what arrived before the name
  }
  if (call.started && !args_piece.empty()) {
    StreamPart d = StreamPart::Of(PartType::kToolInputDelta, call.id);
    d.delta = std::move(args_piece);
    out.push_back(std::move(d));
  }
  return {};
}

void ChatDeltaMapper::Finish(std::vector<StreamPart>& out) {
  if (finished_) return;
  finished_ = true;
  reasoning_.CloseContent(out);
  content_->Finish(out);
  for (auto& entry : calls_) {
    Call& call = entry.second;
    if (call.id.empty()) AssignId(call);
    auto fail = [&](std::string why, std::string_view code = {}) {
      StreamPart e = PartOf(PartType::kToolInputError, call);
      e.tool_name = call.name;
      e.input_text = call.arguments;
      e.error_text = std::move(why);
      e.error_code = code;
      out.push_back(std::move(e));
      ++calls_failed_;
    };
    if (call.name.empty()) {
      fail("the streamed tool call has no function name");
      continue;
    }
    nlohmann::json args = nlohmann::json::object();
    bool blank = call.arguments.find_first_not_of(" \n\t\r") == std::string::npos;
    if (!blank) {
      if (JsonTextDepth(call.arguments) > kMaxJsonDepth) {
        fail(internal::TooDeepArgumentsMessage(), internal::kTooDeepCode);
        continue;
      }
      try {
        args = nlohmann::json::parse(call.arguments);
      } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
        fail(std::string("the tool call's arguments are not valid JSON: ") + e.what());
        continue;
      }
      if (!args.is_object()) {
        fail("the tool call's arguments must be a JSON object");
        continue;
      }
    }
    out.push_back(StreamPart::Of(PartType::kToolInputEnd, call.id));
    StreamPart c = PartOf(PartType::kToolCall, call);
    c.tool_name = call.name;
    c.input = std::move(args);
    c.input_text = blank ? "{}" : call.arguments;
    out.push_back(std::move(c));
    ++calls_ok_;
  }
}

}  // namespace affordance::formats
