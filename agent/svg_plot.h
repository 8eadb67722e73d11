// Small inline-SVG charts for `kopt report`: a line chart of steps (best so
// far against candidates or time) and a scatter plot with reference lines.
// Written by kopt so the report is one self-contained file with nothing
// fetched and no script to run.
#pragma once

#include <string>
#include <vector>

namespace kopt {

struct PlotPoint {
  double x = 0, y = 0;
  std::string tip;  // shown on hover (an SVG <title>)
};

struct PlotSeries {
  std::string name;
  std::string color;  // CSS colour
  std::vector<PlotPoint> points;
  bool steps = false;  // draw as a staircase (best so far), else markers only
};

struct ReferenceLine {
  double y = 0;
  std::string label;
  std::string color;
};

struct PlotOptions {
  std::string title;
  std::string x_label, y_label;
  bool log_x = false;
  bool y_from_zero = true;
  bool x_from_zero = false;          // the x axis starts at 0 (time since a start)
  bool integer_x = false;            // x counts things (candidates): whole-number ticks only
  std::vector<ReferenceLine> lines;  // horizontal
};

// An <svg> element of a fixed size (every plot the same, so its type is the
// same size in every plot; CSS may shrink it on a narrow page), with axes,
// ticks, a legend, and `class="kopt-plot"` for tests to find. Empty series
// give a plot that says "no data".
std::string svg_plot(const std::vector<PlotSeries>& series, const PlotOptions& options);

// Text made safe for HTML and SVG.
std::string html_escape(const std::string& text);

// The colour the report gives a proposer (seed, mutator, each model).
std::string proposer_color(const std::string& proposer, size_t index);

}  // namespace kopt
