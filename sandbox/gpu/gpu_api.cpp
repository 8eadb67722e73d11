#include "sandbox/gpu/gpu_api.h"

namespace kopt {

std::string gpu_error_message(hipError_t error, const char* statement, const char* file, int line) {
  return std::string(statement) + " failed at " + file + ":" + std::to_string(line) + ": " +
         hipGetErrorName(error) + " (" + hipGetErrorString(error) + ")";
}

}  // namespace kopt
