// The store's checks of its input, the same for both backends (store.h names the values): roles,
// statuses, and a turn's end.
#pragma once

#include "base/result.h"

#include <array>
#include <string>

namespace affordance::store::internal {

// "store.bad_input" naming `what` and the allowed values unless `value` is one of them.
template <size_t N>
Status OneOf(const std::string& value, const std::array<const char*, N>& allowed,
             const char* what) {
  std::string list;
  for (const char* a : allowed) {
    if (value == a) return {};
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  return MakeError("store.bad_input",
                   std::string(what) + " \"" + value + "\" is not one of " + list);
}

inline constexpr std::array<const char*, 2> kRoles = {"user", "assistant"};
inline constexpr std::array<const char*, 3> kMessageStatuses = {"running", "complete",
                                                                "interrupted"};
inline constexpr std::array<const char*, 5> kStepStatuses = {"running", "finished", "error",
                                                             "aborted", "interrupted"};

// EndTurn's status ("store.bad_input" otherwise).
inline Status CheckTurnEnd(const std::string& status) {
  if (status == "finished" || status == "aborted" || status == "failed" ||
      status == "interrupted") {
    return {};
  }
  return MakeError("store.bad_input", "a turn ends finished, aborted, failed or interrupted",
                   status);
}

}  // namespace affordance::store::internal
