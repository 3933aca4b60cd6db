// Edit mode: merging a patch (only the statements that changed) into an existing program.
#pragma once

#include "base/result.h"

#include <string>
#include <string_view>

namespace affordance::surface {

// lang-core's mergeStatements(): patch statements replace existing ones by name (keeping their
// position), new names are appended, `name = null` deletes, and statements unreachable from
// `root_id` are dropped ($state statements are always kept; without a root nothing is dropped).
// Fences around the patch are removed. Returns the merged program text, one statement per line.
//
// Unlike lang-core (which returns the patch as the whole program), a patch with no existing
// program is an error: "surface.patch_without_program".
Result<std::string> MergeProgram(std::string_view existing, std::string_view patch,
                                 std::string_view root_id = "root");

}  // namespace affordance::surface
