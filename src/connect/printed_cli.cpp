#include "connect/printed_cli.h"

#include "base/json_limits.h"
#include "connect/process.h"
#include "connect/sql_guard.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace affordance::connect {

using nlohmann::json;

namespace {

std::string Stringify(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string Tail(const std::string& s, size_t n) {
  return ValidUtf8(s.size() <= n ? s : s.substr(s.size() - n));
}

}  // namespace

Error ExitCodeError(int code, const std::string& message, const std::string& detail) {
  struct Mapping {
    int code;
    const char* error;
    const char* what;
  };
  static const Mapping kMap[] = {
      {2, "connect.cli_usage", "the connector CLI rejected its arguments"},
      {3, "connect.not_found", "the connector found no such object"},
      {4, "connect.auth", "the connector's credentials were rejected or are missing"},
      {5, "connect.api", "the connector's API returned an error"},
      {6, "connect.partial_failure", "the connector failed part of the request"},
      {7, "connect.rate_limited", "the connector's API is rate limited; try again later"},
      {10, "connect.config", "the connector CLI is not configured"},
  };
  for (const auto& m : kMap) {
    if (m.code == code) {
      return MakeError(m.error, message.empty() ? m.what : std::string(m.what) + ": " + message,
                       detail);
    }
  }
  return MakeError("connect.cli_failed",
                   "the connector CLI failed with exit code " + std::to_string(code) +
                       (message.empty() ? "" : ": " + message),
                   detail);
}

Result<std::vector<std::string>> PrintedCliArgv(const SourceSpec& source, const CliCall& call,
                                                std::optional<SourceMode> mode) {
  std::vector<std::string> argv{source.command};
  argv.insert(argv.end(), call.words.begin(), call.words.end());
  argv.push_back("--agent");
  if (mode) {
    argv.push_back("--data-source");
    argv.push_back(ToString(*mode));
  }
  if (call.positional.empty()) return argv;
  if (source.end_of_options) {
    argv.push_back("--");
  } else {
    for (const auto& v : call.positional) {
      if (!v.empty() && v[0] == '-') {
        return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                         "\"" + v + "\" begins with '-', and " + source.command +
                             " would read it as an option (it does not read `--`)");
      }
    }
  }
  argv.insert(argv.end(), call.positional.begin(), call.positional.end());
  return argv;
}

Result<CliReply> InvokePrintedCli(const SourceSpec& source, const CliCall& call,
                                  std::optional<SourceMode> mode) {
  auto made = PrintedCliArgv(source, call, mode);
  if (!made) return made.error();
  const std::vector<std::string>& argv = *made;
  auto run = RunProcess(argv, source.timeout_ms);
  if (!run) return run.error();
  // The connector's output is untrusted: too deep, it is never parsed (a value built from it would
  // overflow the stack of whoever walks it next); a failed run then reports its stderr.
  const bool too_deep = JsonTextDepth(run->out) > kMaxJsonDepth;
  json body = too_deep ? json(json::value_t::discarded) : json::parse(run->out, nullptr, false);
  std::string detail = ArgvText(argv);
  if (run->exit_code != 0) {
    std::string message;
    if (body.is_object() && body.contains("error")) message = Stringify(body["error"]);
    if (message.empty()) {
      message = Tail(run->err, 400);  // its last line ends the sentence, not a line break
      message.erase(message.find_last_not_of(" \t\r\n") + 1);
    }
    if (run->exit_code == 6 && body.is_object() && body.contains("results")) {
      return CliReply{body["results"], body.value("meta", json::object()), true};
    }
    return ExitCodeError(run->exit_code, ValidUtf8(message), detail);
  }
  if (too_deep) {
    return MakeError(ErrorKind::kInvalid, "connect.too_deep",
                     "the connector CLI's output nests deeper than " +
                         std::to_string(kMaxJsonDepth) + " levels of arrays and objects",
                     detail);
  }
  if (body.is_discarded() || !body.is_object()) {
    return MakeError("connect.cli_bad_output",
                     "the connector CLI did not print a JSON object with --agent",
                     detail + ": " + Tail(run->out, 200));
  }
  if (body.contains("matches") && !body.contains("results")) {
    return CliReply{body, json::object(), false};  // `which` prints its matches bare
  }
  if (!body.contains("results")) {
    return MakeError("connect.cli_bad_output", "the connector CLI printed no \"results\"", detail);
  }
  json meta = body.value("meta", json::object());
  if (!meta.is_object()) meta = json::object();
  return CliReply{body["results"], meta, false};
}

CliCall OperationCall(const Operation& op, const json& args) {
  CliCall call;
  call.words = op.argv;
  for (const auto& [name, value] : args.items()) {  // nlohmann objects iterate in key order
    bool positional = false;
    for (const auto& p : op.positional) positional = positional || p == name;
    if (positional || value.is_null()) continue;
    call.words.push_back("--" + name + "=" + Stringify(value));
  }
  for (const auto& name : op.positional) {
    if (args.contains(name)) call.positional.push_back(Stringify(args[name]));
  }
  return call;
}

Result<std::vector<std::string>> MutationArgv(const ConnectorManifest& m, const Operation& op,
                                              const json& args, const std::string& key) {
  CliCall call = OperationCall(op, args);
  if (!op.idempotency_flag.empty()) call.words.push_back("--" + op.idempotency_flag + "=" + key);
  return PrintedCliArgv(m.source, call, std::nullopt);
}

std::string ArgvText(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    bool plain = !word.empty();
    for (unsigned char c : word) {
      plain = plain && (std::isalnum(c) || std::strchr("-_./=:@,+%", c) != nullptr);
    }
    if (!out.empty()) out += ' ';
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

std::string PrintedCliMirrorPath(const SourceSpec& source) {
  if (!source.mirror_path.empty()) return source.mirror_path;
  std::string base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    base = xdg;
  } else {
    const char* home = std::getenv("HOME");
    base = std::string(home ? home : ".") + "/.local/share";
  }
  return base + "/" + std::filesystem::path(source.command).filename().string() + "/data.db";
}

Result<std::vector<WhichMatch>> RunWhich(const SourceSpec& source, const std::string& query) {
  auto reply = InvokePrintedCli(source, CliCall{{"which"}, {query}}, std::nullopt);
  if (!reply) return reply.error();
  const json& body = reply->results;
  const json* matches = nullptr;
  if (body.is_object() && body.contains("matches")) matches = &body["matches"];
  if (!matches || !matches->is_array()) {
    return MakeError("connect.cli_bad_output", "`which` printed no \"matches\" array",
                     source.command);
  }
  std::vector<WhichMatch> out;
  for (const auto& m : *matches) {
    if (!m.is_object() || !m.contains("entry") || !m["entry"].is_object()) continue;
    WhichMatch w;
    w.entry = m["entry"];
    if (w.entry.contains("command") && w.entry["command"].is_string()) {
      w.command = w.entry["command"].get<std::string>();
    }
    if (w.entry.contains("args") && w.entry["args"].is_object())
      w.args = w.entry["args"];
    else
      w.args = json::object();
    if (m.contains("score") && m["score"].is_number()) w.score = m["score"].get<double>();
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace affordance::connect
