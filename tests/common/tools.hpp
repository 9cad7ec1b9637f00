#pragma once
// External programs a test compares against (tshark, tcptrace, pcap-replay)
// and what it needs of the machine (root, /dev/net/tun): present, or a skip
// that CI does not allow.

#include <string>

namespace testcommon {

/// True when the environment variable CI is "true" (as .ci/run, GitHub
/// Actions, GitLab CI and most CI systems set it).
bool in_ci();

/// A check that cannot run here: under CI=true a failed CHECK naming `why`
/// (a test whose independent truth is missing must not pass there);
/// elsewhere a MESSAGE.
void skip_or_fail(const std::string& why);

/// True when `probe` (a shell command) exits 0, i.e. the tool `name` is
/// there; otherwise skip_or_fail(). Call it at the top of a test and return
/// when it gives false.
bool tool_available(const std::string& name, const std::string& probe);

/// tool_available("tshark", "tshark -v").
bool tshark_available();

}  // namespace testcommon
