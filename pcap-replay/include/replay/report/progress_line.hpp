#pragma once
// The one-line status pcap-replay keeps on standard error while it works,
// when standard error is a terminal: for a live capture (-i) the
// packets, TCP connections, timeouts found and kernel drops so far; for a
// large file the packets read and the percent of the file. The line is
// rewritten in place ("\r", then erase to the end of the line, ANSI "ESC [
// K"), at most every limits::kStatusLineInterval, and erased at the end so
// that the report starts on a clean line. Nothing is written when the
// stream is not a terminal (a pipe, a file, the tests).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <replay/analysis/thresholds.hpp>
#include <replay/pipeline/progress.hpp>

namespace replay {

/// "live:eth0: 1520 packets, 3 TCP connections, 1 timeout, 0 dropped, 12.4 s"
/// (singular for 1; seconds with one decimal, rounded).
std::string live_status_text(const LiveProgress& p);

/// "big.pcap: 120000 packets, 37% of the file" (the percent rounded down,
/// so 100% only when all of it is read); without a size, "big.pcap: 120000 packets".
std::string file_progress_text(const FileProgress& p);

/// True when a file of `file_bytes` bytes gets a progress line: its size is
/// known and at least limits::kProgressMinFileBytes.
bool wants_file_progress(std::optional<std::uint64_t> file_bytes);

/// The line on the terminal: draws a text in place, at most once per
/// interval, and erases it at the end.
class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  /// `enabled`: the stream is a terminal (the caller asks isatty(3)); when
  /// false nothing is ever written. `columns`: the terminal's width; a
  /// longer text is cut to columns - 1 characters, so the cursor never
  /// wraps and "\r" returns to the line's start. `interval`: the least time
  /// between two draws.
  ProgressLine(std::ostream& os, bool enabled, std::size_t columns = 80,
               Clock::duration interval = limits::kStatusLineInterval);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  /// Erases the line if one is drawn (clear()).
  ~ProgressLine();

  /// True when a draw at `now` would be shown: enabled, and nothing drawn
  /// yet or at least `interval` since the last draw.
  bool due(Clock::time_point now) const;
  /// Writes "\r" + text (cut to the width) + "ESC [ K" and flushes, when due(now).
  void draw(const std::string& text, Clock::time_point now);
  /// Writes "\r" + "ESC [ K" when a line is drawn: the cursor is back at
  /// the start of an empty line. Nothing otherwise.
  void clear();
  bool enabled() const { return enabled_; }

 private:
  std::ostream& os_;
  bool enabled_;
  std::size_t columns_;
  Clock::duration interval_;
  std::optional<Clock::time_point> last_;
  bool shown_ = false;
};

}  // namespace replay
