// RunConnectorCommand (resident), the one read road, and the deferred read operations
// <slug>__<operation> it stands for: both authorize the read (grant + Activity) before the road
// runs.
#include "authority/authority.h"
#include "harness/internal/simple_tool.h"
#include "harness/tools.h"

#include <cctype>

namespace affordance::harness {
namespace {

const bool declared_RunConnectorCommand = authority::DeclareCapability(
    ToolCapability("RunConnectorCommand", "connector", "read", authority::Mode::kRead,
                   "the one read road", "connector:<slug>:read"));
const bool declared_connector_operation = authority::DeclareCapability(
    ToolCapability("connector_operation", "connector", "read", authority::Mode::kRead,
                   "a deferred read operation <slug>__<op>", "connector:<slug>:read"));

// Reads need grants: the read grant of the connector (or of the named operation) is checked, and
// the read is written to Activity, before the road runs anything.
Status AuthorizeRead(authority::Authority* authority, const std::string& connector,
                     const std::string& operation) {
  if (authority == nullptr) return {};
  return authority->AuthorizeRead(connector, operation, authority::Actor::Model());
}

std::string NamedOperation(const nlohmann::json& request) {
  if (!request.is_object()) return "";
  const auto& op = request.value("operation", nlohmann::json());
  return op.is_string() ? op.get<std::string>() : "";
}

ToolOutcome ConnectorOutcome(Result<connect::ConnectorResult> result) {
  if (!result) return ToolOutcome::Fail(result.error());
  const connect::ConnectorResult& r = *result;
  ToolOutcome o = ToolOutcome::Ok(connect::ToJson(r));
  o.data_state = DataStateOf(r.mirror_snapshot.freshness.state, r.mirror_snapshot.credential_state,
                             r.status == "partial");
  o.connector = r.connector;
  if (r.status != "unresolved") o.rows = r.returned_rows;
  o.synced_at = r.mirror_snapshot.freshness.synced_at;
  return o;
}

class RunConnectorCommand final : public SimpleTool {
 public:
  RunConnectorCommand(connect::ConnectorRoad* road, authority::Authority* authority)
      : SimpleTool({"RunConnectorCommand", "", {}}), road_(road), authority_(authority) {
    nlohmann::ordered_json connector = {{"type", "string"}};
    std::string slugs;
    if (road_ != nullptr && !road_->manifests().empty()) {
      nlohmann::ordered_json names = nlohmann::ordered_json::array();
      for (const auto& m : road_->manifests()) {
        names.push_back(m.slug);
        slugs += (slugs.empty() ? "" : ", ") + m.slug;
      }
      connector["enum"] = names;
    }
    spec_.description =
        "The one road to external data: read a connector. request is the user's words (a string) "
        "or {\"operation\": name, \"args\": {...}} for an exact operation. Returns rows with their "
        "operation ledger, query handles and freshness." +
        (slugs.empty() ? std::string(" No connector is configured.")
                       : " Connectors: " + slugs + ".");
    spec_.parameters = nlohmann::ordered_json::parse(R"({"type": "object", "properties": {
        "connector": {}, "request": {"type": ["string", "object"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500},
        "mode": {"type": "string", "enum": ["auto", "local", "live"]}},
        "required": ["connector", "request"], "additionalProperties": false})");
    spec_.parameters["properties"]["connector"] = connector;
  }

  ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) override {
    if (road_ == nullptr) {
      return ToolOutcome::Fail(
          MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                    "no connector is configured (affordance chat --connectors DIR)"));
    }
    auto command = connect::ParseConnectorCommand(input);
    if (!command) return ToolOutcome::Fail(command.error());
    if (road_->Find(command->connector) != nullptr) {
      Status allowed =
          AuthorizeRead(authority_, command->connector, NamedOperation(command->request));
      if (!allowed) return ToolOutcome::Fail(allowed.error());
    }
    return ConnectorOutcome(road_->RunConnectorCommand(*command, ctx.chooser));
  }

 private:
  connect::ConnectorRoad* road_;
  authority::Authority* authority_;
};

class ConnectorOperation final : public SimpleTool {
 public:
  ConnectorOperation(connect::ConnectorRoad& road, authority::Authority* authority,
                     const connect::ConnectorManifest& m, const connect::Operation& op)
      : SimpleTool({OperationToolName(m.slug, op.name),
                    m.title + ": " + op.description + " (connector " + m.slug + ", operation " +
                        op.name + ")",
                    nlohmann::ordered_json::parse(op.args_schema.is_object()
                                                      ? op.args_schema.dump()
                                                      : std::string(R"({"type":"object"})")),
                    "connector_operation"}),
        road_(road),
        authority_(authority),
        slug_(m.slug),
        operation_(op.name) {}

  ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) override {
    connect::ConnectorCommand command;
    command.connector = slug_;
    command.request = {{"operation", operation_}, {"args", input}};
    if (Status allowed = AuthorizeRead(authority_, slug_, operation_); !allowed) {
      return ToolOutcome::Fail(allowed.error());
    }
    return ConnectorOutcome(road_.RunConnectorCommand(command, ctx.chooser));
  }

 private:
  connect::ConnectorRoad& road_;
  authority::Authority* authority_;
  std::string slug_;
  std::string operation_;
};

}  // namespace

std::string OperationToolName(const std::string& slug, const std::string& operation) {
  std::string name;
  for (char c : slug + "__" + operation) {
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_');
  }
  if (name.size() > 64) name.resize(64);
  return name;
}

std::unique_ptr<Tool> MakeRunConnectorCommand(connect::ConnectorRoad* road,
                                              authority::Authority* authority) {
  return std::make_unique<RunConnectorCommand>(road, authority);
}

std::vector<std::unique_ptr<Tool>> MakeConnectorOperations(connect::ConnectorRoad& road,
                                                           authority::Authority* authority) {
  std::vector<std::unique_ptr<Tool>> out;
  for (const auto& m : road.manifests()) {
    for (const auto& op : m.operations) {
      if (!op.readable()) continue;
      out.push_back(std::make_unique<ConnectorOperation>(road, authority, m, op));
    }
  }
  return out;
}

}  // namespace affordance::harness
