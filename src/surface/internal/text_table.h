// The layout of a table as text (text_render.cpp): aligned columns whose widths come from their
// content, shrunk (cells cut with "…") or dropped from the right when the table is wider than the
// line, and notes saying what is not shown.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace affordance::surface::internal {

struct TableColumn {
  std::string header;              // printable
  std::vector<std::string> cells;  // printable; at least the rows that are shown
  bool numeric = false;            // right-aligned, header included
};

struct TableModel {
  std::vector<TableColumn> columns;
  size_t rows = 0;          // rows the table has
  bool truncated = false;   // the source holds more rows than it sent
  std::string unavailable;  // why its rows could not be read ("" when they were)
};

// The header, a rule, at most `max_rows` rows, then one line per note: "… N more rows",
// "… N more columns: A, B" (columns that do not fit even cut to 4
// columns each), "No rows", or
// "⚠ rows unavailable: <why>" (then no rows at all; the reason is wrapped, not cut, when the
// width is narrow). Every line is at most `width` columns.
std::vector<std::string> TableLines(const TableModel& table, size_t width, bool color,
                                    size_t max_rows);

}  // namespace affordance::surface::internal
