#include "netstack/progress.hpp"

#include <cstdio>

namespace netstack {

std::string progress_line(const RetransmitRecord& r, rto::Instant syn_time, std::uint32_t iss) {
  const double at_s = static_cast<double>((r.time - syn_time).count()) / 1e6;
  const std::uint32_t rel = r.seq - iss;  // modulo 2^32
  const char* kind = r.kind == RetransmitKind::Timeout ? (r.syn ? "SYN RTO" : "RTO")
                     : r.kind == RetransmitKind::Fast  ? "fast"
                                                       : "after-RTO";
  char line[160];
  int n = std::snprintf(line, sizeof line, "+%.3f s  %-9s  seq %u len %u", at_s, kind, rel, r.len);
  if (r.kind == RetransmitKind::Timeout && n > 0 && static_cast<std::size_t>(n) < sizeof line) {
    std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ": waited %.1f ms, backoff %u, RTO now %lld ms",
                  static_cast<double>(r.waited.count()) / 1000.0, r.backoff,
                  static_cast<long long>(r.rto.count() / 1000));
  }
  return line;
}

}  // namespace netstack
