#include "agent/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kopt {

namespace {

// The drawing area inside a 720 x 360 view box (the SVG scales to its box).
constexpr double kWidth = 520, kHeight = 320;
constexpr double kLeft = 64, kRight = 16, kTop = 50, kBottom = 48;
// The legend sits in the top margin, under the title, clear of the data.
constexpr double kLegendY = 30;

// About five round tick values covering [lo, hi]; whole numbers only where
// `integer` (steps of at least 1).
std::vector<double> nice_ticks(double lo, double hi, bool integer = false) {
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = integer ? std::max(1.0, span / 5) : span / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  if (integer) step = std::max(1.0, std::round(step));
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

std::string number(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string proposer_color(const std::string& proposer, size_t index) {
  if (proposer == "seed") return "#6b7280";
  if (proposer == "mutator") return "#2563eb";
  static const char* const kModels[] = {"#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2"};
  return kModels[index % (sizeof kModels / sizeof kModels[0])];
}

std::string svg_plot(const std::vector<PlotSeries>& series, const PlotOptions& o) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  size_t count = 0;
  for (const auto& s : series)
    for (const auto& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || (o.log_x && p.x <= 0)) continue;
      const double x = o.log_x ? std::log10(p.x) : p.x;
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, p.y), y_hi = std::max(y_hi, p.y);
      ++count;
    }
  for (const auto& l : o.lines) y_lo = std::min(y_lo, l.y), y_hi = std::max(y_hi, l.y);
  std::string svg = fmt::format(
      "<svg class=\"kopt-plot\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"{2}\" xmlns=\"http://www.w3.org/2000/svg\">\n<text x=\"{3}\" y=\"18\" "
      "class=\"title\">{2}</text>\n",
      kWidth, kHeight, html_escape(o.title), kLeft);
  if (count == 0)
    return svg +
           fmt::format("<text x=\"{}\" y=\"{}\">no data</text>\n</svg>\n", kLeft, kHeight / 2);
  if (o.y_from_zero) y_lo = std::min(0.0, y_lo);
  if (o.x_from_zero && !o.log_x) x_lo = std::min(0.0, x_lo);
  if (x_hi - x_lo < 1e-12) x_lo -= 0.5, x_hi += 0.5;
  if (y_hi - y_lo < 1e-12) y_hi = y_lo + 1;
  y_hi += (y_hi - y_lo) * 0.08;  // room for a reference line's label at the top
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto sx = [&](double x) {
    return kLeft + ((o.log_x ? std::log10(x) : x) - x_lo) / (x_hi - x_lo) * pw;
  };
  auto sy = [&](double y) { return kTop + ph - (y - y_lo) / (y_hi - y_lo) * ph; };

  // Axes and ticks.
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"frame\"/>\n",
                     kLeft, kTop, pw, ph);
  for (double t : nice_ticks(y_lo, y_hi))
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" class=\"grid\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" class=\"tick\" text-anchor=\"end\">{5}</text>\n",
        kLeft, kLeft + pw, sy(t), kLeft - 6, sy(t) + 4, number(t));
  if (o.log_x) {
    for (double e = std::floor(x_lo); e <= std::ceil(x_hi); ++e) {
      if (e < x_lo - 1e-9 || e > x_hi + 1e-9) continue;
      const double x = kLeft + (e - x_lo) / (x_hi - x_lo) * pw;
      svg += fmt::format(
          "<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n", x,
          kTop + ph + 16, number(std::pow(10, e)));
    }
  } else {
    for (double t : nice_ticks(x_lo, x_hi, o.integer_x))
      svg += fmt::format(
          "<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n", sx(t),
          kTop + ph + 16, number(t));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"middle\">{}</text>\n",
                     kLeft + pw / 2, kHeight - 8, html_escape(o.x_label));
  svg += fmt::format(
      "<text x=\"14\" y=\"{0}\" class=\"label\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
      "{0})\">{1}</text>\n",
      kTop + ph / 2, html_escape(o.y_label));

  // Reference lines, then the series.
  for (const auto& l : o.lines)
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" class=\"ref\"/>"
        "<text x=\"{4}\" y=\"{5:.1f}\" class=\"tick\" text-anchor=\"end\" "
        "fill=\"{3}\">{6}</text>\n",
        kLeft, kLeft + pw, sy(l.y), l.color, kLeft + pw - 4, sy(l.y) - 4, html_escape(l.label));
  double legend_x = kLeft + 8;
  for (const auto& s : series) {
    std::vector<PlotPoint> pts;
    for (const auto& p : s.points)
      if (std::isfinite(p.x) && std::isfinite(p.y) && (!o.log_x || p.x > 0)) pts.push_back(p);
    if (s.steps && pts.size() > 1) {
      std::string path = fmt::format("M{:.1f},{:.1f}", sx(pts[0].x), sy(pts[0].y));
      for (size_t i = 1; i < pts.size(); ++i)
        path += fmt::format(" H{:.1f} V{:.1f}", sx(pts[i].x), sy(pts[i].y));
      svg += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"line\"/>\n", path, s.color);
    }
    for (const auto& p : pts)
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}</title></circle>\n",
          sx(p.x), sy(p.y), s.color, html_escape(p.tip));
    svg += fmt::format(
        "<rect x=\"{:.0f}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{:.0f}\" y=\"{}\" class=\"tick\">{}</text>\n",
        legend_x, kLegendY, s.color, legend_x + 14, kLegendY + 9, html_escape(s.name));
    legend_x += 24 + 7.0 * static_cast<double>(s.name.size());
  }
  return svg + "</svg>\n";
}

}  // namespace kopt
