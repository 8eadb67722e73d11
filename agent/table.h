// The one printer of tables for people (kopt db, kopt suites, kopt bench):
// columns sized to their contents, one column allowed to wrap so that a row
// stays within a terminal's width; or the same table as Markdown (kopt
// bench's table, pasted into reports as it is).
#pragma once

#include <string>
#include <vector>

namespace kopt {

class Table {
 public:
  enum class Align { kLeft, kRight };
  // `wraps`: this column's cells break at spaces onto continuation lines when
  // the table would be wider than `width` (at most one such column).
  Table& column(std::string header, Align align = Align::kLeft, bool wraps = false);
  Table& row(std::vector<std::string> cells);
  // The table, each line at most `width` characters where the wrapping
  // column can take the excess (a cell that is one word longer is cut).
  std::string render(size_t width = 120) const;
  // The table as Markdown: "| a | b |", a "|---|---|" line, then the rows.
  std::string markdown() const;

 private:
  struct Column {
    std::string header;
    Align align;
    bool wraps;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Lines of at most `width` characters, broken at spaces; a word longer than
// `width` is cut.
std::vector<std::string> wrap_words(const std::string& text, size_t width);

}  // namespace kopt
