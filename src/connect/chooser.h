// The chooser: how an unresolved request gets a bounded, focused step.
//
// When a request names no operation and the connector's own `which` does not resolve it
// completely, RunConnectorCommand asks a Chooser (the harness implements it with the model; tests
// use a scripted one) to pick ONE operation of THIS connector and its arguments. Each choice is
// validated (the operation must be one of the candidates, the arguments must satisfy its schema)
// and run; a validation or SQL error is handed back in the next ChoiceRequest so the chooser can
// correct itself, for at most `max_steps` choices. The road never substitutes another connector
// or operation on its own and never reads the request text: if the chooser gives up, or the steps
// run out, the result is `unresolved` with the candidates.
#pragma once

#include "base/result.h"
#include "connect/manifest.h"
#include "connect/result.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace affordance::connect {

struct ChoiceRequest {
  std::string connector;  // the slug; choices are confined to it
  std::string title;
  std::string request;                // the user's words, verbatim
  std::vector<Candidate> candidates;  // every readable operation; `which` hints first when present
  std::vector<MirrorTable> mirror_tables;  // for writing SQL against the mirror
  int step = 1;                            // 1-based
  int max_steps = 3;
  std::optional<Error> previous_error;  // why the previous choice failed
  nlohmann::json previous_choice;       // {operation, args} of that choice, null on step 1
};

struct Choice {
  // Empty `operation` means "give up": the result is unresolved with `reason`.
  std::string operation;
  nlohmann::json args = nlohmann::json::object();
  std::string reason;
};

class Chooser {
 public:
  virtual ~Chooser() = default;
  // Picks one operation and its arguments, or gives up. An Error aborts the command with that
  // error (e.g. the model provider failed).
  virtual Result<Choice> Choose(const ChoiceRequest& request) = 0;
};

}  // namespace affordance::connect
