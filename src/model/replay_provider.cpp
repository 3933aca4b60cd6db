#include "model/replay_provider.h"

#include <chrono>
#include <thread>

#include "base/instant.h"
#include "base/json_limits.h"
#include "model/internal/token_step.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace affordance::model {

namespace {

// One step's text: a string, or {"text", "finish"?}.
Result<ReplayScript::Step> ParseStep(const nlohmann::json& s, const std::string& where) {
  ReplayScript::Step step;
  if (s.is_string()) {
    step.text = s.get<std::string>();
  } else if (s.is_object() && s.contains("text") && s["text"].is_string()) {
    step.text = s["text"].get<std::string>();
    if (s.contains("finish")) {
      if (s["finish"] != "length" && s["finish"] != "stop") {
        return MakeError(ErrorKind::kInvalid, "model.replay_script",
                         "\"finish\" must be \"stop\" or \"length\"", where);
      }
      step.cut_off = s["finish"] == "length";
    }
  } else {
    return MakeError(ErrorKind::kInvalid, "model.replay_script",
                     "each step must be a string, an object with a \"text\" string, or an "
                     "object with \"cases\"",
                     where);
  }
  return step;
}

}  // namespace

std::string ExpandReplayDays(const std::string& text, int64_t now_s) {
  static const char* const kWeekdays[] = {"Thursday", "Friday",  "Saturday", "Sunday",
                                          "Monday",   "Tuesday", "Wednesday"};  // 1970-01-01 on
  static const char* const kMonths[] = {"January",   "February", "March",    "April",
                                        "May",       "June",     "July",     "August",
                                        "September", "October",  "November", "December"};
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find("{{", i);
    if (open == std::string::npos) break;
    out.append(text, i, open - i);
    // {{date}} / {{day}}, optionally +N or -N (up to 3 digits), then "}}"; anything else is kept.
    size_t p = open + 2;
    const bool iso = text.compare(p, 4, "date") == 0;
    const bool human = !iso && text.compare(p, 3, "day") == 0;
    int64_t offset = 0;
    bool ok = iso || human;
    if (ok) {
      p += iso ? 4 : 3;
      if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
        const bool minus = text[p] == '-';
        size_t digits = 0;
        for (++p;
             p < text.size() && digits < 4 && std::isdigit(static_cast<unsigned char>(text[p]));
             ++p, ++digits) {
          offset = offset * 10 + (text[p] - '0');
        }
        ok = digits >= 1 && digits <= 3;
        if (minus) offset = -offset;
      }
      ok = ok && text.compare(p, 2, "}}") == 0;
    }
    if (!ok) {
      out += "{{";
      i = open + 2;
      continue;
    }
    const int64_t day = (now_s >= 0 ? now_s / 86400 : (now_s - 86399) / 86400) + offset;
    const std::string ymd = FormatInstant(day * 86400).substr(0, 10);
    if (iso) {
      out += ymd;
    } else {
      const int month = std::stoi(ymd.substr(5, 2));
      out += std::string(kWeekdays[((day % 7) + 7) % 7]) + " " +
             std::to_string(std::stoi(ymd.substr(8, 2))) + " " + kMonths[month - 1] + " " +
             ymd.substr(0, 4);
    }
    i = p + 2;
  }
  out.append(text, i, std::string::npos);
  return out;
}

Result<ReplayScript> ParseReplayScript(std::string_view json) {
  if (auto deep = CheckJsonDepth(json, "model.too_deep", "the replay script"); !deep) {
    return deep.error();
  }
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
  if (doc.is_discarded()) {
    return MakeError(ErrorKind::kInvalid, "model.replay_script",
                     "the replay script is not valid JSON", JsonSyntaxError(json));
  }
  if (!doc.is_object()) {
    return MakeError(ErrorKind::kInvalid, "model.replay_script",
                     "the replay script must be a JSON object");
  }
  ReplayScript script;
  if (auto f = doc.find("format"); f != doc.end()) {
    if (!f->is_string())
      return MakeError(ErrorKind::kInvalid, "model.replay_script", "\"format\" must be a string");
    auto format = formats::ParseChatFormat(f->get<std::string>());
    if (!format.ok() || *format == formats::ChatFormat::kPlain) {
      return MakeError(ErrorKind::kInvalid, "model.replay_script",
                       "\"format\" must be \"qwen3\" or \"llama3.1\"", f->get<std::string>());
    }
    script.format = *format;
  }
  if (auto d = doc.find("token_delay_ms"); d != doc.end()) {
    if (!d->is_number_integer() || d->get<int64_t>() < 0 || d->get<int64_t>() > 10000) {
      return MakeError(ErrorKind::kInvalid, "model.replay_script",
                       "\"token_delay_ms\" must be an integer 0..10000");
    }
    script.token_delay_ms = d->get<int>();
  }
  auto steps = doc.find("steps");
  if (steps == doc.end() || !steps->is_array()) {
    return MakeError(ErrorKind::kInvalid, "model.replay_script",
                     "the replay script needs a \"steps\" array");
  }
  for (size_t i = 0; i < steps->size(); ++i) {
    const auto& s = (*steps)[i];
    const std::string where = "steps[" + std::to_string(i) + "]";
    ReplayScript::Step step;
    if (s.is_object() && s.contains("cases")) {
      const auto& cases = s["cases"];
      if (!cases.is_array() || cases.empty()) {
        return MakeError(ErrorKind::kInvalid, "model.replay_script",
                         "\"cases\" must be a non-empty array", where);
      }
      for (size_t c = 0; c < cases.size(); ++c) {
        const std::string at = where + ".cases[" + std::to_string(c) + "]";
        if (!cases[c].is_object()) {
          return MakeError(ErrorKind::kInvalid, "model.replay_script",
                           "each case must be an object with a \"text\" string", at);
        }
        auto parsed = ParseStep(cases[c], at);
        if (!parsed) return parsed.error();
        if (auto w = cases[c].find("when"); w != cases[c].end()) {
          if (!w->is_string() || w->get<std::string>().empty()) {
            return MakeError(ErrorKind::kInvalid, "model.replay_script",
                             "\"when\" must be a non-empty string", at);
          }
          parsed->when = w->get<std::string>();
        }
        step.cases.push_back(std::move(parsed).value());
      }
    } else {
      auto parsed = ParseStep(s, where);
      if (!parsed) return parsed.error();
      step = std::move(parsed).value();
    }
    script.steps.push_back(std::move(step));
  }
  return script;
}

Result<ReplayScript> LoadReplayScript(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return MakeError(ErrorKind::kInvalid, "model.replay_script", "cannot read the replay script",
                     path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto script = ParseReplayScript(ss.str());
  if (!script.ok()) {
    Error e = script.error();
    // "FILE:LINE:COLUMN: PROBLEM" for a syntax error (its detail starts with the line), else
    // "FILE: DETAIL".
    const bool position =
        !e.detail.empty() && std::isdigit(static_cast<unsigned char>(e.detail[0]));
    e.detail = e.detail.empty() ? path : path + (position ? ":" : ": ") + e.detail;
    return e;
  }
  return script;
}

Result<std::unique_ptr<ReplayProvider>> ReplayProvider::Create(
    std::shared_ptr<const text::Tokenizer> tokenizer, ReplayScript script) {
  const formats::TurnSyntax* syntax = formats::TurnSyntaxOf(script.format);  // never plain here
  std::vector<text::TokenId> ends;
  for (auto name : syntax->end_of_turn) {
    auto id = tokenizer->TokenIdOf(name);
    if (!id) {
      return MakeError(ErrorKind::kInvalid, "model.replay_script",
                       "the tokenizer has no end-of-turn token for the script's format",
                       std::string(name));
    }
    ends.push_back(*id);
  }
  return std::unique_ptr<ReplayProvider>(
      new ReplayProvider(std::move(tokenizer), std::move(script), std::move(ends)));
}

ReplayProvider::ReplayProvider(std::shared_ptr<const text::Tokenizer> tokenizer,
                               ReplayScript script, std::vector<text::TokenId> end_tokens)
    : tokenizer_(std::move(tokenizer)),
      script_(std::move(script)),
      end_tokens_(std::move(end_tokens)) {}

Status ReplayProvider::Stream(const StepRequest& request, const PartSink& sink,
                              const CancelToken& cancel) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t index = next_;
  internal::StepWriter writer(sink, {{"replay", true}, {"replayStep", index}});
  writer.StartStep();
  if (cancel.cancelled()) return writer.Abort();
  if (index >= script_.steps.size()) {
    return writer.Fail(
        MakeError("model.replay_exhausted", "the replay script has no more steps",
                  std::to_string(script_.steps.size()) +
                      (script_.steps.size() == 1 ? " step played" : " steps played")));
  }
  ++next_;
  const ReplayScript::Step* chosen = &script_.steps[index];
  if (!chosen->cases.empty()) {
    std::string prompt;
    if (!request.prompt.empty()) {
      auto decoded = tokenizer_->Decode(request.prompt);
      if (!decoded.ok()) return writer.Fail(decoded.error());
      prompt = std::move(decoded).value();
    } else {
      prompt = request.messages.dump();
    }
    const ReplayScript::Step* match = nullptr;
    std::string tried;
    for (const auto& c : chosen->cases) {
      if (c.when.empty() || prompt.find(c.when) != std::string::npos) {
        match = &c;
        break;
      }
      tried += (tried.empty() ? "\"" : ", \"") + c.when + "\"";
    }
    if (match == nullptr) {
      return writer.Fail(MakeError(ErrorKind::kInvalid, "model.replay_no_case",
                                   "no case of this replay step matches its prompt",
                                   "step " + std::to_string(index) + " tried " + tried));
    }
    chosen = match;
  }
  const ReplayScript::Step& step = *chosen;
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  auto ids = tokenizer_->Encode(ExpandReplayDays(step.text, now_s), {.match_special = true});
  if (!ids.ok()) return writer.Fail(ids.error());
  std::vector<text::TokenId> tokens = std::move(ids).value();
  bool has_end = !tokens.empty() && std::find(end_tokens_.begin(), end_tokens_.end(),
                                              tokens.back()) != end_tokens_.end();
  if (!step.cut_off && !has_end) tokens.push_back(end_tokens_[0]);

  internal::TokenStep play(*tokenizer_, script_.format, request.step_id, writer);
  bool limited = false;
  for (text::TokenId id : tokens) {
    if (script_.token_delay_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(script_.token_delay_ms));
    }
    if (cancel.cancelled()) {
      play.Close();
      return writer.Abort();
    }
    if (static_cast<int>(play.tokens().size()) >= request.max_tokens) {
      limited = true;
      break;
    }
    if (auto s = play.Push(id); !s) {
      play.Close();
      return writer.Fail(s.error());
    }
    if (play.ended()) break;
  }
  play.Close();
  formats::Usage usage;
  usage.prompt_tokens = static_cast<int64_t>(request.prompt.size());
  usage.generated_tokens = static_cast<int64_t>(play.tokens().size());
  std::string reason = play.Reason(limited || step.cut_off ? "length" : "stop");
  return writer.Finish(usage, play.TakeTokens(), std::move(reason));
}

}  // namespace affordance::model
