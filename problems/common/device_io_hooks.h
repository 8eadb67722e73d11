// The dtype hooks' defaults (device code, device_io_hooks.hip), which every
// problem's device prelude starts with.
#pragma once

namespace kopt {
namespace embedded {
extern const char* const kDeviceIoHooks;
}  // namespace embedded
}  // namespace kopt
