#pragma once
// One direction of a connection seen as a sender: what it has sent and what
// the peer acknowledged (SND.UNA, SND.MAX, the outstanding segments), which
// of its segments are retransmissions and of what kind, the RTT samples it
// could take from the peer's ACKs, and its replayed timer (TimerModel).
// Each repeated range is explained (explanation.hpp) before the timer hears of it.

#include <cstdint>
#include <optional>
#include <set>

#include <rto/seq.hpp>

#include <replay/flow_report.hpp>
#include <replay/options.hpp>
#include <replay/ring_deque.hpp>
#include "analysis/explanation.hpp"
#include "analysis/node_pool.hpp"
#include "analysis/clock_steps.hpp"
#include <replay/rtt_sampling.hpp>
#include <replay/segment.hpp>
#include "analysis/timer_model.hpp"

namespace replay {

/// The sender model of one direction. Feed every segment of the connection
/// in capture order: on_send() for the segments this side sent, on_peer()
/// for the segments the other side sent (their ACKs). Results go to the
/// SenderReport given at construction (which must outlive the model).
class SenderModel {
 public:
  /// `host`: the sending host's pooled TSval rate (may be null; must outlive the model).
  /// `activity`: the sending host's activity, fed by this model when
  /// `feed_activity` (one model per packet feeds it), read by all.
  SenderModel(const Options& options, SenderReport& out, bool keep_timeline, HostClock* host = nullptr,
              HostActivity* activity = nullptr, bool feed_activity = false);

  /// A segment sent by this side.
  void on_send(const Segment& s);
  /// on_send(s) for the sender's first segment, in a model created after it
  /// was captured (before any other segment of the connection was given to
  /// a model): what on_send did to state shared with other connections was
  /// done when `s` was captured, and is not done again. That is its host's
  /// TSval clock (TsClock::observe_first_again: `rate_then` is the rate a new
  /// TsClock of the host read right after observing `s` then) and its
  /// host's activity (fed then, with whether `s` was held:
  /// first_send_held()).
  void replay_first_send(const Segment& s, std::optional<double> rate_then);
  /// Whether on_send(s) would tell the host activity that the sender's first
  /// segment `s` was held (HostActivity::observe): its TSval shows it was
  /// sent limits::kFlushHeld before its capture, on `clock`, a new TsClock of
  /// the host that has just observed `s`. A first segment is no pure ACK of
  /// peer data (no peer data was heard), so only the TSval can say so.
  static bool first_send_held(const TsClock& clock, const Segment& s);
  /// A segment sent by the peer (ACK, SACK, window, timestamps echo).
  void on_peer(const Segment& s);
  /// Copies the final estimator state into the report.
  void finish();
  /// The clock steps of this connection's input (may be null: none; must
  /// outlive the model). An interval across a step is unknown: no RTT
  /// sample, no timer verdict (an INFO), no ACK-clock or quiet-period
  /// evidence is taken from it.
  void set_clock_steps(const ClockSteps* c) {
    clock_ = c;
    timer_.set_clock_steps(c);
  }

  /// Relative sequence number as Wireshark shows it (ISN = 0).
  std::uint32_t rel(std::uint32_t seq) const { return seq - isn_; }
  /// Segments sent and not yet acknowledged (the state that grows with the
  /// window; --max-outstanding bounds it).
  std::size_t outstanding() const { return outstanding_.size(); }

 private:
  struct Hole {  // sequence space skipped by a first transmission, not yet seen
    std::uint32_t seq, end;
    CaptureTime time;  // when the segment beyond it was seen
  };
  struct Tx {  // one transmitted range of sequence space
    std::uint32_t seq, end;
    CaptureTime first_time, last_time;
    std::uint64_t first_frame;
    bool retransmitted;
    bool sacked = false;
  };
  /// Marks the outstanding segments the SACK blocks of `h` newly cover;
  /// returns true and sets `first` to the last send time of the first of
  /// them never retransmitted (Linux tcp_sacktag_one's first_sackt), if any.
  bool apply_sack(const wire::TcpHeader& h, CaptureTime& first);
  /// A timeline event (when kept) at sequence number `seq` (absolute; the
  /// event shows it relative, rel()).
  void record(const Segment& s, std::string_view event, std::uint32_t seq,
              std::optional<std::chrono::microseconds> sample = std::nullopt,
              std::optional<SampleKind> kind = std::nullopt);
  /// False when the estimator refused it (SenderReport::samples_refused).
  bool take_sample(const Segment& s, std::chrono::microseconds r, SampleKind kind);
  /// A sample from an ACK the capture saw before it reached a distant sender
  /// is held until it has (one capture-to-sender round trip): a
  /// retransmission of the acknowledged data captured before then was sent
  /// before the ACK arrived, so the sender could take no sample (Karn).
  void settle_pending_sample(CaptureTime now);
  struct PendingSample {
    std::chrono::microseconds r;
    CaptureTime until;
    // The timeline event that shows it (its "ack"), to clear if it is refused.
    std::optional<std::size_t> event;
    std::uint32_t ack, snd_una, snd_nxt;
    SampleKind kind;
  };
  void mark_retransmitted(std::uint32_t seq, std::uint32_t end, CaptureTime t);
  /// True (and an INFO finding added) when the timer was armed after `s`'s
  /// capture time: the capture clock stepped back, the expiry's wait is unknown.
  bool clock_stepped_back(const Segment& s);
  /// The capture clock stepped between `a` and `b` (model times).
  bool across_step(CaptureTime a, CaptureTime b) const { return clock_ && clock_->spans(a, b); }

  /// Capture-to-sender round trip and handshake RTT from the SYN exchange.
  void learn_handshake_delays();
  /// True when a transmission at `t` can be a response to one of the
  /// peer's recent segments (the ACK clock), given where the capture is.
  bool ack_clocked(CaptureTime t) const;
  /// acked_through_ moved forward by `moved`: counts the leading entries of
  /// peer_data_ it now covers (O(1) amortised; see the .cpp for exactness).
  void skip_acked_peer_data(std::uint32_t moved);
  /// True (and the hole shrunk) when [seq, end) lies in a hole seen recently.
  bool fill_hole(std::uint32_t seq, std::uint32_t end, CaptureTime t);
  void insert_outstanding(const Tx& x);
  void push_outstanding(const Tx& x);
  void pop_outstanding();
  /// The front segment now starts at `seq` (a partial ACK trimmed it).
  void trim_front(std::uint32_t seq);
  /// Outstanding segments not SACKed (O(1)).
  unsigned in_flight() const { return unsacked_count_; }
  /// The scoreboard key of `seq`: sequence space unwrapped to 64 bits around SND.UNA.
  std::int64_t sb_key(std::uint32_t seq) const { return una64_ + rto::seq_diff(seq, snd_una_); }

  // The members are in the order of how often they are used: first what
  // most segments read or write, then the model's TSval clock and timer,
  // then what only handshakes, losses and SACK use, so a segment touches
  // few cache lines (the replay of a capture is bound by them). The class
  // is not over-aligned on purpose: glibc cannot reuse a freed block of an
  // aligned allocation for the next one (bench/README.md, fourth pass).
  std::optional<PendingSample> pending_sample_;
  SenderReport& out_;
  const ClockSteps* clock_ = nullptr;
  // Set while replay_first_send() runs: the rate its TsClock reads.
  const std::optional<double>* replay_rate_ = nullptr;
  HostActivity* activity_ = nullptr;
  std::int64_t una64_ = std::int64_t{1} << 32;  // SND.UNA unwrapped (sb_key's origin)
  std::uint32_t snd_una_ = 0;  // SND.UNA
  std::uint32_t snd_max_ = 0;  // highest sequence sent + its length
  unsigned unsacked_count_ = 0;  // outstanding segments not SACKed
  unsigned dupacks_ = 0;
  // The leading entries of peer_data_ at or below acked_through_, which the
  // late-ACK test skips, and how far acked_through_ moved since they were
  // counted (skip_acked_peer_data: the count is redone before 2^30).
  std::uint32_t peer_data_acked_ = 0;
  std::uint32_t acked_moved_ = 0;
  std::uint16_t peer_window_ = 1;
  bool keep_timeline_;
  bool feed_activity_ = false;
  bool started_ = false;
  bool syn_seen_ = false, syn_acked_ = false;
  // The SACK scoreboard (unsacked_) is built.
  bool scoreboard_ = false;
  // RTO recovery: after a timeout until SND.UNA reaches recovery_point_.
  bool in_rto_recovery_ = false;
  // Fast recovery: after a fast retransmit until SND.UNA reaches its point.
  bool in_fast_recovery_ = false;
  bool last_send_ack_triggered_ = false;
  bool sack_evidence_ = false;
  bool peer_timestamps_ = false;
  bool handshake_seen_ = false;       // the handshake as the capture saw it
  bool peer_syn_since_synack_ = false;  // a (duplicate) SYN from the peer demands our SYN-ACK again
  std::optional<std::uint32_t> acked_through_;  // the highest ACK this side sent
  // RFC 7323: the newest TSval this sender had sent.
  std::optional<std::uint32_t> newest_tsval_;
  // The newest TSval sent before the capture clock last stepped: an echo of
  // it (or older) measures across the step.
  std::optional<std::uint32_t> tsval_before_step_;
  // The round trip from the capture point to the sender, from the SYN exchange.
  std::optional<std::chrono::microseconds> sender_rtt_;
  // Feedback from the peer.
  std::optional<CaptureTime> last_peer_time_;
  std::optional<CaptureTime> last_send_time_;
  std::optional<CaptureTime> last_data_send_time_;  // last data-bearing segment (SYN/FIN count)
  // The post-RTO burst: time of its last retransmission (the expiry's or a
  // burst member's); cleared by any segment from the peer.
  std::optional<CaptureTime> burst_last_;
  std::optional<std::uint64_t> pending_54_;  // an expiry that resent a segment above SND.UNA, head not yet in its burst
  RingDeque<Tx> outstanding_;
  RingDeque<CaptureTime> peer_times_;  // the peer's latest segments (limits::kAckClockHistory)
  RingDeque<std::pair<std::uint32_t, CaptureTime>> peer_data_;  // (end seq, capture time) of the peer's data
  RingDeque<Hole> holes_;

  TsClock ts_clock_;
  TimerModel timer_;

  // Used by handshakes, repeats, losses and SACK.
  const Options& opt_;
  std::uint32_t isn_ = 0;
  std::uint32_t recovery_point_ = 0;  // (in_rto_recovery_)
  std::uint32_t fast_recovery_point_ = 0;
  std::optional<std::uint32_t> burst_tsval_;  // the TSval of the burst's last retransmission, if any
  std::optional<std::uint32_t> zwp_seq_;  // the byte a zero-window probe carried
  // The handshake as the capture saw it, and its RTT.
  std::optional<CaptureTime> own_syn_, peer_syn_, own_synack_, peer_synack_;
  std::optional<std::chrono::microseconds> hs_rtt_;
  std::optional<std::uint64_t> syn_acked_frame_;
  bool own_sack_ok_ = false, peer_sack_ok_ = false;
  bool syn_lost_ack_noted_ = false;
  // The SACK scoreboard: the keys (sb_key) of the outstanding segments not
  // yet SACKed, so an ACK whose blocks cover n already SACKed segments costs
  // O(log n), not O(n). Built at the first SACK block (until then empty).
  // Its nodes are reused (NodePool): the key every data segment adds costs
  // no malloc/free.
  std::set<std::int64_t, std::less<std::int64_t>, NodePool<std::int64_t>> unsacked_;
};

}  // namespace replay
