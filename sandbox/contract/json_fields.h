// Reading a field of a JSON message that may have any shape: the fallback
// when it is missing or of another type, never an exception. For messages
// that cross a process boundary (worker events, stored results).
#pragma once

#include <nlohmann/json.hpp>

namespace kopt {

template <typename T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object() || !j.contains(key)) return fallback;
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

}  // namespace kopt
