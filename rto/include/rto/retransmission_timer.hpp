#pragma once
// The retransmission timer of RFC 6298 section 5 (rules 5.1-5.7) and RFC
// 1122's R2 (when to give up), as netstack3 arranges it: the timer owns its
// deadline, the RTO in force with its backoff, the SYN's linear expiries and
// the retry limits; the estimator (rto/estimator.hpp) only smooths.

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "rto/clamped_rto.hpp"
#include "rto/clock.hpp"
#include "rto/config.hpp"
#include "rto/export.h"

namespace rto {

/// Linux's tcp_retries2 default: 15 expiries in a row for a data segment.
inline constexpr unsigned kDefaultMaxDataBackoffs = 15;
/// Linux's tcp_syn_retries default: 6 expiries in a row for the SYN.
inline constexpr unsigned kDefaultMaxSynBackoffs = 6;

/// When a connection gives up retransmitting: RFC 1122 4.2.3.5's R2,
/// counted as expiries in a row without progress and as time since the
/// first of them.
struct RetryLimits {
  /// Give up at the expiry that finds this many backoffs in a row already
  /// done for a data segment (each earlier expiry retransmitted it).
  unsigned max_backoffs = kDefaultMaxDataBackoffs;
  /// The same for the SYN (RFC 1122 4.2.3.5: R2 for a SYN at least 3 minutes).
  unsigned max_syn_backoffs = kDefaultMaxSynBackoffs;
  /// Give up at an expiry this long or longer after the first expiry since
  /// the last progress; zero (or negative) = no time limit.
  std::chrono::microseconds max_retry_time{0};
};

/// What an expiry allows (RFC 1122 4.2.3.5).
enum class RetryVerdict : std::uint8_t {
  Retransmit,    ///< within the limits: the timer backed off and restarted
  BackoffLimit,  ///< max_backoffs / max_syn_backoffs reached: give up (the timer stopped)
  TimeLimit,     ///< max_retry_time reached: give up (checked before the count; the timer stopped)
};

/// The outcome of an expiry (RetransmissionTimer::on_expiry, on_syn_expiry).
struct Expiry {
  /// Retransmit, or give up.
  RetryVerdict verdict;
  /// The section 5 note: this expiry made reset_after_backoffs backoffs in a
  /// row, so SRTT and RTTVAR should be cleared now (Estimator::forget()); the
  /// backed-off RTO stays in force.
  bool forget_rtt;
};

/// One connection's retransmission timer. It holds an absolute deadline on
/// the caller's monotonic clock (rto::Instant, us) and never reads a clock,
/// starts a thread or allocates; the caller polls expired(now) or registers
/// deadline() with a TimerWheel. It holds the RTO in force: the estimator's
/// latest RTO (given by on_rtt_sample), or the 2.1 initial one, or the 5.7
/// fallback, doubled per backoff (5.5) up to the cap (2.5). It never touches
/// the estimator: the caller passes what it needs (the new RTO, whether the
/// handshake gave a sample) and applies Expiry::forget_rtt.
///
/// Size: 64 bytes (kBytes), one cache line.
class RTO_API RetransmissionTimer {
 public:
  /// RFC 6298 defaults (Config::rfc6298(): RTO 1 s, cap 60 s, 5.7 fallback
  /// 3 s, no linear SYN expiries) and the default RetryLimits. Stopped.
  RetransmissionTimer() noexcept : RetransmissionTimer(Config::rfc6298(), RetryLimits{}, Trusted{}) {}
  /// The timer rules of `profile` (validated: throws ConfigError): its
  /// initial RTO (2.1), floor and cap (2.4, 2.5), SYN linear expiries, 5.7
  /// fallback and rule (RFC 6298 or Linux, by its variant), section 5 reset;
  /// and R2's `limits`. Stopped.
  explicit RetransmissionTimer(const Config& profile, const RetryLimits& limits = {});

  // ---- the RTO in force (2.1, 5.5, 5.7, the note after 5.7) ----

  /// The RTO the timer arms with: base_rto() doubled backoff() times, at most
  /// the cap (5.5, 2.5).
  Rto rto() const { return base_.backed_off(backoff_); }
  /// The RTO before backoff: the 2.1 initial RTO, the estimator's latest
  /// (on_rtt_sample), or the 5.7 fallback.
  Rto base_rto() const { return base_; }
  /// Doublings since the last RTT sample or 5.7 fallback (5.5); 0 when not
  /// backing off. Saturates at Config::kMaxCount.
  unsigned backoff() const { return backoff_; }
  /// A new RTT sample gave the estimator the RTO `computed` (2.2, 2.3): it
  /// becomes the RTO in force, ending any backoff (the note after 5.7: "the
  /// RTO is recomputed from SRTT and RTTVAR", so the backoff collapses).
  /// The deadline of a running timer is not moved (5.3 restarts it).
  void on_rtt_sample(Rto computed) noexcept {
    // The note after 5.7: a new RTT sample recomputes the RTO, which collapses
    // the backoff of 5.5. impl: RFC6298-5-collapse
    base_ = computed;
    backoff_ = 0;
  }

  // ---- section 5 ----

  /// A segment containing data was sent at `now` (5.1): a stopped timer
  /// starts, to expire rto() later. A running timer is left alone (more data
  /// or a fast retransmit does not move it).
  void on_data_sent(Instant now);
  /// All outstanding data has been acknowledged (5.2): the timer stops. This
  /// is progress: R2's count and clock start again.
  void on_all_acked();
  /// An ACK of new data arrived at `now` with data still outstanding (5.3):
  /// the timer restarts, to expire rto() later. Progress, as on_all_acked.
  /// Duplicate ACKs must not call it (they acknowledge nothing new).
  void on_new_data_acked(Instant now);
  /// The timer expired at `now` (5.4-5.6). First R2: the time limit (from the
  /// first expiry since progress), then the count; a verdict other than
  /// Retransmit stops the timer and changes nothing else. Otherwise the RTO
  /// is doubled (5.5, capped) and the timer restarts from `now` with it
  /// (5.6), and the caller retransmits the earliest unacknowledged segment
  /// (5.4). The result must be read: it may say to give up, or to clear the
  /// estimator (forget_rtt).
  [[nodiscard]] Expiry on_expiry(Instant now);
  /// As on_expiry, for the timer of an unacknowledged SYN (R2 with
  /// max_syn_backoffs): the first syn_linear_timeouts expiries keep the RTO
  /// (Linux tcp_syn_linear_timeouts; none in RFC 6298), the later ones double it.
  [[nodiscard]] Expiry on_syn_expiry(Instant now);
  /// The three-way handshake completed; data transmission begins (5.7).
  /// RFC 6298: if a SYN timed out (`syn_timed_out`) and the RTO before
  /// backoff is below syn_fallback_rto (3 s), the RTO becomes 3 s and the
  /// backoff ends: after two lost SYNs (1 s, then 2 s) data starts with 3 s,
  /// not 4 s. An RTO before backoff already >= 3 s keeps its backed-off value.
  /// Linux (tcp_init_metrics): the fallback applies when the handshake gave no
  /// RTT sample (`rtt_sampled` false: the estimator's has_sample()), whether a
  /// SYN timed out or not. Either way only the RTO: SRTT and RTTVAR are not
  /// seeded, so the next sample is a first sample (2.2).
  void on_handshake_complete(bool syn_timed_out, bool rtt_sampled);
  /// Restarts the timer from `from` with rto(), for a re-arm a stack adds to
  /// section 5 (Linux: a retransmission of the head in
  /// tcp_xmit_retransmit_queue, an RTT sample from a SACK). `from` may be in
  /// the past (Linux counts from the head segment's send time, tcp_rearm_rto).
  void restart(Instant from);
  /// Restarts the timer from `from` with `rto` instead (Linux arms a loss
  /// probe's timeout on this timer, tcp_schedule_loss_probe).
  void restart(Instant from, Rto rto);
  /// Stops the timer (the connection closed or failed); not progress.
  void stop() { deadline_ = kStopped; }

  /// True when the timer is running and `now` >= its deadline (never early).
  bool expired(Instant now) const { return running() && now >= deadline_; }
  /// The absolute expiry time; Instant::max() when stopped.
  Instant deadline() const { return running() ? deadline_ : Instant::max(); }
  /// True while the timer is running.
  bool running() const { return deadline_ != kStopped; }
  /// Expiries in a row since the last progress (R2's count).
  unsigned consecutive_expiries() const { return retries_; }

  /// sizeof(RetransmissionTimer): deadline, R2's give-up time and time limit
  /// 3 * 8, the base RTO 8, the fallback, two R2 counts and the R2 count so
  /// far 4 * 4, four 16-bit counts and limits 8, the 5.7 rule 1, padding 7.
  static constexpr std::size_t kBytes = 64;

 private:
  struct Trusted {};
  RetransmissionTimer(const Config& profile, const RetryLimits& limits, Trusted) noexcept;
  /// The deadline of a stopped timer. Every start is at least 1 us after its
  /// `from` (an Rto is at least 1 us), so no running timer holds it.
  static constexpr Instant kStopped = Instant::min();
  RetryVerdict check_limits(Instant now, bool syn);
  bool back_off();
  void on_progress();

  Instant deadline_ = kStopped;
  Instant give_up_at_ = kStopped;  // R2: the first expiry since progress + max_retry_time; kStopped: none yet
  std::chrono::microseconds max_retry_time_;
  Rto base_;                         // the RTO before backoff
  std::uint32_t fallback_us_;        // 5.7 (syn_fallback_rto)
  std::uint32_t max_backoffs_;       // R2 for data
  std::uint32_t max_syn_backoffs_;   // R2 for the SYN
  std::uint32_t retries_ = 0;        // R2: expiries in a row since progress
  std::uint16_t backoff_ = 0;        // doublings since the last sample or fallback (5.5)
  std::uint16_t syn_timeouts_ = 0;   // SYN expiries (the linear ones are not backoffs)
  std::uint16_t syn_linear_;         // Linux tcp_syn_linear_timeouts
  std::uint16_t reset_after_;        // section 5 note: forget after this many backoffs (0: never)
  bool linux_fallback_;              // 5.7 as Linux applies it (no handshake sample) or as RFC 6298
};

}  // namespace rto
