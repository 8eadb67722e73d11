#include "agent/table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kopt {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// For people: columns as wide as their widest cell ("µs" one column wide),
// numbers to the right, and the wrapping column keeps every line within the
// width asked.
TEST(TableTest, RendersAlignedColumnsAndWrapsOneToTheWidth) {
  Table t;
  t.column("shape").column("µs", Table::Align::kRight).column("idea", Table::Align::kLeft, true);
  t.row({"7168x9216", "13.04", "lanes over K with every row at once in integer arithmetic"});
  t.row({"384x5120", "2.5", "short"});
  const std::vector<std::string> wide = lines_of(t.render(200));
  ASSERT_EQ(wide.size(), 3u);
  EXPECT_EQ(wide[1].find("13.04"), wide[2].find("  2.5"));
  const std::vector<std::string> narrow = lines_of(t.render(40));
  EXPECT_GT(narrow.size(), 3u);
  for (const auto& line : narrow) EXPECT_LE(line.size(), 40u) << line;
}

// kopt bench's table: the same rows as Markdown, cells as given.
TEST(TableTest, MarkdownHasAHeaderASeparatorAndTheRows) {
  Table t;
  t.column("shape").column("MB").column("klanes µs");
  t.row({"16x384x5120", "0.99", "6.98"});
  t.row({"16x512x7168", "1.84"});  // a short row is filled with empty cells
  EXPECT_EQ(t.markdown(),
            "| shape | MB | klanes µs |\n"
            "|---|---|---|\n"
            "| 16x384x5120 | 0.99 | 6.98 |\n"
            "| 16x512x7168 | 1.84 |  |\n");
}

}  // namespace
}  // namespace kopt
