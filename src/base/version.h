// Which source a running binary was built from.
#pragma once

namespace affordance {

// The project version, e.g. "0.1.0".
const char* Version();
// The full git commit hash the binary was built from, suffixed "-dirty" when the working tree had
// uncommitted changes, or "unknown" outside a git checkout.
const char* GitCommit();

}  // namespace affordance
