#include <replay/report/progress_line.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace replay {

namespace {
std::string count(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}
constexpr const char* kEraseToEnd = "\x1b[K";  // ANSI EL, erase in line from the cursor
}  // namespace

std::string live_status_text(const LiveProgress& p) {
  const double s = std::chrono::duration<double>(p.elapsed).count();
  return fmt::format("{}: {}, {}, {}, {} dropped, {:.1f} s", p.input, count(p.packets, "packet", "packets"),
                     count(p.connections, "TCP connection", "TCP connections"),
                     count(p.timeouts, "timeout", "timeouts"), p.kernel_drops, s);
}

std::string file_progress_text(const FileProgress& p) {
  std::string s = fmt::format("{}: {}", p.file, count(p.packets, "packet", "packets"));
  if (p.fraction) {
    const double f = std::clamp(*p.fraction, 0.0, 1.0);
    s += fmt::format(", {}% of the file", static_cast<int>(std::floor(f * 100.0)));
  }
  return s;
}

bool wants_file_progress(std::optional<std::uint64_t> file_bytes) {
  return file_bytes && *file_bytes >= limits::kProgressMinFileBytes;
}

ProgressLine::ProgressLine(std::ostream& os, bool enabled, std::size_t columns, Clock::duration interval)
    : os_(os), enabled_(enabled), columns_(columns), interval_(interval) {}

ProgressLine::~ProgressLine() { clear(); }

bool ProgressLine::due(Clock::time_point now) const {
  return enabled_ && (!last_ || now - *last_ >= interval_);
}

void ProgressLine::draw(const std::string& text, Clock::time_point now) {
  if (!due(now)) return;
  const std::size_t room = columns_ > 1 ? columns_ - 1 : 1;
  os_ << '\r' << (text.size() > room ? text.substr(0, room) : text) << kEraseToEnd << std::flush;
  last_ = now;
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  os_ << '\r' << kEraseToEnd << std::flush;
  shown_ = false;
}

}  // namespace replay
