#include "tools.hpp"

#include <cstdlib>
#include <doctest/doctest.h>
#include <string_view>

#include "command.hpp"

namespace testcommon {

bool in_ci() {
  const char* v = std::getenv("CI");
  return v != nullptr && std::string_view(v) == "true";
}

void skip_or_fail(const std::string& why) {
  if (in_ci()) {
    FAIL_CHECK(why << " (CI=true: a check that cannot run is a failure)");
  } else {
    MESSAGE(why << " (skipped; a failure under CI=true)");
  }
}

bool tool_available(const std::string& name, const std::string& probe) {
  if (run_command(probe + " >/dev/null 2>&1").status == 0) return true;
  skip_or_fail(name + " is missing: this test's independent truth cannot be checked");
  return false;
}

bool tshark_available() { return tool_available("tshark", "tshark -v"); }

}  // namespace testcommon
