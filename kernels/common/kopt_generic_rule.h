// How the library picks a generic kernel for a shape it has no tuned entry
// for, from times `kopt export --measure-generic` measured for every generic
// variant on a set of probe shapes. Header-only and dependency-free: each
// problem's library runs it when weights are prepared, and `kopt export`
// runs the same code to check the rule on shapes it leaves out
// (leave-one-out). A shape is seen through two of its variables, x and y
// (the problem's LibrarySpec names them: K and N for a GEMV).
#pragma once

#include <cmath>

#define KOPT_MAX_GENERIC_VARIANTS 16

// One probe shape and each variant's median time there, in µs (0: the
// variant does not run that shape, or failed there).
struct KoptGenericProbe {
  long long x, y;
  float us[KOPT_MAX_GENERIC_VARIANTS];
};

// The variant (index into the generic table) for shape (x, y): among the
// `supported` variants, the one whose time relative to the fastest variant
// is lowest on average (geometric mean, weighted by inverse squared
// distance) over the `neighbours` probes nearest in (log2 x, log2 y) — for a
// GEMV a shape's cost is set by how long each row is (K) and how many
// columns share the GPU (N), both scale-like, and a far probe says little.
// A variant with no time at a neighbour counts there as twice the fastest
// (it was not measured there, so it is not trusted there). Probe `skip` is
// ignored (leave-one-out checks; -1 for none). Returns -1 when no variant is
// supported.
inline int kopt_choose_generic(long long x, long long y, const KoptGenericProbe* probes,
                               int probe_count, int variants, const bool* supported,
                               int neighbours = 4, int skip = -1) {
  if (variants > KOPT_MAX_GENERIC_VARIANTS) variants = KOPT_MAX_GENERIC_VARIANTS;
  int first_supported = -1;
  for (int v = 0; v < variants && first_supported < 0; ++v)
    if (supported[v]) first_supported = v;
  if (first_supported < 0) return -1;
  // The nearest probes, kept sorted (neighbours is small).
  const int kMaxNeighbours = 8;
  if (neighbours > kMaxNeighbours) neighbours = kMaxNeighbours;
  int nearest[kMaxNeighbours];
  double distance[kMaxNeighbours];
  int found = 0;
  const double lx = std::log2((double)x), ly = std::log2((double)y);
  for (int p = 0; p < probe_count; ++p) {
    if (p == skip) continue;
    const double dx = std::log2((double)probes[p].x) - lx, dy = std::log2((double)probes[p].y) - ly;
    const double d = dx * dx + dy * dy;
    int at = found < neighbours ? found++ : neighbours;
    while (at > 0 && distance[at - 1] > d) {
      if (at < neighbours) nearest[at] = nearest[at - 1], distance[at] = distance[at - 1];
      --at;
    }
    if (at < neighbours) nearest[at] = p, distance[at] = d;
  }
  int best = first_supported;
  double best_score = 1e300;
  for (int v = 0; v < variants; ++v) {
    if (!supported[v]) continue;
    double score = 0, weight = 0;
    for (int i = 0; i < found; ++i) {
      const KoptGenericProbe& p = probes[nearest[i]];
      float fastest = 0;
      for (int u = 0; u < variants; ++u)
        if (p.us[u] > 0 && (fastest == 0 || p.us[u] < fastest)) fastest = p.us[u];
      if (fastest == 0) continue;  // nothing ran there: says nothing
      const double w = 1.0 / (distance[i] + 0.05);
      score += w * (p.us[v] > 0 ? std::log((double)p.us[v] / fastest) : std::log(2.0));
      weight += w;
    }
    if (weight == 0) continue;  // no data near this shape: the table order decides
    score /= weight;
    if (score < best_score) best = v, best_score = score;
  }
  return best;
}
