// RunConnectorCommand: resolution (named operation, `which`, chooser) and result assembly.
// Source execution, fan-out and syncs are in execute.cpp.
#include "connect/road.h"

#include "connect/internal/execution.h"
#include "connect/printed_cli.h"
#include "connect/schema.h"

#include <algorithm>
#include <chrono>

namespace affordance::connect {

using nlohmann::json;

namespace {

Error BadRequest(const std::string& message) {
  return MakeError(ErrorKind::kInvalid, "connect.bad_request", message);
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string OperationNames(const ConnectorManifest& m) {
  std::vector<std::string> names;
  for (const auto& op : m.operations) {
    if (op.readable()) names.push_back(op.name);
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Candidate CandidateFor(const Operation& op) {
  return Candidate{op.name, ToString(op.kind), op.description, op.args_schema, nullptr, 0};
}

// Errors a chooser can fix by choosing again; anything else ends the command.
bool Correctable(const Error& e) {
  return e.code == "connect.bad_args" || e.code == "connect.unknown_operation" ||
         e.code == "connect.mutation_not_readable" || e.code == "connect.not_found" ||
         e.code == "connect.cli_usage" || e.code.rfind("connect.sql_", 0) == 0;
}

}  // namespace

Result<ConnectorCommand> ParseConnectorCommand(const json& in) {
  if (!in.is_object()) return BadRequest("the command must be a JSON object");
  for (const auto& [key, value] : in.items()) {
    if (key != "connector" && key != "request" && key != "limit" && key != "mode") {
      return BadRequest("unknown member \"" + key +
                        "\" (allowed: connector, request, limit, mode)");
    }
  }
  ConnectorCommand cmd;
  if (!in.contains("connector") || !in["connector"].is_string()) {
    return BadRequest("\"connector\" must be a string naming a connector");
  }
  cmd.connector = in["connector"].get<std::string>();
  if (!in.contains("request") || !(in["request"].is_string() || in["request"].is_object())) {
    return BadRequest("\"request\" must be the user's words or {\"operation\", \"args\"}");
  }
  cmd.request = in["request"];
  if (in.contains("limit")) {
    if (!in["limit"].is_number_integer() || in["limit"].get<int64_t>() < 1) {
      return BadRequest("\"limit\" must be a positive integer");
    }
    cmd.limit = in["limit"].get<int64_t>();
  }
  if (in.contains("mode")) {
    if (!in["mode"].is_string()) return BadRequest("\"mode\" must be live, local or auto");
    auto mode = ParseSourceMode(in["mode"].get<std::string>());
    if (!mode) return mode.error();
    cmd.mode = *mode;
  }
  return cmd;
}

Result<ConnectorResult> ConnectorRoad::RunConnectorCommand(const ConnectorCommand& cmd,
                                                           Chooser* chooser) {
  auto found = Find(cmd.connector);
  if (!found) {
    std::string slugs;
    for (const auto& m : base_) slugs += (slugs.empty() ? "" : ", ") + m.slug;
    return MakeError(
        ErrorKind::kNotFound, "connect.unknown_connector",
        "no connector \"" + cmd.connector + "\" (ready: " + (slugs.empty() ? "none" : slugs) + ")");
  }
  const ConnectorManifest& m = *found;
  SourceMode mode =
      cmd.mode.value_or(m.Supports(SourceMode::kAuto) ? SourceMode::kAuto : m.modes.front());
  if (!m.Supports(mode)) {
    return MakeError(ErrorKind::kInvalid, "connect.mode_unsupported",
                     "connector \"" + m.slug + "\" does not offer the " + ToString(mode) + " mode");
  }
  if (cmd.limit && *cmd.limit < 1) return BadRequest("\"limit\" must be a positive integer");
  int64_t limit = std::min(cmd.limit.value_or(options_.default_limit), options_.max_limit);

  ConnectorResult result;
  result.connector = m.slug;
  for (const auto& op : m.operations) {
    if (op.kind == OperationKind::kMutation) {
      result.mutation_contracts.push_back(
          {op.handle, m.slug, op.name, op.args_schema, ToString(op.risk)});
    }
  }

  // Checks a chosen (operation, args) pair against this connector only.
  auto check = [&](const std::string& name, const json& args) -> Result<const Operation*> {
    const Operation* op = m.FindOperation(name);
    if (!op) {
      return MakeError(ErrorKind::kNotFound, "connect.unknown_operation",
                       "connector \"" + m.slug + "\" has no operation \"" + name +
                           "\" (operations: " + OperationNames(m) + ")");
    }
    if (op->kind == OperationKind::kMutation) {
      return MakeError(ErrorKind::kInvalid, "connect.mutation_not_readable",
                       "\"" + name +
                           "\" is a mutation; writes are staged through authority, not "
                           "run by RunConnectorCommand");
    }
    if (!args.is_object())
      return MakeError(ErrorKind::kInvalid, "connect.bad_args", "\"args\" must be an object");
    if (auto s = ValidateArgs(op->args_schema, args); !s) {
      Error e = s.error();
      e.message = name + " args " + e.message;
      return e;
    }
    return op;
  };

  std::optional<Execution> exec;
  if (cmd.request.is_object()) {
    const json& r = cmd.request;
    for (const auto& [key, value] : r.items()) {
      if (key != "operation" && key != "args") {
        return BadRequest("unknown request member \"" + key + "\" (allowed: operation, args)");
      }
    }
    if (!r.contains("operation") || !r["operation"].is_string()) {
      return BadRequest("a structured request needs \"operation\" (a string)");
    }
    json args = r.value("args", json::object());
    auto op = check(r["operation"].get<std::string>(), args);
    if (!op) return op.error();
    auto run = Execute(m, **op, args, mode, limit);
    if (!run) return run.error();
    exec = std::move(run.value());
    result.resolution = {{"by", "operation"}};
  } else if (cmd.request.is_string()) {
    const std::string& words = cmd.request.get_ref<const std::string&>();
    std::vector<Candidate> hints;
    if (m.HasVerb("which") && !words.empty()) {
      auto matches = RunWhich(m.source, words);
      if (!matches) {
        result.resolution["which_error"] = {{"code", matches.error().code},
                                            {"message", matches.error().message}};
      } else {
        // Map matches onto declared operations; the CLI's ranking is kept as a hint.
        for (const auto& match : *matches) {
          for (const auto& op : m.operations) {
            if (op.kind == OperationKind::kMutation || Join(op.argv) != match.command) continue;
            Candidate c = CandidateFor(op);
            c.suggested_args = match.args;
            c.score = match.score;
            hints.push_back(std::move(c));
          }
        }
        bool unique_top = !matches->empty() &&
                          (matches->size() == 1 || (*matches)[1].score < (*matches)[0].score);
        if (unique_top && !hints.empty() && hints[0].score == (*matches)[0].score) {
          auto op = check(hints[0].operation, hints[0].suggested_args);
          if (op) {
            auto run = Execute(m, **op, hints[0].suggested_args, mode, limit);
            if (!run) return run.error();
            exec = std::move(run.value());
            result.resolution = {{"by", "which"}, {"entry", (*matches)[0].entry}};
          }
        }
      }
    }
    if (!exec) {
      std::vector<Candidate> candidates = hints;
      for (const auto& op : m.operations) {
        bool hinted = std::any_of(hints.begin(), hints.end(),
                                  [&](const Candidate& c) { return c.operation == op.name; });
        if (op.kind != OperationKind::kMutation && !hinted) candidates.push_back(CandidateFor(op));
      }
      ChoiceRequest ask{
          m.slug,       m.title, words, candidates, m.mirror_tables, 1, options_.focus_steps,
          std::nullopt, nullptr};
      std::string reason = "the request names no operation and no chooser is available";
      for (int step = 1; chooser && step <= options_.focus_steps; ++step) {
        ask.step = step;
        auto choice = chooser->Choose(ask);
        if (!choice) return choice.error();
        if (choice->operation.empty()) {
          reason =
              choice->reason.empty() ? "the chooser found no fitting operation" : choice->reason;
          break;
        }
        ask.previous_choice = {{"operation", choice->operation}, {"args", choice->args}};
        auto op = check(choice->operation, choice->args);
        Result<Execution> run =
            op ? Execute(m, **op, choice->args, mode, limit) : Result<Execution>(op.error());
        if (run) {
          exec = std::move(run.value());
          result.resolution = {{"by", "chooser"}, {"steps", step}};
          break;
        }
        if (!Correctable(run.error())) return run.error();
        ask.previous_error = run.error();
        reason = "no valid operation after " + std::to_string(step) +
                 " chooser step(s); last error: " + run.error().message;
      }
      if (!exec) {
        result.status = "unresolved";
        result.unresolved_reason = reason;
        result.candidates = std::move(candidates);
        result.resolution["by"] = chooser ? "chooser" : "none";
        auto snapshot = Snapshot(m.slug);
        if (snapshot) result.mirror_snapshot = *snapshot;
        if (auto s = BoundRows(result, limit, options_.max_chars); !s) return s.error();
        return result;
      }
    }
  } else {
    return BadRequest("\"request\" must be the user's words or {\"operation\", \"args\"}");
  }

  result.rows = std::move(exec->rows);
  result.total_rows = static_cast<int64_t>(result.rows.size());
  result.total_rows_exact = !exec->source_truncated;
  if (exec->partial) result.status = "partial";
  result.operation_ledger = std::move(exec->ledger);
  for (auto& c : exec->contracts) {
    result.registered_query_handles.push_back(c.handle);
    result.query_contracts.push_back(std::move(c));
  }
  result.mirror_snapshot = exec->snapshot;
  if (auto s = BoundRows(result, limit, options_.max_chars); !s) return s.error();
  if (exec->listed >= 0) {
    // A list that fanned out: its size is the list's, whatever the limit let through the detail
    // reads (and whichever of those failed: a partial result says so in its status).
    result.total_rows = std::max(result.total_rows, exec->listed);
    if (limit >= 0 && exec->listed > limit && !result.truncated) {
      result.truncated = true;
      result.truncated_reason = "limit";
    }
  }
  if (exec->clipped && !result.truncated) {
    result.truncated = true;
    result.truncated_reason = "char_cap";  // a field was cut to fit (its row says which)
  }
  if (exec->source_truncated && !result.truncated) {
    result.truncated = true;
    result.truncated_reason = "source_row_cap";
  }
  return result;
}

}  // namespace affordance::connect
