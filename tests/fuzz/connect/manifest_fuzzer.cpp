// Arbitrary bytes as a connector manifest: either a valid manifest or a connect.manifest_invalid
// (or connect.too_deep, nested deeper than kMaxJsonDepth) error with a message; never a crash, an
// exception or a half-valid manifest.
#include "connect/manifest.h"
#include "connect/schema.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto m = affordance::connect::ParseManifest(text, "/fuzz/manifest.json");
  if (!m.ok()) {
    const std::string& code = m.error().code;
    if ((code != "connect.manifest_invalid" && code != "connect.too_deep") ||
        m.error().message.empty()) {
      std::abort();
    }
    return 0;
  }
  // A manifest that loaded keeps its promises: operations exist, schemas check, fan-out targets
  // are detail operations.
  if (m->operations.empty() || m->modes.empty() || m->slug.empty()) std::abort();
  for (const auto& op : m->operations) {
    if (!affordance::connect::CheckSchema(op.args_schema, "/args").ok()) std::abort();
    if (!op.detail_operation.empty()) {
      const auto* d = m->FindOperation(op.detail_operation);
      if (!d || d->kind != affordance::connect::OperationKind::kDetail) std::abort();
    }
    (void)affordance::connect::ValidateArgs(op.args_schema,
                                            nlohmann::json::parse(text, nullptr, false, true));
  }
  return 0;
}
