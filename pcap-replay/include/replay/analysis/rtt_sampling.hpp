#pragma once
// RTT samples as the sender could take them from the reverse direction's
// ACKs (RFC 6298 section 3, RFC 7323 section 4), and an estimate of the
// sender's RFC 7323 timestamp clock so a TSecr can be turned into an RTT the
// way Linux does (tcp_rtt_tsopt_us: (TS now - TSecr) in 1 ms ticks, 0 -> 1 ms).

#include <chrono>
#include <cstdint>
#include <optional>

#include <replay/analysis/ring_deque.hpp>
#include <replay/input/segment.hpp>

namespace replay {

/// Microseconds since the epoch of a capture time.
inline std::int64_t to_us(CaptureTime t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

/// The TSval clock rate of one host across all its connections, from the
/// host's first TSval: the ticks and span of the observation with the
/// highest ratio (a late capture only lowers it). When the host numbers
/// every connection from one clock (no per-connection offset) this is its
/// rate over the whole capture, and a short connection is judged on it. A
/// host that offsets each connection's TSvals (RFC 7323 5.4; Linux since
/// 4.10) makes a ratio across connections that snaps to no common rate:
/// each of its connections then has its own.
struct HostClock {
  bool seen = false;
  std::uint32_t ts0 = 0;
  std::int64_t t0_us = 0;        ///< capture time of the host's first TSval, us
  std::int64_t abs_ticks = 0;    ///< that observation's ticks since ts0
  std::int64_t abs_span_us = 0;  ///< and its capture time since t0_us
  /// Bumped at every change of the ticks and span above (whoever writes
  /// them must bump it): TsClock::rate_hz() re-fits only when it moved.
  std::uint64_t version = 0;
};

/// The sender's TSval clock, learnt from the TSvals it sends.
/// When it ticks at 1 kHz (Linux, most BSDs today) the phase of the
/// millisecond is estimated from every (capture time, TSval) pair and an echo
/// sample is (TS now - TSecr) ms exactly as Linux computes it; otherwise the
/// sample is the ACK time minus the first send time of a segment carrying
/// TSval == TSecr.
class TsClock {
 public:
  /// A segment of this sender carried `tsval` at capture time `t`.
  void observe(CaptureTime t, std::uint32_t tsval);
  /// The clock's first observation made later than it happened (a sender
  /// model created after its sender's first segment): as observe(t, tsval)
  /// on a new clock, except that the host (written when the segment was
  /// captured, by a clock of its own) is not written again, and the rate
  /// observe() reads is `rate_then`, what rate_hz() of that clock said right
  /// after observing it then (the host's pooled rate at that moment).
  void observe_first_again(CaptureTime t, std::uint32_t tsval, std::optional<double> rate_then);
  /// RTT from an ACK at `ack_time` echoing `tsecr`; nullopt when the echo is
  /// 0 (RFC 7323: not valid), unknown, or ahead of the clock.
  std::optional<std::chrono::microseconds> echo_rtt(CaptureTime ack_time, std::uint32_t tsecr) const;
  /// True once a TSval was seen.
  bool seen() const { return seen_; }
  /// Pools this clock's intervals into its host's (may be null).
  void set_host(HostClock* host) {
    host_ = host;
    pooled_valid_ = false;
  }
  /// The TSval clock's rate in Hz, fitted over the TSvals seen (at least
  /// limits::kTsClockMinSpan of capture time) and snapped to a common rate
  /// (1, 2, 10, 100, 250, 1000 Hz) within limits::kTsRateTolerancePercent;
  /// nullopt when unknown or not a common rate.
  std::optional<double> rate_hz() const {
    const double r = rate();
    return r > 0 ? std::optional<double>{r} : std::nullopt;
  }
  /// How long before its capture time `t` a segment carrying `tsval` was
  /// sent, beyond the least such delay of this connection so far (its
  /// TSval-to-capture offset above the minimum); nullopt when the rate is unknown.
  std::optional<std::chrono::microseconds> held_for(CaptureTime t, std::uint32_t tsval) const;
  /// The sender's own time from TSval `a` to TSval `b` (modulo 2^32), at the
  /// fitted rate; nullopt when the rate is unknown.
  std::optional<std::chrono::microseconds> interval(std::uint32_t a, std::uint32_t b) const;
  /// The least of the sender's own time from TSval `a` to TSval `b`: b - a
  /// - 1 ticks (`a` may have been stamped at the end of its tick, `b` at the
  /// start of its) at the fastest rate RFC 7323 5.4 allows
  /// (limits::kMaxTsvalHz), whatever rate is fitted. Zero when b is not 2
  /// ticks past a, or when this clock has run faster than
  /// limits::kFastTsvalFactor times that since its first TSval (b captured
  /// at `t`; a microsecond clock).
  std::chrono::microseconds least_between(std::uint32_t a, std::uint32_t b, CaptureTime t) const;
  /// The peer echoed `tsecr` (RFC 7323 3.2: TS.Recent only moves forward):
  /// the send times of the TSvals before it are forgotten, so the clock's
  /// memory is bounded by the TSvals not yet echoed. An echo of 0 or of a
  /// TSval this sender has not sent yet forgets nothing.
  void echoed(std::uint32_t tsecr);
  /// The capture clock stepped before the next observation (an interval
  /// across it is unknown on the capture clock). At that observation the
  /// clock bridges the step on the sender's own clock: with the rate known,
  /// every later time is moved by what the TSvals show passed minus what
  /// the capture shows, so the fit, the phase and the echo samples stay
  /// consistent; with the rate not known yet, the fit starts over.
  void clock_stepped() { bridge_pending_ = true; }
  /// TSvals whose first send time is remembered (for the tests and limits).
  std::size_t remembered() const { return first_send_us_.size(); }
  /// From now on no first send time is kept (echo_rtt() of a clock that
  /// does not tick at 1 kHz finds none): for a sender whose samples are
  /// not taken (SenderEngine::feed_only). The fit, the phase, held_for() and
  /// what is written to the host are the same as with them.
  void forget_send_times() {
    keep_send_times_ = false;
    decltype(first_send_us_)().swap(first_send_us_);
  }

 private:
  bool one_khz() const { return rate() == 1000.0; }
  /// rate_hz() as a number, 0 when unknown. Asked several times per
  /// segment (observe, held_for, echo_rtt): answered from the caches while
  /// they hold (inline, no optional to build), refit_rate() otherwise.
  double rate() const {
    if (pooled_valid_ && pooled_host_version_ == (host_ ? host_->version : 0)) {
      if (pooled_hz_ != 0) return pooled_hz_;
      if (last_valid_) return last_hz_;
    }
    return refit_rate();
  }
  /// rate() with the stale caches refitted.
  double refit_rate() const;
  /// observe(); `write_host` false and `rate_then` set for observe_first_again.
  void observe(CaptureTime t, std::uint32_t tsval, bool write_host, const std::optional<double>* rate_then);
  std::int64_t us(CaptureTime t) const;  // on the bridged clock (saturated)
  /// The common rate in Hz from the host's ratio across connections, else this
  /// clock's best one (0: none snaps).
  std::uint16_t pooled_rate() const;
  struct FirstSend {
    std::uint32_t tsval;
    std::int64_t t_us;  // capture time of its first segment
  };

  // The members are in the order of how often they are used (the replay of
  // a capture is bound by the cache lines a segment touches): the first 64
  // bytes hold all that echoed() reads and the rate caches but the host's
  // version, which begins the next; 144 bytes in all. An optional value is a flag and a value (an optional's
  // padding would cost a line).
  bool seen_ = false;
  bool bridge_pending_ = false;
  // The last answers of rate()'s two sources, while valid: pooled_hz_ until
  // this clock's best ratio or its host's version changes, last_hz_ until
  // the next observe(). A rate is one of the common rates in Hz, 0 for none.
  mutable bool pooled_valid_ = false, last_valid_ = false;
  bool has_newest_ = false, has_echo_floor_ = false, has_last_tsval_ = false;
  bool has_min_offset_at_rate_ = false;
  bool keep_send_times_ = true;
  std::uint32_t ts0_ = 0;           // first TSval, origin of the unwrapped scale
  std::uint32_t newest_tsval_ = 0;  // the newest TSval observed (modulo 2^32), if has_newest_
  std::uint32_t echo_floor_ = 0;    // the newest echo, if has_echo_floor_: TSvals before it are forgotten
  std::uint32_t last_tsval_ = 0;    // the latest TSval observed, if has_last_tsval_ (repeats skip the map)
  mutable std::uint16_t pooled_hz_ = 0, last_hz_ = 0;  // rate()'s caches (see pooled_valid_)
  // The TSvals not yet echoed (at most limits::kTsSendTimesKept), ordered
  // modulo 2^32: appending is the common case, lookup a binary search.
  RingDeque<FirstSend> first_send_us_;
  HostClock* host_ = nullptr;
  mutable std::uint64_t pooled_host_version_ = 0;
  std::int64_t shift_us_ = 0;  // added to every capture time after the steps bridged so far
  // Least (capture us - TSval us) seen, at the fitted rate, if has_min_offset_at_rate_.
  double min_offset_at_rate_ = 0;
  std::int64_t t0_us_ = 0;          // capture time of the first TSval
  std::int64_t min_offset_us_ = 0;  // min over observations of t_us - rel_ts * 1000
  std::int64_t last_seen_us_ = 0;   // the bridged time of the latest observation
  std::int64_t last_rel_ts_ = 0;    // unwrapped TSval - ts0 of the latest observation
  std::int64_t last_t_us_ = 0;
  // The observation with the highest ticks-per-second since the first: a
  // segment captured late only lowers the ratio, so the highest is the one
  // captured on time (limits::kTsClockMinSpan at least).
  std::int64_t best_ticks_ = 0, best_span_us_ = 0;
};
static_assert(sizeof(TsClock) == 144, "the TsClock in 144 bytes: with a HostFeed's own, three cache lines");

}  // namespace replay
