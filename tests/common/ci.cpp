#include "ci.hpp"

#include <cstdlib>
#include <string_view>

namespace testcommon {

bool in_ci() {
  const char* v = std::getenv("CI");
  return v != nullptr && std::string_view(v) == "true";
}

}  // namespace testcommon
