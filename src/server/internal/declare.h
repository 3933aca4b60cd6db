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
  return authority::MakeCapability("http", std::move(name), std::move(object), std::move(action),
                                   access, mode, std::move(description), std::move(params),
                                   std::move(result), std::move(grant), std::move(receipt),
                                   std::move(proof));
}

// A JSON Schema object with these properties.
inline nlohmann::json Obj(nlohmann::json properties,
                          nlohmann::json required = nlohmann::json::array()) {
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

}  // namespace affordance::server::internal
