#pragma once
// Whether the tests run under CI, where a missing external tool (tshark,
// pcap-replay) is a failure rather than a skip.

namespace testcommon {

/// True when the environment variable CI is "true" (as GitHub Actions,
/// GitLab CI and most CI systems set it).
bool in_ci();

}  // namespace testcommon
