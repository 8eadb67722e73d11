#include "agent/table.h"

#include <algorithm>

namespace kopt {

namespace {

// Display width: UTF-8 continuation bytes take no column ("µs", "—").
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(const std::string& s, size_t width, Table::Align align) {
  const size_t w = display_width(s);
  if (w >= width) return s;
  const std::string fill(width - w, ' ');
  return align == Table::Align::kLeft ? s + fill : fill + s;
}

}  // namespace

std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t at = 0;
  width = std::max<size_t>(width, 1);
  while (at < text.size()) {
    const size_t space = text.find(' ', at);
    std::string word = text.substr(at, space == std::string::npos ? std::string::npos : space - at);
    at = space == std::string::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    while (display_width(word) > width) {  // one word longer than the column
      lines.push_back(word.substr(0, width));
      word = word.substr(width);
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

Table& Table::column(std::string header, Align align, bool wraps) {
  columns_.push_back({std::move(header), align, wraps});
  return *this;
}

Table& Table::row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

std::string Table::render(size_t width) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (const auto& r : rows_) widths[c] = std::max(widths[c], display_width(r[c]));
  }
  size_t total = columns_.empty() ? 0 : 2 * (columns_.size() - 1);
  for (size_t w : widths) total += w;
  for (size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c].wraps && total > width) {
      const size_t others = total - widths[c];
      widths[c] = std::max<size_t>(std::max<size_t>(display_width(columns_[c].header), 12),
                                   width > others ? width - others : 0);
      break;
    }
  auto line = [&](const std::vector<std::vector<std::string>>& cells, size_t i) {
    std::string out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = i < cells[c].size() ? cells[c][i] : std::string();
      const bool last = c + 1 == columns_.size();
      // The last column is not padded: no trailing spaces.
      out += last && columns_[c].align == Align::kLeft ? cell
                                                       : pad(cell, widths[c], columns_[c].align);
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  std::vector<std::vector<std::string>> header;
  for (const auto& col : columns_) header.push_back({col.header});
  out += line(header, 0);
  for (const auto& r : rows_) {
    std::vector<std::vector<std::string>> cells;
    size_t height = 1;
    for (size_t c = 0; c < columns_.size(); ++c) {
      cells.push_back(columns_[c].wraps ? wrap_words(r[c], widths[c])
                                        : std::vector<std::string>{r[c]});
      height = std::max(height, cells.back().size());
    }
    for (size_t i = 0; i < height; ++i) out += line(cells, i);
  }
  return out;
}

std::string Table::markdown() const {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& cell : cells) out += " " + cell + " |";
    return out + "\n";
  };
  std::vector<std::string> headers;
  for (const auto& c : columns_) headers.push_back(c.header);
  std::string out = line(headers) + "|";
  for (size_t c = 0; c < columns_.size(); ++c) out += "---|";
  out += "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace kopt
