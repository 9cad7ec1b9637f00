#pragma once
// Re-runs the sender's retransmission timer along its timeline: an
// rto::Estimator with the chosen profile fed with the replayed RTT samples,
// the section 5 timer events (5.1 start, 5.2 stop, 5.3 restart on an ACK of
// new data, 5.5/5.6 backoff and restart, 5.7 SYN fallback), and, at every
// timeout retransmission in the capture, the prediction it is compared with.
// Departures become Findings (rules.hpp) in the SenderReport.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <rto/estimator.hpp>

#include "flow_report.hpp"
#include "options.hpp"

namespace replay {

/// The timer model of one sender. Events must come in capture order.
class TimerReplay {
 public:
  /// Throws rto::ConfigError if options.config is invalid.
  TimerReplay(const Options& options, SenderReport& out);

  /// Data was sent while nothing was outstanding: 5.1 starts the timer.
  void on_timer_start(CaptureTime t);
  /// An ACK of new data. `all_acked`: nothing outstanding any more (5.2 stops
  /// the timer), else 5.3 restarts it. `oldest_send`: last send time of the
  /// earliest still-unacknowledged segment (Linux rearms from it).
  /// `ambiguous`: the ACK covered retransmitted data and gave no sample.
  void on_ack_new_data(CaptureTime t, bool all_acked, std::optional<CaptureTime> oldest_send,
                       bool ambiguous);
  /// A valid RTT sample R (section 2/3), with SND.UNA/SND.NXT for the Linux window.
  void on_sample(std::chrono::microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt);
  /// The handshake completed (our SYN was acknowledged) at `frame`; 5.7.
  /// Under the rfc6298 profile, when the SYN timed out and the handshake gave
  /// an RTT sample (a timestamp echo), whether the sender used 3 s is only
  /// visible if a data timeout fires before the next sample: the first such
  /// timeout is judged (MUST 5.7 if earlier than 3 s); otherwise, at the next
  /// sample or at finish(), an INFO 5.7 note says it was not verifiable.
  void on_handshake_complete(std::uint64_t frame, CaptureTime t, bool sample_in_handshake,
                             std::optional<std::chrono::microseconds> handshake_sample);
  /// End of the capture: settles a 5.7 check still open (INFO note).
  void finish();
  /// A TLP was sent: Linux restarts the RTO timer with a full RTO.
  void on_probe(CaptureTime t);
  /// New data sent on a timer while data was outstanding (a Linux TLP that
  /// sends new data, or an application write): may have restarted the timer,
  /// so a later first timeout is not reported late against the ACK.
  void on_new_data_probe(CaptureTime t);
  /// The head segment (SND.UNA) was retransmitted by fast retransmit: Linux
  /// restarts the RTO timer (tcp_xmit_retransmit_queue).
  void on_head_retransmit(CaptureTime t);
  /// A timeout retransmission (kind timeout or syn_timeout) of relative
  /// sequence `rel_seq` while SND.UNA was `rel_una`. `head_send`: last send
  /// time of the head segment before this retransmission. `check`: false
  /// when the capture holds nothing from the peer (only SYN retransmissions
  /// get here then; data repeats are SendKind::unclassified): the timeout is
  /// recorded ("unchecked") and backs off, but no rule is judged.
  /// From the second expiry of a chain on, 5.5 (or 2.5) is judged against
  /// the observed previous interval: expected min(2 x it, max RTO), 1 x for
  /// the profile's linear SYN timeouts or once it reached the max RTO.
  void on_timeout(std::uint64_t frame, CaptureTime t, bool syn, std::uint32_t rel_seq,
                  std::uint32_t rel_una, std::optional<CaptureTime> head_send, bool check = true);

  /// Timeouts in the current chain (since the last ACK of new data).
  unsigned chain_length() const { return static_cast<unsigned>(chain_.size()); }
  /// Observed wait of the last expiry of the current chain (since the timer
  /// was last armed, or since the previous expiry); 0 when the chain is empty.
  std::chrono::microseconds last_expiry_wait() const {
    return chain_.empty() ? std::chrono::microseconds{0} : chain_.back().waited;
  }
  /// True when a TLP was sent since the last ACK of new data.
  bool probe_since_ack() const { return probe_since_ack_; }
  /// Time the timer was last (re)armed by any event (for the classifier).
  std::optional<CaptureTime> last_arm() const { return arm_any_; }
  /// The replayed estimator (profile's algorithm).
  const rto::Estimator& estimator() const { return est_; }

 private:
  struct ChainEntry {
    CaptureTime time;
    std::chrono::microseconds waited;
    std::chrono::microseconds predicted;
    bool from_timeout;  // waited measured from the previous timeout / SYN send
    bool syn;
    // The wait counted from a new-data probe sent in the first half of `waited`
    // instead: the probe may or may not have restarted the RTO (Linux restarts
    // it in tcp_send_loss_probe, but an RTO already due is not pushed back), so
    // the next expiry's doubling (5.5) is accepted against either interval.
    std::optional<std::chrono::microseconds> waited_since_probe;
  };
  void add(std::string_view rule, std::uint64_t frame, CaptureTime t, std::string message);
  /// Adds the INFO 5.7 note of an open check (see on_handshake_complete) and closes it.
  void note_57_unverifiable(std::string_view why);
  std::chrono::microseconds floorless_rto() const;

  const Options& opt_;
  SenderReport& out_;
  rto::Estimator est_;
  std::optional<rto::Estimator> floorless_;  // rfc6298 profile: same samples, no 1 s floor (2.4 diagnosis)
  std::optional<CaptureTime> arm_rfc_;       // 5.1 / 5.3 / 5.6
  std::string_view arm_rfc_by_ = "send";
  std::optional<CaptureTime> arm_any_;       // also TLP and head retransmissions (Linux)
  std::string_view arm_any_by_ = "send";
  std::optional<CaptureTime> oldest_send_;
  std::optional<CaptureTime> new_data_probe_;   // at the last ACK of new data
  std::vector<ChainEntry> chain_;
  bool chain_departed_ = false;   // a timeout of this chain already departed: compare ratios only
  bool chain_doubled_ = false;    // the chain doubled at least once
  bool probe_since_ack_ = false;
  bool karn_pending_ = false;     // ambiguous ACK while backed off, no sample since
  bool syn_timed_out_ = false;
  bool data_sample_since_handshake_ = false;
  bool handshake_done_ = false;
  // 5.7 not yet visible on the wire (rfc6298 profile, SYN timed out, sample in
  // the handshake): where the note goes if no data timeout shows it.
  struct Open57 {
    std::uint64_t frame;
    CaptureTime time;
    std::chrono::microseconds sample;
    std::size_t findings_index;  // keeps findings in capture order
  };
  std::optional<Open57> open_57_;
};

}  // namespace replay
