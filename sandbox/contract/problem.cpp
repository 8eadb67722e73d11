#include "sandbox/contract/problem.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace kopt {

namespace {
constexpr uint32_t kPoisonBits = 0xFFFFFFFFu;  // the NaN the harness writes into y

std::vector<std::unique_ptr<Problem>>& registry() {
  static std::vector<std::unique_ptr<Problem>> problems;
  return problems;
}
std::vector<const Problem*>& registry_view() {
  static std::vector<const Problem*> view;
  return view;
}
}  // namespace

int64_t Shape::var(const std::string& name) const {
  auto it = vars.find(name);
  return it == vars.end() ? 0 : it->second;
}

std::string Shape::name() const {
  if (const Problem* p = find_problem(problem)) return p->shape_name(*this);
  std::string s;
  for (const auto& [k, v] : vars) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

std::string Shape::key() const { return problem + ":" + name(); }

void register_problem(std::unique_ptr<Problem> problem) {
  if (!problem || find_problem(problem->id())) return;
  registry_view().push_back(problem.get());
  registry().push_back(std::move(problem));
}

const std::vector<const Problem*>& registered_problems() { return registry_view(); }

const Problem* find_problem(const std::string& id) {
  for (const Problem* p : registry_view())
    if (p->id() == id) return p;
  return nullptr;
}

Status problem_by_id(const std::string& id, const Problem** out) {
  if (registry_view().empty()) return Status::error("no problem is registered");
  if (id.empty()) {
    *out = registry_view().front();
    return Status();
  }
  if ((*out = find_problem(id))) return Status();
  std::string known;
  for (const Problem* p : registry_view()) known += (known.empty() ? "" : ", ") + p->id();
  return Status::error("unknown problem '" + id + "' (known: " + known + ")");
}

Status parse_shape(const std::string& problem_id, const std::string& text,
                   const ShapeDefaults& defaults, Shape* out) {
  const Problem* p = nullptr;
  KOPT_RETURN_IF_ERROR(problem_by_id(problem_id, &p));
  return p->parse_shape(text, defaults, out);
}

Status parse_shape_key(const std::string& key, Shape* out) {
  const size_t colon = key.find(':');
  if (colon == std::string::npos || colon == 0)
    return Status::error("'" + key + "' is not a shape key (problem:shape)");
  const Problem* p = find_problem(key.substr(0, colon));
  if (!p) return Status::error("'" + key + "': unknown problem '" + key.substr(0, colon) + "'");
  // The key holds every variable: no defaults apply.
  return p->parse_shape(key.substr(colon + 1), {}, out);
}

Status validate_shape(const Shape& shape) {
  const Problem* p = find_problem(shape.problem);
  if (!p) return Status::error("shape of an unknown problem '" + shape.problem + "'");
  return p->validate(shape);
}

int64_t shape_bytes(const Shape& shape) {
  const Problem* p = find_problem(shape.problem);
  return p ? p->bytes_moved(shape) : 0;
}

const Seed* find_seed(const Problem& problem, const std::string& name) {
  for (const Seed& s : problem.seeds())
    if (s.name == name) return &s;
  return nullptr;
}

std::string seed_names(const Problem& problem) {
  std::string names;
  for (const Seed& s : problem.seeds()) names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

Status find_suite(const Problem& problem, const std::string& name, const ShapeDefaults& defaults,
                  Suite* out) {
  std::string known;
  for (auto& s : problem.suites(defaults)) {
    if (s.name == name) {
      *out = std::move(s);
      return Status();
    }
    known += (known.empty() ? "" : ", ") + s.name;
  }
  return Status::error("unknown suite '" + name + "' of " + problem.id() + " (known: " + known +
                       "; `kopt suites` lists them)");
}

Status resolve_shapes(const Problem& problem, const std::string& suite,
                      const std::vector<std::string>& texts, const ShapeDefaults& defaults,
                      std::vector<Shape>* out) {
  out->clear();
  if (!suite.empty()) {
    Suite found;
    KOPT_RETURN_IF_ERROR(find_suite(problem, suite, defaults, &found));
    for (const auto& e : found.shapes) out->push_back(e.shape);
  }
  for (const auto& t : texts) {
    Shape s;
    KOPT_RETURN_IF_ERROR(problem.parse_shape(t, defaults, &s));
    out->push_back(s);
  }
  return Status();
}

uint16_t float_to_half(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t abs = f & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u)
    return static_cast<uint16_t>(sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u));
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (abs < 0x38800000u) {                                               // subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    uint32_t mant = (abs & 0x007FFFFFu) | 0x00800000u;
    int shift = 113 - static_cast<int>(abs >> 23) + 13;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = ((abs - 0x38000000u) >> 13);
  uint32_t rem = abs & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu, f;
  if (exp == 0) {
    if (mant == 0) {
      f = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      f = sign | (exp << 23) | ((mant & 0x3FFu) << 13);
    }
  } else if (exp == 31) {
    f = sign | 0x7F800000u | (mant << 13);
  } else {
    f = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double Rng::uniform(double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0));
}
int64_t Rng::integer(int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
}

uint64_t verification_seed(uint64_t request_seed, int trial, size_t dataset) {
  return request_seed * 1000003ull + static_cast<uint64_t>(trial) * 17 +
         static_cast<uint64_t>(dataset);
}

std::string Comparison::describe() const {
  std::ostringstream out;
  if (ok) {
    out << "all elements within tolerance (max abs error " << max_abs_error << ")";
    return out.str();
  }
  out << bad << " element(s) outside tolerance";
  if (not_written > 0) out << ", " << not_written << " never written";
  out << "; first wrong index " << first_bad << ": expected " << expected << ", got " << got;
  return out.str();
}

Comparison compare_output(const std::vector<double>& ref, const float* got, Tolerance tol) {
  Comparison c;
  for (size_t i = 0; i < ref.size(); ++i) {
    double g = got[i];
    uint32_t bits;
    std::memcpy(&bits, &got[i], 4);
    double err = std::fabs(g - ref[i]);
    bool within = std::isfinite(g) && err <= tol.atol + tol.rtol * std::fabs(ref[i]);
    if (std::isfinite(g) && err > c.max_abs_error) c.max_abs_error = err;
    if (!within) {
      if (bits == kPoisonBits) ++c.not_written;
      if (c.bad == 0) {
        c.first_bad = static_cast<int64_t>(i);
        c.expected = ref[i];
        c.got = g;
      }
      ++c.bad;
    }
  }
  c.ok = c.bad == 0;
  return c;
}

bool zero_variance(const float* y, size_t n) {
  for (size_t i = 1; i < n; ++i)
    if (std::memcmp(&y[i], &y[0], 4) != 0) return false;
  return true;
}

}  // namespace kopt
