#pragma once
// RFC 5681 congestion control with NewReno fast retransmit and fast recovery
// (RFC 6582). Pure arithmetic on byte counts; the sender tells it about ACKs
// and timeouts and asks how much it may have in flight (cwnd).

#include <cstdint>

namespace netstack {

/// cwnd / ssthresh state of one connection (RFC 5681 section 3, RFC 6582).
/// Sequence numbers passed in are absolute 32-bit values (modulo 2^32).
class NewReno {
 public:
  /// `smss` bytes per segment; `initial_window_segments` 0 picks RFC 5681
  /// 3.1's IW (SMSS > 2190: 2, > 1095: 3, else 4 segments); `iss` seeds
  /// `recover` (RFC 6582 3.2 step 1). ssthresh starts "arbitrarily high".
  NewReno(std::uint32_t smss, std::uint32_t initial_window_segments, std::uint32_t iss);

  /// The SMSS changed (after the peer's MSS option): recomputes the IW.
  void reset_smss(std::uint32_t smss, std::uint32_t initial_window_segments);

  /// An ACK of new data outside fast recovery (RFC 5681 3.1): slow start
  /// cwnd += min(bytes_acked, SMSS) while cwnd < ssthresh, else congestion
  /// avoidance cwnd += SMSS*SMSS/cwnd (at least 1 byte).
  void on_ack_of_new_data(std::uint32_t bytes_acked);

  /// A duplicate ACK (RFC 5681 section 2, or a SACK-bearing one per
  /// RFC 6675 section 2 / 5; the sender decides which count) numbered `count`
  /// (1, 2, 3 ...). Returns true when this is the third and the sender must
  /// fast-retransmit (RFC 6582 3.2 steps 2-3: only if `ack` covers more than
  /// `recover`): ssthresh = max(FlightSize/2, 2*SMSS), recover = highest
  /// sequence number sent, cwnd = ssthresh + 3*SMSS. In recovery each further
  /// duplicate inflates cwnd by SMSS (step 4).
  bool on_dup_ack(unsigned count, std::uint32_t ack, std::uint32_t flight_size, std::uint32_t snd_max);

  /// An ACK of new data while in fast recovery (RFC 6582 3.2 steps 5-6).
  /// Returns true for a partial ACK (the caller retransmits the first
  /// unacknowledged segment): cwnd deflates by `bytes_acked` and grows back
  /// by SMSS if at least SMSS was acknowledged. A full ACK (covering recover)
  /// ends recovery with cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS),
  /// `flight_size` being the data still outstanding after this ACK.
  bool on_recovery_ack(std::uint32_t ack, std::uint32_t bytes_acked, std::uint32_t flight_size);

  /// The retransmission timer expired (RFC 5681 3.1 eq. 4 and the loss window):
  /// ssthresh = max(FlightSize/2, 2*SMSS) unless the segment had already been
  /// retransmitted by a timeout (`repeated`: ssthresh held), cwnd = 1 SMSS,
  /// recover = highest sequence number sent (RFC 6582 3.2 step 4 note), and
  /// fast recovery ends.
  void on_timeout(std::uint32_t flight_size, std::uint32_t snd_max, bool repeated);

  /// Congestion window, bytes.
  std::uint32_t cwnd() const { return cwnd_; }
  /// Slow-start threshold, bytes.
  std::uint32_t ssthresh() const { return ssthresh_; }
  /// In NewReno fast recovery.
  bool in_recovery() const { return in_recovery_; }
  /// RFC 6582 "recover": highest sequence number sent when recovery began.
  std::uint32_t recover() const { return recover_; }
  std::uint32_t smss() const { return smss_; }

 private:
  std::uint32_t smss_;
  std::uint32_t cwnd_;
  std::uint32_t ssthresh_ = 0x7FFFFFFF;
  std::uint32_t recover_;
  bool in_recovery_ = false;
};

}  // namespace netstack
