#pragma once
// Running an external program (tshark, pcap-replay) from a test.

#include <string>

namespace testcommon {

/// What a shell command printed on stdout and how it ended.
struct CommandResult {
  /// The exit status (0-255); -1 when the shell could not be started or the
  /// command did not exit normally (killed by a signal).
  int status = -1;
  /// Everything it wrote to stdout (stderr only if the command redirects it).
  std::string output;
};

/// Runs `command` with /bin/sh (popen) and waits for it. Never throws; a
/// command that cannot start gives status -1 and no output.
CommandResult run_command(const std::string& command);

}  // namespace testcommon
