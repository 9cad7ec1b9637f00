#include "tools.hpp"

#include <cstdlib>
#include <doctest/doctest.h>

#include "command.hpp"

namespace testcommon {

bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

bool tool_available(const std::string& name, const std::string& probe) {
  if (run_command(probe + " >/dev/null 2>&1").status == 0) return true;
  if (under_ci()) {
    FAIL_CHECK(name << " is missing (CI=true): this test's independent truth cannot be checked");
  } else {
    MESSAGE(name << " is missing: check skipped (it fails under CI=true)");
  }
  return false;
}

bool tshark_available() { return tool_available("tshark", "tshark -v"); }

}  // namespace testcommon
