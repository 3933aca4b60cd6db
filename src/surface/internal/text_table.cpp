#include "surface/internal/text_table.h"

#include "surface/internal/text_blocks.h"
#include "text/display_width.h"

#include <algorithm>

namespace affordance::surface::internal {
namespace {

using text::DisplayWidth;
using text::FitWidth;

constexpr size_t kGap = 2;        // spaces between columns
constexpr size_t kMinColumn = 4;  // a column is not cut narrower than this ("Wh…")

std::string Style(bool color, const char* sgr, const std::string& s) {
  return color && !s.empty() ? std::string("\033[") + sgr + "m" + s + "\033[0m" : s;
}

std::string RightTrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string Plural(size_t n, const char* what) {
  return std::to_string(n) + " more " + what + (n == 1 ? "" : "s");
}

// Narrows the widest column that may still shrink, one column at a time, until the table fits;
// then drops columns from the right. Returns how many columns are shown.
size_t Fit(const std::vector<size_t>& natural, std::vector<size_t>& widths, size_t width) {
  size_t shown = widths.size();
  auto total = [&] {
    size_t t = 0;
    for (size_t i = 0; i < shown; ++i) t += widths[i] + (i > 0 ? kGap : 0);
    return t;
  };
  for (size_t t = total(); t > width; t = total()) {
    size_t widest = shown;
    for (size_t i = 0; i < shown; ++i) {
      const size_t floor = std::min(natural[i], kMinColumn);
      if (widths[i] > floor && (widest == shown || widths[i] > widths[widest])) widest = i;
    }
    if (widest < shown) {
      // Down to the next widest column (so the widest share the cut), at most the excess.
      size_t next = 0;
      for (size_t i = 0; i < shown; ++i) {
        if (i != widest) next = std::max(next, widths[i]);
      }
      const size_t floor = std::min(natural[widest], kMinColumn);
      size_t target = std::max({floor, next, widths[widest] - std::min(widths[widest], t - width)});
      widths[widest] = target < widths[widest] ? target : widths[widest] - 1;
    } else if (shown > 1) {
      --shown;
    } else {
      widths[0] = width;
    }
  }
  return shown;
}

std::string Cell(const std::string& text, size_t width, bool right) {
  std::string fitted = FitWidth(text, width);
  return right ? text::PadLeft(fitted, width) : text::PadRight(fitted, width);
}

}  // namespace

std::vector<std::string> TableLines(const TableModel& table, size_t width, bool color,
                                    size_t max_rows) {
  const auto& cols = table.columns;
  if (cols.empty() || width == 0) return {};
  const bool readable = table.unavailable.empty();
  const size_t shown_rows = readable ? std::min(table.rows, max_rows) : 0;
  std::vector<size_t> natural;
  for (const auto& c : cols) {
    size_t w = std::max<size_t>(1, DisplayWidth(c.header));
    for (size_t r = 0; r < shown_rows && r < c.cells.size(); ++r) {
      w = std::max(w, DisplayWidth(c.cells[r]));
    }
    natural.push_back(w);
  }
  std::vector<size_t> widths = natural;
  const size_t shown_cols = Fit(natural, widths, width);

  std::vector<std::string> out;
  std::string header, rule;
  for (size_t c = 0; c < shown_cols; ++c) {
    const std::string sep = c > 0 ? std::string(kGap, ' ') : "";
    header += sep + Cell(cols[c].header, widths[c], cols[c].numeric);
    std::string line;
    for (size_t i = 0; i < widths[c]; ++i) line += "─";
    rule += sep + line;
  }
  out.push_back(Style(color, "1", RightTrim(header)));
  out.push_back(Style(color, "2", rule));
  for (size_t r = 0; r < shown_rows; ++r) {
    std::string row;
    for (size_t c = 0; c < shown_cols; ++c) {
      const std::string& text = r < cols[c].cells.size() ? cols[c].cells[r] : "";
      row += (c > 0 ? std::string(kGap, ' ') : "") + Cell(text, widths[c], cols[c].numeric);
    }
    out.push_back(RightTrim(row));
  }

  auto note = [&](const char* sgr, const std::string& text) {
    out.push_back(Style(color, sgr, FitWidth(text, width)));
  };
  if (!readable) {  // the reason whole, on as many lines as the width needs
    for (const auto& l : WrapHanging("⚠ rows unavailable: " + table.unavailable, width, 2)) {
      note("33", l);
    }
  } else if (table.rows == 0) {
    note("2", table.truncated ? "No rows were sent (the source holds more)" : "No rows");
  } else if (table.rows > shown_rows) {
    note("2", "… " + Plural(table.rows - shown_rows, "row") +
                  (table.truncated ? ", and more the source did not send" : ""));
  } else if (table.truncated) {
    note("2", "… more rows the source did not send");
  }
  if (shown_cols < cols.size()) {
    std::string names;
    for (size_t c = shown_cols; c < cols.size(); ++c) {
      names += (c > shown_cols ? ", " : "") + cols[c].header;
    }
    note("2", "… " + Plural(cols.size() - shown_cols, "column") + ": " + names);
  }
  return out;
}

}  // namespace affordance::surface::internal
