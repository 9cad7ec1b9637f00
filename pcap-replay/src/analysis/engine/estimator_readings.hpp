#pragma once
// The sender's RTO estimator replayed under the profile, in the readings the
// capture leaves open: the RTT samples as the capture measured them, or
// corrected for a capture point away from the sender (the sender's true
// sample is somewhere between); and, for a profile that floors the sum (RFC
// 6298 2.4), the same arithmetic without the floor, which tells an expiry
// early only against the floor (2.4, SHOULD) from one early against the RTO
// (5.3/5.6, MUST). The estimators only smooth: the backoff belongs to the
// chain (chain_judge.hpp), so the SYN timer's expiries never reach the data
// timer's RTO except as 5.7 says.

#include <chrono>
#include <cstdint>
#include <optional>

#include <replay/analysis/options.hpp>

#include "analysis/engine/chain_judge.hpp"
#include "analysis/engine/replayed_rto.hpp"

namespace replay::engine {

class alignas(64) EstimatorReadings {
 public:
  /// Throws rto::ConfigError if options.config is invalid.
  explicit EstimatorReadings(const Options& options);

  /// A valid RTT sample R (sections 2 and 3; Linux's per-window variance
  /// decay reads SND.UNA and SND.NXT), and `raw`, the same sample before the
  /// capture-to-sender correction. False when the estimator refused it (over
  /// 1 hour: a capture clock that jumped), which changes nothing.
  bool on_sample(std::chrono::microseconds r, std::chrono::microseconds raw, std::uint32_t snd_una,
                 std::uint32_t snd_nxt);
  /// The handshake completed; `syn_timed_out`: the SYN (or SYN-ACK) timer
  /// expired before (5.7; Linux: 3 s only when the handshake gave no sample).
  void on_handshake_complete(bool syn_timed_out);

  /// What the first expiry of a data chain is compared with now (the RTO
  /// before the timer's lateness; the profile's slop is the lateness's).
  FirstExpectation data_expectation() const;
  /// What the first expiry of a SYN chain is compared with: the initial RTO.
  FirstExpectation syn_expectation() const;

  /// The corrected estimator (for the report and the timeline).
  const ReplayedRto& estimator() const { return est_; }
  bool has_sample() const { return est_.has_sample(); }
  /// The SYN timer expired: 5.7 applies when data begins.
  void on_syn_timeout() { syn_timed_out_ = true; }
  bool syn_timed_out() const { return syn_timed_out_; }
  /// The sender's RTO is not known from the capture (it began mid-stream and
  /// no sample has been seen yet): the first expiry is not compared with it.
  void set_unknown_start(bool unknown) { unknown_start_ = unknown; }
  /// 5.7's 3 s is in force (set at the handshake, no sample since).
  bool fallback_in_force() const { return fallback_in_force_; }
  /// The RTO the handshake's sample gave before 5.7 replaced it (nullopt:
  /// the handshake gave no sample).
  std::optional<std::chrono::microseconds> before_57() const { return before_57_; }

 private:
  const ReplayedRto& raw() const { return raw_same_ ? est_ : est_raw_; }
  const ReplayedRto& floorless_raw() const { return raw_same_ ? floorless_ : floorless_raw_; }

  // What a sample reads and writes, on as few cache lines as it fits: the
  // flags and est_'s estimator share the first line (est_ at byte 8: its
  // flag and estimator end at 64), each other reading's flag and estimator
  // begin a line of their own (their timers, read at the handshake and at
  // an expiry, after them). A sample under raw_same_ touches two lines.
  bool raw_same_ = true;
  bool floorless_on_ = false;
  bool syn_timed_out_ = false;
  bool handshake_done_ = false;
  bool unknown_start_ = false;
  // 5.7's 3 s replaced the samples' RTO at the handshake and no sample came
  // since; before_57_ is what the samples gave then (nullopt: none yet).
  bool fallback_in_force_ = false;
  ReplayedRto est_;                     // corrected samples
  alignas(64) ReplayedRto floorless_;  // the same without the 2.4 floor (floorless_on_)
  // The uncorrected pair, fed once the first sample differs from its raw
  // reading (until then they would hold est_'s and floorless_'s state).
  alignas(64) ReplayedRto est_raw_;
  alignas(64) ReplayedRto floorless_raw_;
  std::optional<std::chrono::microseconds> before_57_;
  const Options& opt_;
};
static_assert(sizeof(EstimatorReadings) == 576, "the four readings' estimators each begin a line (est_ beside the flags)");

}  // namespace replay::engine
