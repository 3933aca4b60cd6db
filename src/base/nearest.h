// "Did you mean": the nearest of a closed list of names (commands, options, connector slugs) to a
// name a person typed, when it is a likely typo. Edit distance over a list the program owns; never
// a reading of what a person meant (CONVENTIONS: no routing of user language).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace affordance {

// The Levenshtein distance of `a` and `b` (insertions, deletions, substitutions; bytes).
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `given` when it is close enough to be a typo of it (at most
// max(2, |given| / 3) edits away, and not `given` itself); "" otherwise. Ties: the first listed.
std::string NearestName(std::string_view given, const std::vector<std::string>& candidates);

// "; did you mean \"NAME\"?" for NearestName's answer, or "" when there is none.
std::string DidYouMean(std::string_view given, const std::vector<std::string>& candidates);

}  // namespace affordance
