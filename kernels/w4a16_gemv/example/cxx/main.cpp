// kopt_w4a16 from C++ host code: the API's argument checks, which need no
// GPU. (kernels/w4a16_gemv/example/example.cpp runs and times GEMVs; kernels/w4a16_gemv/example/c
// runs one from C.) Exit 0 when every bad call is refused with a message.
#include <kopt_w4a16.h>

#include <cstdio>
#include <string>

int main() {
  kopt_w4a16_weights* w = nullptr;
  const int null_rc = kopt_w4a16_create(nullptr, nullptr, nullptr, 4096, 4096, 64, nullptr, &w);
  const std::string null_message = kopt_w4a16_last_error();
  int dummy = 0;
  const int odd_rc = kopt_w4a16_create(&dummy, &dummy, &dummy, 4095, 4096, 64, nullptr, &w);
  const std::string odd_message = kopt_w4a16_last_error();
  std::printf("kopt_w4a16 %d.%d from C++: %s; %s\n", KOPT_W4A16_VERSION_MAJOR,
              KOPT_W4A16_VERSION_MINOR, null_message.c_str(), odd_message.c_str());
  const bool ok = null_rc == KOPT_W4A16_INVALID_ARGUMENT && odd_rc == KOPT_W4A16_INVALID_ARGUMENT &&
                  w == nullptr && odd_message.find("K=4095") != std::string::npos;
  return ok ? 0 : 1;
}
