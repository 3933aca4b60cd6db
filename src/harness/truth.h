// Truth states: how far the evidence for a part, a surface or a turn actually goes.
//
// The harness never reports a result as stronger than its proof. Each state names one kind of
// evidence, and a state moves only when that evidence arrives, from the one owner of it:
//
//   emitted    the model's stream produced it (the adapter)
//   parsed     it was parsed into a well-formed value: a complete tool call, a valid program
//   executed   the tool ran and returned a result (the loop)
//   persisted  the store committed it (the store write returned ok)
//   painted    a client acknowledged that it drew the surface (a client acknowledgement)
//   hydrated   a client acknowledged that the surface's live bindings were filled
//   approved   a person approved the staged effect (authority)
//   verified   a fresh read after the write proved the promised effect (authority)
//   execution_outcome_unknown
//              the effect was dispatched but whether it happened is unknown (authority): never
//              retried automatically, only reconciled
//
// Data states describe where connector evidence came from (the mirror snapshot of a read): live,
// mirrored, stale, empty, syncing, disconnected. They travel with the evidence into the ledger and
// the turn report.
//
// A static surface (no Query binding) owes no paint acknowledgement: its strongest required state
// is persisted. Everything here is plain data; nothing in this header moves a state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::harness {

enum class TruthState {
  kEmitted,
  kParsed,
  kExecuted,
  kPersisted,
  kPainted,
  kHydrated,
  kApproved,
  kVerified,
  kOutcomeUnknown,
};

enum class DataState { kLive, kMirrored, kStale, kEmpty, kSyncing, kDisconnected };

std::string_view TruthName(TruthState state);
std::optional<TruthState> ParseTruth(std::string_view name);
std::string_view DataStateName(DataState state);
std::optional<DataState> ParseDataState(std::string_view name);

// The data state of a connector read from its mirror snapshot: the freshness state ("live",
// "mirrored", "stale", "empty", "syncing") and the credential state ("missing" / "rejected" make
// a source disconnected). An unknown freshness state is "empty" (claims nothing).
DataState DataStateOf(std::string_view freshness, std::string_view credential_state);

// How strong the evidence of a data state is, for "the weakest true state" of a report: live is
// the strongest, disconnected the weakest.
int DataStrength(DataState state);

}  // namespace affordance::harness
