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
// local (a local database that is its own source), mirrored, syncing, stale, partial (some of the
// read's detail reads failed: items may be missing), empty, disconnected. They travel with the
// evidence into the ledger and the turn report. Every freshness state the connector road reports
// (connect::kFreshnessStates) has its own data state of the same name.
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

enum class DataState {
  kLive,
  kLocal,
  kMirrored,
  kSyncing,
  kStale,
  kPartial,
  kEmpty,
  kDisconnected,
};

// Every data state, strongest first (what DataStrength orders by).
const std::vector<DataState>& AllDataStates();

std::string_view TruthName(TruthState state);
std::optional<TruthState> ParseTruth(std::string_view name);
std::string_view DataStateName(DataState state);
std::optional<DataState> ParseDataState(std::string_view name);

// The data state of a connector read from its mirror snapshot: the credential state ("missing" /
// "rejected" make a source disconnected), else a partial read (`partial`: the result's status is
// "partial") is partial, else the freshness state names its own data state. A freshness state
// that names none is "empty" (claims nothing); the road reports none such (a test enumerates
// connect::kFreshnessStates against this function).
DataState DataStateOf(std::string_view freshness, std::string_view credential_state,
                      bool partial = false);

// How strong the evidence of a data state is, for "the weakest true state" of a report: live is
// the strongest, then local, mirrored, syncing, stale, partial, empty; disconnected the weakest.
int DataStrength(DataState state);

}  // namespace affordance::harness
