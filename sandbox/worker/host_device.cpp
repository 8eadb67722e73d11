#include "sandbox/worker/host_device.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kopt {

namespace {

// The problem's instance over raw x and canonical weights; false when the
// shape's problem is not registered.
bool problem_of(const uint16_t* x, const uint8_t* canonical, const Shape& shape,
                const Problem** problem, ProblemData* d) {
  if (!(*problem = find_problem(shape.problem))) return false;
  d->shape = shape;
  d->x.assign(x, x + (*problem)->x_elements(shape));
  d->weights.assign(canonical, canonical + (*problem)->weight_bytes(shape));
  return true;
}

Status fault(const std::string& what) {
  return GpuError{kHostFaultCode, "simulated illegal address in " + what};
}

}  // namespace

void host_reference(const uint16_t* x, const uint8_t* canonical, float* y, const Shape& shape) {
  const Problem* problem = nullptr;
  ProblemData d;
  if (!problem_of(x, canonical, shape, &problem, &d)) return;
  const std::vector<double> ref = problem->reference(d);
  for (size_t n = 0; n < ref.size(); ++n) y[n] = static_cast<float>(ref[n]);
}

double modelled_time_us(const Shape& shape, double read_bandwidth_gbps, double fraction) {
  return static_cast<double>(shape_bytes(shape)) / (read_bandwidth_gbps * fraction * 1e3);
}

HostDevice::HostDevice(HostDeviceOptions options) : options_(std::move(options)) {
  info_.name = options_.name;
  info_.platform = "host";
  info_.arch = "host";
  info_.compiler = "c++ (host fake)";
  info_.multiprocessors = 1;
  info_.l2_bytes = options_.l2_bytes;
  info_.warp_size = 32;
  info_.max_shared_bytes = static_cast<int64_t>(options_.shared_bytes);
  info_.max_threads_per_block = 1024;
  info_.read_bandwidth_gbps = options_.read_bandwidth_gbps;
  info_.peak_bandwidth_gbps = options_.peak_bandwidth_gbps;
  shared_.assign(options_.shared_bytes / 4, 0);
}

HostDevice::~HostDevice() = default;

void HostDevice::load(HostProgram program, const Shape& shape) {
  program_ = std::move(program);
  shape_ = shape;
}

HostDevice::Buffer* HostDevice::find(BufferId id) {
  auto it = buffers_.find(id);
  return it == buffers_.end() ? nullptr : it->second.get();
}

Status HostDevice::free_memory(size_t* bytes) {
  *bytes = size_t{4} << 30;
  return Status();
}

Status HostDevice::allocate(size_t bytes, BufferId* id) {
  auto b = std::make_unique<Buffer>();
  b->size = bytes;
  b->bytes.assign(bytes + 2 * kGuard, kGuardByte);
  // Fresh memory holds garbage, not zeros.
  std::fill(b->user(), b->user() + bytes, uint8_t{0x5C});
  *id = next_id_++;
  buffers_[*id] = std::move(b);
  return Status();
}

void HostDevice::release(BufferId id) {
  buffers_.erase(id);
  x_written_.erase(id);
}

Status HostDevice::upload(BufferId id, const void* data, size_t bytes) {
  Buffer* b = find(id);
  if (!b || bytes > b->size) return Status::error("upload: no such buffer or too many bytes");
  std::memcpy(b->user(), data, bytes);
  return Status();
}

Status HostDevice::download(BufferId id, void* data, size_t bytes) {
  Buffer* b = find(id);
  if (!b || bytes > b->size) return Status::error("download: no such buffer or too many bytes");
  std::memcpy(data, b->user(), bytes);
  return Status();
}

Status HostDevice::fill(BufferId id, uint8_t value) {
  Buffer* b = find(id);
  if (!b) return Status::error("fill: no such buffer");
  std::fill(b->user(), b->user() + b->size, value);
  return Status();
}

Status HostDevice::guards_intact(BufferId id, bool* intact) {
  Buffer* b = find(id);
  if (!b) return Status::error("guards: no such buffer");
  auto clean = [](const uint8_t* p) {
    return std::all_of(p, p + kGuard, [](uint8_t v) { return v == kGuardByte; });
  };
  *intact = clean(b->bytes.data()) && clean(b->user() + b->size);
  return Status();
}

Status HostDevice::checksum(BufferId id, uint64_t* digest) {
  Buffer* b = find(id);
  if (!b) return Status::error("checksum: no such buffer");
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (size_t i = 0; i < b->size; ++i) h = (h ^ b->user()[i]) * 1099511628211ull;
  *digest = h;
  return Status();
}

Status HostDevice::poison_shared_memory(uint32_t pattern) {
  std::fill(shared_.begin(), shared_.end(), pattern);
  return Status();
}

Status HostDevice::call(const CallBuffers& c) {
  Buffer *x = find(c.x), *w = find(c.w), *y = find(c.y), *ws = find(c.ws);
  if (!x || !w || !y || !ws || !program_.call)
    return Status::error("call: no program loaded or no such buffer");
  HostLaunch l;
  l.x = reinterpret_cast<const uint16_t*>(x->user());
  l.w = w->user();
  l.y = reinterpret_cast<float*>(y->user());
  l.ws = reinterpret_cast<float*>(ws->user());
  l.shape = shape_;
  l.shared = shared_.data();
  l.shared_words = shared_.size();
  program_.call(l);
  clock_us_ += std::max(0.0, l.cost_us);
  if (l.fault) return fault("the call");
  return Status();
}

Status HostDevice::relayout(BufferId canonical, BufferId packed) {
  Buffer *c = find(canonical), *p = find(packed);
  if (!c || !p || !program_.relayout)
    return Status::error("relayout: none loaded or no such buffer");
  program_.relayout(c->user(), p->user(), shape_);
  return Status();
}

Status HostDevice::prepare_sequence(const std::vector<CallBuffers>& calls, std::string* method) {
  sequence_ = calls;
  *method = "host-sequence/modelled-clock";
  return Status();
}

Status HostDevice::replay_sequence() {
  for (const auto& c : sequence_) KOPT_RETURN_IF_ERROR(call(c));
  return Status();
}

Status HostDevice::time_sequence(double* elapsed_us) {
  const double start = clock_us_;
  KOPT_RETURN_IF_ERROR(replay_sequence());
  *elapsed_us = clock_us_ - start;
  return Status();
}

Status HostDevice::fill_random_x(const std::vector<BufferId>& xs,
                                 const std::vector<uint64_t>& streams, uint64_t seed, int64_t K) {
  for (size_t i = 0; i < xs.size(); ++i) {
    Buffer* b = find(xs[i]);
    if (!b || b->size < static_cast<size_t>(K) * 2)
      return Status::error("fill_random_x: no such buffer");
    auto* x = reinterpret_cast<uint16_t*>(b->user());
    for (int64_t k = 0; k < K; ++k)
      x[k] = float_to_half(random_x_value(seed, streams[i], static_cast<uint64_t>(k)));
    x_written_[xs[i]] = {streams[i], seed};
  }
  return Status();
}

Status HostDevice::check_calls(const Shape& shape, uint64_t seed,
                               const std::vector<CallCheck>& checks,
                               std::vector<CallCheckResult>* results) {
  results->assign(checks.size(), CallCheckResult());
  for (size_t i = 0; i < checks.size(); ++i) {
    const CallCheck& c = checks[i];
    Buffer *x = find(c.x), *y = find(c.y), *w = find(c.canonical);
    auto written = x_written_.find(c.x);
    if (!x || !y || !w || written == x_written_.end() ||
        written->second != std::make_pair(c.x_stream, seed))
      return Status::error(
          "check_calls: a buffer is unknown or its x was not written by fill_random_x");
    const Problem* problem = find_problem(shape.problem);
    if (!problem) return Status::error("check_calls: no registered problem " + shape.problem);
    // kopt's own x, regenerated: never read back from the candidate's buffer.
    const int64_t K = problem->x_elements(shape);
    std::vector<uint16_t> mine(static_cast<size_t>(K));
    for (int64_t k = 0; k < K; ++k)
      mine[static_cast<size_t>(k)] =
          float_to_half(random_x_value(seed, c.x_stream, static_cast<uint64_t>(k)));
    CallCheckResult& r = (*results)[i];
    const auto* seen = reinterpret_cast<const uint16_t*>(x->user());
    for (int64_t k = 0; k < K; ++k) r.x_changed += seen[k] != mine[static_cast<size_t>(k)];
    ProblemData d;
    problem_of(mine.data(), w->user(), shape, &problem, &d);
    const std::vector<double> ref = problem->reference(d);
    Comparison cmp =
        compare_output(ref, reinterpret_cast<const float*>(y->user()), problem->tolerance());
    r.bad = cmp.bad;
    r.not_written = cmp.not_written;
    r.first_bad = cmp.first_bad;
    r.expected = cmp.expected;
    r.got = cmp.got;
  }
  return Status();
}

}  // namespace kopt
