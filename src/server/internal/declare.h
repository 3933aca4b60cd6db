// How the server's HTTP routes are declared in the capability registry (door "http"): one builder
// for routes.cpp and artifact_api.cpp.
#pragma once

#include "authority/capability.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace affordance::server::internal {

inline authority::Capability Http(std::string name, std::string object, std::string action,
                                  authority::Access access, authority::Mode mode,
                                  std::string description,
                                  nlohmann::json params = nlohmann::json::object(),
                                  nlohmann::json result = nlohmann::json::object(),
                                  std::string proof = "", std::string grant = "",
                                  std::string receipt = "") {
  authority::Capability c;
  c.door = "http";
  c.name = std::move(name);
  c.object = std::move(object);
  c.action = std::move(action);
  c.access = access;
  c.mode = mode;
  c.grant = std::move(grant);
  c.receipt = std::move(receipt);
  c.params = std::move(params);
  c.result = std::move(result);
  c.proof = std::move(proof);
  c.description = std::move(description);
  return c;
}

// A JSON Schema object with these properties.
inline nlohmann::json Obj(nlohmann::json properties,
                          nlohmann::json required = nlohmann::json::array()) {
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

}  // namespace affordance::server::internal
