#include "base/nearest.h"

#include <algorithm>

namespace affordance {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string NearestName(std::string_view given, const std::vector<std::string>& candidates) {
  std::string nearest;
  size_t best = std::string::npos;
  for (const auto& c : candidates) {
    if (c == given) return "";
    const size_t d = EditDistance(given, c);
    if (d < best) best = d, nearest = c;
  }
  if (nearest.empty() || best > std::max<size_t>(2, given.size() / 3)) return "";
  return nearest;
}

std::string DidYouMean(std::string_view given, const std::vector<std::string>& candidates) {
  const std::string nearest = NearestName(given, candidates);
  return nearest.empty() ? "" : "; did you mean \"" + nearest + "\"?";
}

}  // namespace affordance
