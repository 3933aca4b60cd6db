// What every tool file of the harness shares (internal to src/harness): a tool with a fixed spec,
// and a tool's declaration in the capability registry (door "tool").
#pragma once

#include "authority/capability.h"
#include "harness/tool.h"

#include <string>
#include <utility>

namespace affordance::harness {

inline authority::Capability ToolCapability(std::string name, std::string object,
                                            std::string action, authority::Mode mode,
                                            std::string description, std::string grant = "") {
  return authority::ClientCapability("tool", std::move(name), std::move(object), std::move(action),
                                     mode, std::move(description), std::move(grant));
}

class SimpleTool : public Tool {
 public:
  explicit SimpleTool(ToolSpec spec) : spec_(std::move(spec)) {}
  const ToolSpec& spec() const override { return spec_; }

 protected:
  ToolSpec spec_;
};

}  // namespace affordance::harness
