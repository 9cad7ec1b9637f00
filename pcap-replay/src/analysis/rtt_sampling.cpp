#include <replay/analysis/rtt_sampling.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <replay/analysis/thresholds.hpp>

#include <rto/seq.hpp>

namespace replay {

std::int64_t TsClock::us(CaptureTime t) const {
  std::int64_t r = 0;
  if (__builtin_add_overflow(to_us(t), shift_us_, &r)) r = std::numeric_limits<std::int64_t>::max();
  return r;
}

void TsClock::observe(CaptureTime t, std::uint32_t tsval) { observe(t, tsval, true, nullptr); }

void TsClock::observe_first_again(CaptureTime t, std::uint32_t tsval, std::optional<double> rate_then) {
  observe(t, tsval, false, &rate_then);
}

void TsClock::observe(CaptureTime t, std::uint32_t tsval, bool write_host, const std::optional<double>* rate_then) {
  if (bridge_pending_ && seen_) {
    bridge_pending_ = false;
    if (const double r = rate(); r > 0 && has_last_tsval_) {
      // What the sender's clock says passed since its latest TSval, minus
      // what the (re-based) capture clock says: the time the step hid.
      const double ticks = static_cast<double>(rto::ts_diff(tsval, last_tsval_));
      // Both terms are bounded (2^31 ticks at >= 1 Hz; two bridged times of
      // one connection), the running shift saturates (a crafted file of
      // thousands of steps must not overflow it).
      const double hidden = ticks * 1e6 / r - (static_cast<double>(us(t)) - static_cast<double>(last_seen_us_));
      std::int64_t sum = 0;
      if (hidden > 0 && !__builtin_add_overflow(shift_us_, static_cast<std::int64_t>(hidden), &sum)) shift_us_ = sum;
    } else {
      // No rate to bridge with: learn the clock afresh from here.
      HostClock* host = host_;
      const std::int64_t shift = shift_us_;
      const bool keep = keep_send_times_;
      *this = TsClock{};
      host_ = host;
      shift_us_ = shift;
      keep_send_times_ = keep;
    }
  }
  bridge_pending_ = false;
  const std::int64_t t_us = us(t);
  last_seen_us_ = t_us;
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
  const std::int64_t span = t_us - t0_us_;
  if (span >= limits::kTsClockMinSpan.count() && rel > 0 &&
      (best_span_us_ == 0 || static_cast<double>(rel) * best_span_us_ > static_cast<double>(best_ticks_) * span)) {
    best_ticks_ = rel;
    best_span_us_ = span;
    pooled_valid_ = false;
  }
  last_valid_ = false;  // last_rel_ts_ or last_t_us_ may have moved
  if (host_ && write_host) {
    if (!host_->seen) {
      host_->seen = true;
      host_->ts0 = tsval;
      host_->t0_us = t_us;
    }
    // Across connections (one clock, no per-connection offset): the
    // highest ratio since the host's first TSval, as for one connection.
    const std::int64_t hrel = rto::ts_diff(tsval, host_->ts0);
    const std::int64_t hspan = t_us - host_->t0_us;
    if (hspan >= limits::kTsClockMinSpan.count() && hrel > 0 &&
        (host_->abs_span_us == 0 ||
         static_cast<double>(hrel) * host_->abs_span_us > static_cast<double>(host_->abs_ticks) * hspan)) {
      host_->abs_ticks = hrel;
      host_->abs_span_us = hspan;
      ++host_->version;
    }
  }
  min_offset_us_ = std::min(min_offset_us_, t_us - rel * 1000);
  if (!has_newest_ || rto::ts_diff(tsval, newest_tsval_) > 0) {
    newest_tsval_ = tsval;
    has_newest_ = true;
  }
  // The same TSval again keeps its first send time; one older than the
  // newest echo can never be sampled (its first send time is forgotten).
  if (keep_send_times_ && (!has_last_tsval_ || last_tsval_ != tsval) &&
      (!has_echo_floor_ || rto::ts_diff(tsval, echo_floor_) >= 0)) {
    if (first_send_us_.empty() || rto::ts_diff(tsval, first_send_us_.back().tsval) > 0) {
      first_send_us_.push_back(FirstSend{tsval, t_us});
    } else {  // an older TSval (reordered in the network before the capture): keep the order
      auto it = std::partition_point(first_send_us_.begin(), first_send_us_.end(),
                                     [&](const FirstSend& f) { return rto::ts_diff(f.tsval, tsval) < 0; });
      if (it == first_send_us_.end() || it->tsval != tsval) first_send_us_.insert(it, FirstSend{tsval, t_us});
    }
    // A sender whose echoes the capture never sees: the oldest are dropped
    // (an echo that old would be an RTT beyond any real one).
    if (first_send_us_.size() > limits::kTsSendTimesKept) first_send_us_.pop_front();
  }
  last_tsval_ = tsval;
  has_last_tsval_ = true;
  const double r = rate_then ? rate_then->value_or(0.0) : rate();
  if (r > 0) {
    const double off = static_cast<double>(t_us - t0_us_) - static_cast<double>(rel) * 1e6 / r;
    if (!has_min_offset_at_rate_ || off < min_offset_at_rate_) {
      min_offset_at_rate_ = off;
      has_min_offset_at_rate_ = true;
    }
  }
}

namespace {
// The common rate in Hz `ticks` over `span_us` is, 0 if none.
std::uint16_t snap_rate(std::int64_t ticks, std::int64_t span_us) {
  if (span_us < limits::kTsClockMinSpan.count() || ticks <= 0) return 0;
  const double raw = static_cast<double>(ticks) * 1e6 / static_cast<double>(span_us);
  constexpr std::array<std::uint16_t, 6> kCommon{1, 2, 10, 100, 250, 1000};
  // SenderEngine::causal_send_time reads no hold within 2 ticks of kMaxTsvalHz.
  static_assert(kCommon.back() <= limits::kMaxTsvalHz);
  for (const std::uint16_t c : kCommon) {
    // One tick of quantisation at each end of the span is allowed besides the percentage.
    const double tick_slack = 2.0 * 1e6 / static_cast<double>(span_us);
    const double hz = c;
    if (std::abs(raw - hz) <= hz * limits::kTsRateTolerancePercent / 100.0 + tick_slack) return c;
  }
  return 0;
}
}  // namespace

double TsClock::refit_rate() const {
  if (!seen_) return 0;
  // Each source is snapped again only when its values changed since
  // (observe() and the host's version say so). The host's and this clock's
  // best ratios first; the first-to-last ratio only when they give none.
  const std::uint64_t hv = host_ ? host_->version : 0;
  if (!pooled_valid_ || pooled_host_version_ != hv) {
    pooled_hz_ = pooled_rate();
    pooled_valid_ = true;
    pooled_host_version_ = hv;
  }
  if (pooled_hz_ != 0) return pooled_hz_;
  // A first segment captured late inflates every ratio: first to last then.
  if (!last_valid_) {
    last_hz_ = snap_rate(last_rel_ts_, last_t_us_ - t0_us_);
    last_valid_ = true;
  }
  return last_hz_;
}

std::uint16_t TsClock::pooled_rate() const {
  // The host's rate when it has seen more than this connection over all its
  // connections (one clock), else this connection's own.
  if (host_ && host_->abs_span_us > best_span_us_)
    if (const auto r = snap_rate(host_->abs_ticks, host_->abs_span_us)) return r;
  return snap_rate(best_ticks_, best_span_us_);
}

std::optional<std::chrono::microseconds> TsClock::held_for(CaptureTime t, std::uint32_t tsval) const {
  const double r = rate();
  if (r <= 0 || !seen_) return std::nullopt;
  // Offsets are recomputed from the first observation: least offset over the
  // clock's span is tracked by observe() at the rate known then.
  if (!has_min_offset_at_rate_) return std::nullopt;
  const double rel_us = static_cast<double>(rto::ts_diff(tsval, ts0_)) * 1e6 / r;
  const double off = static_cast<double>(us(t) - t0_us_) - rel_us;
  const double d = off - min_offset_at_rate_;
  if (d <= 0) return std::chrono::microseconds{0};
  return std::chrono::microseconds{static_cast<std::int64_t>(d)};
}

std::optional<std::chrono::microseconds> TsClock::interval(std::uint32_t a, std::uint32_t b) const {
  const double r = rate();
  if (r <= 0) return std::nullopt;
  const double ticks = static_cast<double>(rto::ts_diff(b, a));
  return std::chrono::microseconds{static_cast<std::int64_t>(ticks * 1e6 / r)};
}

std::chrono::microseconds TsClock::least_between(std::uint32_t a, std::uint32_t b, CaptureTime t) const {
  constexpr std::int64_t kTickUs = 1'000'000 / limits::kMaxTsvalHz;
  const std::int64_t ticks = rto::ts_diff(b, a);
  if (!seen_ || ticks < 2) return std::chrono::microseconds{0};
  // a stamped at the end of its tick, b at the start of its own, the clock
  // no faster than kMaxTsvalHz: at the fastest, not at the fitted rate (a
  // rate pooled from the host's other connections may be another host's,
  // behind a NAT). Unless the ticks since the first TSval outrun
  // kFastTsvalFactor times that over the capture's time since it (a clock
  // that ticks faster than RFC 7323 5.4 allows).
  const std::int64_t since_first = rto::ts_diff(b, ts0_);
  if (since_first > limits::kFastTsvalFactor * ((us(t) - t0_us_) / kTickUs) + 2) return std::chrono::microseconds{0};
  return std::chrono::microseconds{(ticks - 1) * kTickUs};
}

void TsClock::echoed(std::uint32_t tsecr) {
  if (!keep_send_times_ || !seen_ || tsecr == 0 || !has_newest_ || rto::ts_diff(tsecr, newest_tsval_) > 0) return;
  if (has_echo_floor_ && rto::ts_diff(tsecr, echo_floor_) <= 0) return;  // an older echo (reordered ACK)
  echo_floor_ = tsecr;
  has_echo_floor_ = true;
  while (!first_send_us_.empty() && rto::ts_diff(first_send_us_.front().tsval, tsecr) < 0) first_send_us_.pop_front();
}

std::optional<std::chrono::microseconds> TsClock::echo_rtt(CaptureTime ack_time,
                                                           std::uint32_t tsecr) const {
  if (!seen_ || tsecr == 0) return std::nullopt;
  const std::int64_t ack_us = us(ack_time);
  if (one_khz()) {
    // Linux tcp_rtt_tsopt_us(): delta = TS now - TSecr ticks; 0 counts as 1 ms.
    const std::int64_t now_ts = (ack_us - min_offset_us_) / 1000;  // unwrapped, relative to ts0
    const std::int64_t delta = now_ts - rto::ts_diff(tsecr, ts0_);
    if (delta < 0) return std::nullopt;
    return std::chrono::microseconds{std::max<std::int64_t>(delta, 1) * 1000};
  }
  if (has_echo_floor_ && rto::ts_diff(tsecr, echo_floor_) < 0) return std::nullopt;  // forgotten (echoed())
  const auto it = std::partition_point(first_send_us_.begin(), first_send_us_.end(),
                                       [&](const FirstSend& f) { return rto::ts_diff(f.tsval, tsecr) < 0; });
  if (it == first_send_us_.end() || it->tsval != tsecr || ack_us < it->t_us) return std::nullopt;
  return std::chrono::microseconds{ack_us - it->t_us};
}

}  // namespace replay
