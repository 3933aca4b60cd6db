// `affordance connector list | sync | run | sql`: the connector road from the command line.
//
// Manifests are read from --connectors DIR, else $AFFORDANCE_CONNECTORS, else
// $XDG_CONFIG_HOME/affordance/connectors (~/.config/affordance/connectors); mirrors live under
// --data DIR, else $AFFORDANCE_DATA, else $XDG_DATA_HOME/affordance/connectors. `run` has no model
// here, so a request in words that the connector's own `which` does not resolve comes back
// `unresolved` with its candidates; name the operation with --operation/--args to run it.
#include "base/json_limits.h"
#include "cli/command.h"
#include "cli/output.h"
#include "connect/manifest.h"
#include "connect/road.h"

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace affordance::cli {
namespace {

using nlohmann::json;
using namespace affordance::connect;

struct Options {
  std::string connectors;
  std::string data;
  bool json = false;
  std::string slug;
  std::vector<std::string> words;
  std::string operation;
  std::string args = "{}";
  int64_t limit = 0;
  std::string mode;
  std::string sql;
};

void Print(const json& j) {
  std::cout << j.dump(-1, ' ', false, json::error_handler_t::replace) << std::endl;
}

Result<std::unique_ptr<ConnectorRoad>> OpenRoad(const Options& o) {
  std::string dir = o.connectors.empty() ? DefaultManifestDir() : o.connectors;
  auto manifests = LoadManifests(dir);
  if (!manifests) return manifests.error();
  RoadOptions options;
  options.data_dir = o.data.empty() ? DefaultDataDir() : o.data;
  return std::make_unique<ConnectorRoad>(std::move(manifests.value()), options);
}

int RunList(const Options& o) {
  auto road = OpenRoad(o);
  if (!road) return ReportError(road.error(), o.json);
  json out = json::array();
  for (const auto& m : (*road)->manifests()) {
    json ops = json::array();
    for (const auto& op : m.operations) {
      json entry = {{"name", op.name},
                    {"kind", ToString(op.kind)},
                    {"description", op.description},
                    {"risk", ToString(op.risk)},
                    {"risk_source", op.risk_source.empty() ? "manifest" : op.risk_source}};
      if (m.source.kind == SourceKind::kMcp) {
        // The server's words (description, schema) are shown as what they are: untrusted.
        entry["trust"] = "untrusted";
        if (!op.mcp_tool.empty()) entry["tool"] = op.mcp_tool;
        entry["args_schema"] = op.args_schema;
        entry["input_schema"] = op.documented_schema;
        entry["unvalidated"] = op.unvalidated;
        if (!op.output_schema.is_null()) entry["output_schema"] = op.output_schema;
        if (!op.verify_operation.empty()) entry["verify"] = op.verify_operation;
      }
      ops.push_back(std::move(entry));
    }
    json modes = json::array();
    for (auto mode : m.modes) modes.push_back(ToString(mode));
    auto snap = (*road)->Snapshot(m.slug);
    out.push_back({{"slug", m.slug},
                   {"title", m.title},
                   {"source", ToString(m.source.kind)},
                   {"modes", modes},
                   {"operations", ops},
                   {"freshness", snap->freshness.state},
                   {"synced_at", snap->freshness.synced_at},
                   {"credential_state", snap->credential_state},
                   {"manifest", m.file},
                   {"mirror", (*road)->MirrorPath(m)}});
    if (m.source.kind == SourceKind::kMcp) out.back()["mcp"] = (*road)->McpStatus(m.slug);
  }
  if (o.json) {
    Print({{"connectors", out}});
    return kExitOk;
  }
  if (out.empty())
    std::cout << "no connectors (manifests are read from "
              << (o.connectors.empty() ? DefaultManifestDir() : o.connectors) << ")\n";
  for (const auto& c : out) {
    std::string modes;
    for (const auto& mode : c["modes"])
      modes += (modes.empty() ? "" : ",") + mode.get<std::string>();
    std::printf("%-16s %-12s %-16s %-9s %s\n", c["slug"].get<std::string>().c_str(),
                c["source"].get<std::string>().c_str(), modes.c_str(),
                c["freshness"].get<std::string>().c_str(), c["title"].get<std::string>().c_str());
  }
  return kExitOk;
}

int RunSync(const Options& o) {
  auto road = OpenRoad(o);
  if (!road) return ReportError(road.error(), o.json);
  bool tty = isatty(STDERR_FILENO);
  std::string last_phase;
  auto progress = [&](const SyncProgress& p) {
    if (tty) {
      int width = 30;
      int filled = p.total > 0 ? static_cast<int>(width * p.done / p.total) : 0;
      std::fprintf(stderr, "\r%s [%s%s] %3d%% %-6s %lld/%lld", o.slug.c_str(),
                   std::string(static_cast<size_t>(filled), '#').c_str(),
                   std::string(static_cast<size_t>(width - filled), ' ').c_str(),
                   p.total > 0 ? static_cast<int>(100 * p.done / p.total) : 0, p.phase.c_str(),
                   static_cast<long long>(p.done), static_cast<long long>(p.total));
      std::fflush(stderr);
    } else {
      std::fprintf(stderr, "sync %s: %s %lld/%lld\n", o.slug.c_str(), p.phase.c_str(),
                   static_cast<long long>(p.done), static_cast<long long>(p.total));
    }
  };
  auto report = (*road)->Sync(o.slug, progress);
  if (tty) std::fprintf(stderr, "\n");
  if (!report) return ReportError(report.error(), o.json);
  if (o.json) {
    Print({{"connector", report->connector},
           {"rows", report->rows},
           {"synced_at", report->synced_at},
           {"source", report->source}});
  } else {
    std::cout << "synced " << report->connector << ": " << report->rows << " rows\n";
  }
  return kExitOk;
}

int RunRun(const Options& o) {
  auto road = OpenRoad(o);
  if (!road) return ReportError(road.error(), o.json);
  json input = {{"connector", o.slug}};
  if (!o.operation.empty()) {
    if (auto deep = CheckInputDepth(o.args, "--args"); !deep) {
      return ReportError(deep.error(), o.json, kExitUsage);
    }
    json args = json::parse(o.args, nullptr, false);
    if (args.is_discarded()) {
      return ReportError(MakeError(ErrorKind::kInvalid, "connect.bad_args",
                                   "--args is not valid JSON", JsonSyntaxErrorIn(o.args, "--args")),
                         o.json, kExitUsage);
    }
    input["request"] = {{"operation", o.operation}, {"args", args}};
  } else {
    std::string words;
    for (const auto& w : o.words) words += (words.empty() ? "" : " ") + w;
    if (words.empty()) {
      return ReportError(MakeError(ErrorKind::kInvalid, "connect.bad_request",
                                   "give the request in words or name --operation"),
                         o.json, kExitUsage);
    }
    input["request"] = words;
  }
  if (o.limit > 0) input["limit"] = o.limit;
  if (!o.mode.empty()) input["mode"] = o.mode;
  auto command = ParseConnectorCommand(input);
  if (!command) return ReportError(command.error(), o.json, kExitUsage);
  auto result = (*road)->RunConnectorCommand(*command);
  if (!result) return ReportError(result.error(), o.json);
  json j = ToJson(*result);
  if (o.json) {
    Print(j);
  } else {
    for (const auto& row : j["rows"]) Print(row);
    std::cerr << j["status"].get<std::string>() << ": " << j["returned_rows"] << " of "
              << j["total_rows"] << " rows" << (result->truncated ? " (truncated)" : "")
              << ", served by " << result->mirror_snapshot.serving_decision << " ("
              << result->mirror_snapshot.freshness.state << ")\n";
    if (result->status == "unresolved") {
      std::cerr << result->unresolved_reason << "\ncandidates:";
      for (const auto& c : result->candidates) std::cerr << " " << c.operation;
      std::cerr << "\n";
    }
  }
  std::cout.flush();
  return kExitOk;
}

int RunSql(const Options& o) {
  auto road = OpenRoad(o);
  if (!road) return ReportError(road.error(), o.json);
  auto rows = (*road)->Sql(o.slug, o.sql, json::object(), o.limit > 0 ? o.limit : -1);
  if (!rows) return ReportError(rows.error(), o.json);
  if (o.json) {
    Print({{"columns", rows->columns}, {"rows", rows->rows}, {"truncated", rows->truncated}});
    return kExitOk;
  }
  for (const auto& row : rows->rows) Print(row);
  if (rows->truncated) std::cerr << "(truncated: " << rows->truncated_reason << ")\n";
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"connector", "List, sync and query connectors (the one road to external data)",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<Options>();
       sub.add_option("--connectors", o->connectors, "Folder of connector manifests (*.json)");
       sub.add_option("--data", o->data, "Folder of connector mirrors");
       sub.add_flag("--json", o->json, "Print JSON");
       sub.require_subcommand(1);
       CLI::App* list = sub.add_subcommand("list", "List connectors with modes and freshness");
       CLI::App* sync = sub.add_subcommand("sync", "Sync a connector's mirror now");
       sync->add_option("connector", o->slug, "Connector slug")->required();
       CLI::App* run = sub.add_subcommand("run", "RunConnectorCommand: rows plus capability");
       run->add_option("connector", o->slug, "Connector slug")->required();
       run->add_option("request", o->words, "The request in words");
       run->add_option("--operation", o->operation, "Run this operation directly");
       run->add_option("--args", o->args, "Operation arguments as a JSON object");
       run->add_option("--limit", o->limit, "Maximum rows");
       run->add_option("--mode", o->mode, "live | local | auto");
       CLI::App* sql = sub.add_subcommand("sql", "One read-only SELECT against the mirror");
       sql->add_option("connector", o->slug, "Connector slug")->required();
       sql->add_option("query", o->sql, "The SELECT statement")->required();
       sql->add_option("--limit", o->limit, "Maximum rows");
       for (CLI::App* s : {list, sync, run, sql}) s->fallthrough();
       return [o, list, sync, run, sql] {
         if (list->parsed()) return RunList(*o);
         if (sync->parsed()) return RunSync(*o);
         if (run->parsed()) return RunRun(*o);
         if (sql->parsed()) return RunSql(*o);
         return kExitUsage;
       };
     }});

}  // namespace
}  // namespace affordance::cli
