#pragma once
// External programs a test compares against (tshark, tcptrace, pcap-replay):
// present, or a skip that CI does not allow.

#include <string>

namespace testcommon {

/// True when `probe` (a shell command) exits 0, i.e. the tool `name` is
/// there. When it is not: under CI=true the current test FAILS (a test whose
/// independent truth is missing must not pass); elsewhere a MESSAGE says the
/// check was skipped and why. Call it at the top of a test and return when
/// it gives false.
bool tool_available(const std::string& name, const std::string& probe);

/// tool_available("tshark", ...): tshark answers -v.
bool tshark_available();

/// True when the environment says this is CI (CI=true, as CI services and
/// .ci/run set it).
bool under_ci();

}  // namespace testcommon
