#include "harness/truth.h"

#include <array>
#include <utility>

namespace affordance::harness {
namespace {

constexpr std::array<std::pair<TruthState, std::string_view>, 9> kTruth = {{
    {TruthState::kEmitted, "emitted"},
    {TruthState::kParsed, "parsed"},
    {TruthState::kExecuted, "executed"},
    {TruthState::kPersisted, "persisted"},
    {TruthState::kPainted, "painted"},
    {TruthState::kHydrated, "hydrated"},
    {TruthState::kApproved, "approved"},
    {TruthState::kVerified, "verified"},
    {TruthState::kOutcomeUnknown, "execution_outcome_unknown"},
}};

// Strongest first.
constexpr std::array<std::pair<DataState, std::string_view>, 8> kData = {{
    {DataState::kLive, "live"},
    {DataState::kLocal, "local"},
    {DataState::kMirrored, "mirrored"},
    {DataState::kSyncing, "syncing"},
    {DataState::kStale, "stale"},
    {DataState::kPartial, "partial"},
    {DataState::kEmpty, "empty"},
    {DataState::kDisconnected, "disconnected"},
}};

}  // namespace

std::string_view TruthName(TruthState state) {
  for (const auto& [s, name] : kTruth) {
    if (s == state) return name;
  }
  return "emitted";
}

std::optional<TruthState> ParseTruth(std::string_view name) {
  for (const auto& [s, n] : kTruth) {
    if (n == name) return s;
  }
  return std::nullopt;
}

std::string_view DataStateName(DataState state) {
  for (const auto& [s, name] : kData) {
    if (s == state) return name;
  }
  return "empty";
}

std::optional<DataState> ParseDataState(std::string_view name) {
  for (const auto& [s, n] : kData) {
    if (n == name) return s;
  }
  return std::nullopt;
}

const std::vector<DataState>& AllDataStates() {
  static const std::vector<DataState> all = [] {
    std::vector<DataState> v;
    v.reserve(kData.size());
    for (const auto& [s, name] : kData) v.push_back(s);
    return v;
  }();
  return all;
}

DataState DataStateOf(std::string_view freshness, std::string_view credential_state, bool partial) {
  if (credential_state == "missing" || credential_state == "rejected") {
    return DataState::kDisconnected;
  }
  if (partial) return DataState::kPartial;
  return ParseDataState(freshness).value_or(DataState::kEmpty);
}

int DataStrength(DataState state) {
  for (size_t i = 0; i < kData.size(); ++i) {
    if (kData[i].first == state) return static_cast<int>(kData.size() - i);
  }
  return 0;
}

}  // namespace affordance::harness
