// The timing protocol's rules: the physics floor a time must respect (also
// when the bandwidth probe failed, on the host fake), and the order the
// weight copies are drawn in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/worker/host_device.h"
#include "sandbox/worker/verification.h"

namespace kopt {
namespace {

const Shape kShape = w4a16::shape(256, 48, 64);

TEST(PhysicsFloor, NamesTheBandwidthATimeWouldImply) {
  // 1 MB in 0.1 µs is 10 TB/s, against a measured 3 TB/s.
  Status s = check_physics_floor(0.1, 1000000, 3000);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("10000 GB/s"), std::string::npos) << s.message();
  EXPECT_TRUE(check_physics_floor(0.5, 1000000, 3000).ok());    // 2 TB/s
  EXPECT_TRUE(check_physics_floor(0.3, 1000000, 3000).ok());    // 3.3 TB/s: within the noise margin
  EXPECT_FALSE(check_physics_floor(0.25, 1000000, 3000).ok());  // 4 TB/s
  EXPECT_TRUE(check_physics_floor(0.1, 1000000, 0).ok());       // bandwidth unknown: no floor
}

// The weight copies recur without a period a kernel could learn, and never
// within half a cycle (the L2 must not still hold a copy).
TEST(TimedOrder, WeightCopiesRecurWithoutAPeriodAndNotTooSoon) {
  for (size_t copies : {2u, 3u, 8u, 37u}) {
    const size_t calls = copies * 6;
    const std::vector<size_t> order = weight_copy_order(calls, copies, 0xC0FFEE + copies);
    ASSERT_EQ(order.size(), calls);
    std::map<size_t, size_t> last;
    std::set<std::vector<size_t>> cycles;
    for (size_t c = 0; c < calls / copies; ++c) {
      std::vector<size_t> cycle(order.begin() + static_cast<long>(c * copies),
                                order.begin() + static_cast<long>((c + 1) * copies));
      EXPECT_EQ(std::set<size_t>(cycle.begin(), cycle.end()).size(), copies) << "a permutation";
      cycles.insert(cycle);
    }
    for (size_t p = 0; p < calls; ++p) {
      if (last.count(order[p])) {
        EXPECT_GE(p - last[order[p]], copies / 2 + 1) << copies;
      }
      last[order[p]] = p;
    }
    if (copies >= 8) {
      EXPECT_GE(cycles.size(), 4u) << "the cycles repeat";
    }
  }
}

// The floor is drawn at the measured read bandwidth bounded by the memory's
// own figure: a probe that failed (0) or read a cache (above the peak)
// neither switches it off nor loosens it.
TEST(PhysicsFloor, TheMeasuredBandwidthIsBoundedByTheDevicesOwnFigure) {
  EXPECT_DOUBLE_EQ(floor_bandwidth_gbps(3074, 3352), 3074);
  EXPECT_DOUBLE_EQ(floor_bandwidth_gbps(0, 3352), 3352);
  EXPECT_DOUBLE_EQ(floor_bandwidth_gbps(-1, 3352), 3352);
  EXPECT_DOUBLE_EQ(floor_bandwidth_gbps(40000, 3352), 3352);  // an L2-sized probe
  EXPECT_DOUBLE_EQ(floor_bandwidth_gbps(3074, 0), 3074);      // the peak unknown
}

TEST(PhysicsFloor, AFailedProbeDoesNotSwitchTheFloorOff) {
  HostDeviceOptions options;
  options.read_bandwidth_gbps = 0;  // the probe failed
  options.peak_bandwidth_gbps = 1000;
  HostDevice device(options);
  HostProgram p;
  p.call = [](HostLaunch& l) {
    host_reference(l.x, l.w, l.y, l.shape);
    l.cost_us = modelled_time_us(kShape, 1000, 5.0);  // five times the memory's own figure
  };
  p.traits.workspace_bytes = 256;
  device.load(p, kShape);
  EvalRequest req;
  req.shape = kShape;
  req.seed = 5;
  req.trials = 1;
  req.repetitions = 2;
  EvalResult result;
  uint64_t secret = 11;
  ScreenContext ctx{device, req, p.traits, result, nullptr, [&secret] { return ++secret; }};
  EXPECT_FALSE(run_screens(ctx));
  EXPECT_EQ(verdict_name(result.verdict), std::string("impossible_speed")) << result.message;
}

}  // namespace
}  // namespace kopt
