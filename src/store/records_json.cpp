// The JSON form of the store's records: one writer for each, used by every door that shows them
// (the CLI's --json, the MCP tools, the HTTP API), so a field cannot go missing at one of them.
#include "store/store.h"

namespace affordance::store {

using nlohmann::json;

json GrantRecord::ToJson() const {
  return {{"id", id},
          {"scope", scope},
          {"access", access},
          {"grantedBy", granted_by},
          {"createdMs", created_ms},
          {"expiresMs", expires_ms},
          {"revokedMs", revoked_ms},
          {"revokedBy", revoked_by}};
}

json ActivityRecord::ToJson() const {
  return {{"seq", seq},         {"atMs", at_ms},  {"kind", kind},
          {"subject", subject}, {"actor", actor}, {"data", data}};
}

json ArtifactRecord::ToJson() const {
  return {{"id", id},
          {"kind", kind},
          {"appSlug", app_slug},
          {"title", title},
          {"threadId", thread_id},
          {"head", head},
          {"createdMs", created_ms},
          {"updatedMs", updated_ms}};
}

json ArtifactVersionRecord::ToJson() const {
  return {{"version", version},
          {"parent", parent},
          {"body", body},
          {"patch", patch},
          {"bindings", bindings},
          {"messageId", message_id},
          {"toolCallId", tool_call_id},
          {"surfaceId", surface_id},
          {"createdMs", created_ms}};
}

}  // namespace affordance::store
