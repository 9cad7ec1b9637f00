#include "rtt_sampling.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "thresholds.hpp"

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
  if (host_ && last_t_us_ - t0_us_ > host_->span_us) {
    host_->span_us = last_t_us_ - t0_us_;
    host_->ticks = last_rel_ts_;
  }
  min_offset_us_ = std::min(min_offset_us_, t_us - rel * 1000);
  first_send_us_.try_emplace(tsval, t_us);
}

bool TsClock::one_khz() const {
  const auto r = rate_hz();
  return r && *r == 1000.0;
}

std::optional<double> TsClock::rate_hz() const {
  std::int64_t span_us = last_t_us_ - t0_us_;
  std::int64_t ticks = last_rel_ts_;
  // The host's pooled rate when it has seen more than this connection.
  if (host_ && host_->span_us > span_us) {
    span_us = host_->span_us;
    ticks = host_->ticks;
  }
  if (!seen_ || span_us < limits::kTsClockMinSpan.count() || ticks <= 0) return std::nullopt;
  const double raw = static_cast<double>(ticks) * 1e6 / static_cast<double>(span_us);
  constexpr std::array<double, 7> kCommon{1, 2, 10, 100, 250, 300, 1000};
  for (double c : kCommon) {
    // One tick of quantisation at each end of the span is allowed besides the percentage.
    const double tick_slack = 2.0 * 1e6 / static_cast<double>(span_us);
    if (std::abs(raw - c) <= c * limits::kTsRateTolerancePercent / 100.0 + tick_slack) return c;
  }
  return std::nullopt;
}

std::optional<std::chrono::microseconds> TsClock::interval(std::uint32_t a, std::uint32_t b) const {
  const auto r = rate_hz();
  if (!r) return std::nullopt;
  const double ticks = static_cast<double>(rto::ts_diff(b, a));
  return std::chrono::microseconds{static_cast<std::int64_t>(ticks * 1e6 / *r)};
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
