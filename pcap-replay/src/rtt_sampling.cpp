#include "rtt_sampling.hpp"

#include <algorithm>

#include <rto/seq.hpp>

namespace replay {

void TsClock::observe(CaptureTime t, std::uint32_t tsval) {
  const std::int64_t t_us = to_us(t);
  if (!seen_) {
    seen_ = true;
    ts0_ = tsval;
    t0_us_ = t_us;
    min_offset_us_ = t_us;
  }
  // Unwrap relative to the first TSval (RFC 7323 5.2: modulo 2^32 arithmetic).
  const std::int64_t rel = rto::ts_diff(tsval, ts0_);
  last_rel_ts_ = std::max(last_rel_ts_, rel);
  last_t_us_ = std::max(last_t_us_, t_us);
  min_offset_us_ = std::min(min_offset_us_, t_us - rel * 1000);
  first_send_us_.try_emplace(tsval, t_us);
}

bool TsClock::one_khz() const {
  // Needs 200 ms of observations; 1 kHz within 5 %.
  const std::int64_t span_us = last_t_us_ - t0_us_;
  if (span_us < 200'000) return false;
  const std::int64_t expect = span_us / 1000;
  return last_rel_ts_ * 100 >= expect * 95 && last_rel_ts_ * 100 <= expect * 105 + 100;
}

std::optional<std::chrono::microseconds> TsClock::echo_rtt(CaptureTime ack_time,
                                                           std::uint32_t tsecr) const {
  if (!seen_ || tsecr == 0) return std::nullopt;
  const std::int64_t ack_us = to_us(ack_time);
  if (one_khz()) {
    // Linux tcp_rtt_tsopt_us(): delta = TS now - TSecr ticks; 0 counts as 1 ms.
    const std::int64_t now_ts = (ack_us - min_offset_us_) / 1000;  // unwrapped, relative to ts0
    const std::int64_t delta = now_ts - rto::ts_diff(tsecr, ts0_);
    if (delta < 0) return std::nullopt;
    return std::chrono::microseconds{std::max<std::int64_t>(delta, 1) * 1000};
  }
  const auto it = first_send_us_.find(tsecr);
  if (it == first_send_us_.end() || ack_us < it->second) return std::nullopt;
  return std::chrono::microseconds{ack_us - it->second};
}

}  // namespace replay
