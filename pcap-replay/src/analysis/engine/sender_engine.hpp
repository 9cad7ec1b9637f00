#pragma once
// The verdict engine of one sender: one direction of a connection, replayed
// segment by segment in capture order. It rebuilds the sender's state as
// types (handshake, recovery, SND.UNA / SND.MAX, the timer's arm), explains
// every transmission from that state (causes.hpp), takes the RTT samples the
// sender could have taken, and gathers each timer's expiries into chains
// that the chain judge settles when they end (chain_judge.hpp). Judgements
// go to the SenderReport's log (append only); report/ words them.
//
// The per-segment path (in-order data, ACKs that advance SND.UNA) touches
// a flat record per sender: no allocation, no search over history.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <rto/seq.hpp>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/options.hpp>
#include <replay/analysis/ring_deque.hpp>
#include <replay/analysis/rtt_sampling.hpp>
#include <replay/input/segment.hpp>

#include "analysis/clock_steps.hpp"
#include "analysis/engine/causes.hpp"
#include "analysis/engine/chain_judge.hpp"
#include "analysis/engine/estimator_readings.hpp"
#include "analysis/engine/host_feed.hpp"
#include "analysis/engine/sender_state.hpp"
#include "analysis/engine/unheard_ack.hpp"
#include "analysis/host_activity.hpp"

namespace replay {
struct RecentRing;  // analysis/capture_copy.hpp
}  // namespace replay

namespace replay::engine {

// The engine's files (sender_*.cpp) compare sequence numbers modulo 2^32
// (RFC 9293 3.4) and count time in microseconds throughout.
using std::chrono::microseconds;
using rto::seq_ge;
using rto::seq_gt;
using rto::seq_le;
using rto::seq_lt;

/// The engine of one direction. Feed every segment of the connection in
/// capture order: on_send() for the segments this side sent, on_peer() for
/// the segments the other side sent. Results go to the SenderReport given at
/// construction (which must outlive the engine).
/// Whether a segment given to SenderEngine::on_send feeds its host's shared
/// state (SenderEngine::on_send).
enum class HostEffect : bool { fed, none };

class alignas(64) SenderEngine {  // on a cache line: the hot members below share as few as they can
 public:
  /// ACKs of new data whose earlier state the engine keeps in a ring beside
  /// the hot members, for when the sender shows it did not receive them (it
  /// resends what they acknowledged): one lost ACK, or a few in a row, is
  /// the common case.
  static constexpr std::size_t kUnheardAcksKept = 4;
  /// A delay spike after the capture point (a capture at the receiver)
  /// holds every ACK of a window: the states before the ACKs older than the
  /// ring's are kept too, up to this many, until the sender shows it heard
  /// them (its TSecr, an answer). Past them, with timestamps the oldest stay
  /// (each one the TSecr shows unheard; an expiry resends from the SND.UNA
  /// before the first), and a resend of data one of the ACKs between them
  /// and the ring first acknowledged is called spurious; without, the
  /// newest stay (nothing but time shows an ACK heard).
  static constexpr std::size_t kUnheardAcksAway = 256;
  /// An ACK the sender did not hear leaves the data it acknowledges
  /// outstanding, and the timer (armed before the ACK) resends that data
  /// within an RTO of it: an older one without a TSval (with one, the
  /// sender's TSecr tells), kept beyond the ring, whose data was not resent
  /// within this many times the current RTO (the timer's lateness, the
  /// estimate's error) was heard, and is dropped ...
  static constexpr int kUnheardAckRtos = 2;
  /// ... nor within this long: RFC 6298's least RTO (2.4), so that a
  /// profile whose RTO is far below the sender's (--profile auto trying
  /// each) does not drop what the sender's own timer still resends.
  static constexpr std::chrono::microseconds kUnheardAckMinHorizon{1'000'000};
  /// An older one this far (bytes) behind the newest ACK is dropped: a
  /// quarter of the sequence space, so that seq_lt() and seq_ge() on it
  /// never wrap.
  static constexpr std::int32_t kUnheardAckSpan = std::int32_t{1} << 30;
  /// RTT samples from ACKs the sender may not have processed yet, held until
  /// it must have (a resend of what one acknowledged before then shows it
  /// had not: Karn, no sample). When more arrive, the oldest is taken.
  static constexpr std::size_t kPendingSamplesKept = 4;

  /// `host`: the sending host's pooled TSval rate (may be null; must outlive the engine).
  /// `activity`: the sending host's activity, fed by this engine when
  /// `feed_activity` (one engine per packet feeds it), read by all.
  /// Throws rto::ConfigError if options.config is invalid.
  SenderEngine(const Options& options, SenderReport& out, bool keep_timeline, HostClock* host = nullptr,
               HostActivity* activity = nullptr, bool feed_activity = false);

  /// A segment sent by this side. HostEffect::none: it changes nothing
  /// shared with other connections (its host's TSval clock and activity),
  /// as a capture copy does not: the answer after a held SYN-ACK, which a
  /// shard that does not judge the connection reads as a copy
  /// (second_of_held_synack), so every shard's hosts see the same.
  void on_send(const Segment& s, HostEffect effect = HostEffect::fed);
  /// on_send(s) for the sender's first segment, in an engine created after
  /// it was captured (before any other segment of the connection was given
  /// to an engine): what on_send did to state shared with other connections
  /// was done when `s` was captured and is not done again (its host's TSval
  /// clock: `rate_then` is the rate a new TsClock of the host read right
  /// after observing `s` then; its host's activity).
  void replay_first_send(const Segment& s, std::optional<double> rate_then);
  /// What on_send(s) would tell the host activity of the sender's first
  /// segment `s` (HostActivity::observe): HoldSign::tsval when its TSval
  /// shows it was sent limits::kFlushHeld before its capture, on `clock`, a
  /// new TsClock of the host that has just observed `s` (a first segment
  /// shows no other sign).
  static HoldSign first_send_held(const TsClock& clock, const Segment& s);
  /// A segment sent by the peer (ACK, SACK, window, timestamps echo).
  void on_peer(const Segment& s);
  /// End of the connection: settles every open chain and pending judgement.
  void finish();
  /// The clock steps of this connection's input (may be null: none; must
  /// outlive the engine). An interval across a step is unknown.
  void set_clock_steps(const ClockSteps* c) { clock_ = c; }
  /// The recent segments of this direction of the connection (capture
  /// copies' ring), its packet being sent the newest: unseen_before() reads
  /// the sender's IPv4 IDs there.
  void set_recent(const RecentRing* r) { recent_ = r; }

  /// Whether `s`, sent by this side, is the same SYN-ACK again right after
  /// one held as the timer's or an answer (read_held_synack): then the held
  /// one is the timer's and `s` the answer, a second transmission, not a
  /// capture copy (the Analyzer's copy test asks before on_send(s)).
  bool second_of_held_synack(const Segment& s) const;

  /// From now on the engine judges nothing and reports nothing more: its
  /// on_send / on_peer only do what its HostFeed does (the host's TSval
  /// clock, its activity, and what they depend on: the TsClock, the peer's
  /// data and the ACKs of it, the latest send time). For a connection past
  /// --max-outstanding, from the segment that put it there (finish() then
  /// reports the connection as analysed up to there); a connection another
  /// shard analyses has HostFeeds and no engine. Its shared effects are the
  /// same as a judging engine's, segment by segment, so every other
  /// connection's report is the same either way.
  void feed_only() {
    settle_held_synack(nullptr);
    feed_only_ = true;
    feed_.forget_send_times();  // its echoes are not sampled
  }

  /// Relative sequence number as Wireshark shows it (ISN = 0).
  std::uint32_t rel(std::uint32_t seq) const { return seq - seq_.isn; }
  /// Segments sent and not yet acknowledged (--max-outstanding bounds it).
  std::size_t outstanding() const { return outstanding_.size(); }

 private:
  struct PeerMark {  // a segment from the peer: when the capture saw it, its TSval
    CaptureTime time;
    std::uint32_t tsval = 0;
    bool has_tsval = false;
  };
  struct Hole {  // sequence space skipped by a first transmission, not yet seen
    std::uint32_t seq, end;
    CaptureTime time;  // when the segment beyond it was seen
    std::optional<std::uint32_t> tsval, tsecr;  // that segment's TSval and TSecr
    std::optional<CaptureTime> evidence;  // the peer's first dup ACK or SACK after it: the loss shown
  };
  struct Tx {  // one transmitted range of sequence space
    std::uint32_t seq, end;
    CaptureTime last_time;  // its latest transmission's send time (capture time, bounded by its TSval)
    bool retransmitted;
    bool sacked = false;
  };
  struct Pending54 {  // an expiry that resent a segment above SND.UNA: 5.4 is settled when its burst ends
    std::uint64_t frame;
    CaptureTime time;
    std::uint32_t rel_seq, rel_una;
    unsigned expiry;
    bool head_resent = false;
    /// The expiry is one only under the reading that an ACK the capture saw
    /// had not reached the sender (heard, it resent acknowledged data).
    bool ack_unheard = false;
  };
  struct Open57 {  // 5.7 not visible yet: the handshake's sample vs 3 s, until a data expiry or the next sample
    std::uint64_t frame;
    CaptureTime time;
    std::chrono::microseconds before;
  };

  // ---- the sender's own transmissions ----
  /// The sender's previous data-bearing segment, as the one being sent
  /// follows it (send_at).
  struct AfterPrevious {
    /// How long after it this one left: the time between their send times,
    /// or more where their TSvals show more (TsClock::least_between);
    /// nullopt: no previous one, or a clock step between.
    std::optional<std::chrono::microseconds> since;
    /// Within kMinTimerWait of it, nothing from the peer between: no timer's.
    bool back_to_back = false;
  };
  void first_transmission(const Segment& s, std::uint32_t seq, std::uint32_t end, bool syn, bool ack_triggered,
                          bool back_to_back, std::optional<std::uint32_t> tsval);
  void repeat(const Segment& s, std::uint32_t seq, std::uint32_t end, bool syn, bool ack_triggered,
              const AfterPrevious& prev, bool old_tsval, bool answers_syn, std::optional<std::uint32_t> tsval);
  bool probe_or_keepalive(const Segment& s, std::uint32_t seq, bool syn, bool fin);
  // new_data_probe_ read otherwise: the timer's state before it (no probe
  // out), the arm still the interval both readings span; then its kind and
  // timeline row the write's (and new_data_probe_ settled).
  void no_probe_out();
  /// How many of the sender's packets the capture did not see just before
  /// `captured` on this connection, by its IPv4 ID counter
  /// (StackProfile::ip_id_per_connection: read_ip_ids_), read from the
  /// connection's recent segments (recent_), and the frame before them and
  /// its capture time. None unless the limits::kIpIdCounterRun steps before
  /// that frame were steps of one, and none when that frame is larger than
  /// both the peer's MSS (peer_mss_) and every packet those steps showed
  /// sent as one segment (a GSO packet's step is its segment count).
  unsigned unseen_before(const Segment& captured, std::uint64_t& after_frame, CaptureTime& after_time) const;
  /// The fields of an Observation of a transmission of new data at `t`
  /// (whether it fits the loss-probe timer), the sender's state as it is.
  Observation new_data_observation(CaptureTime t) const;
  /// New data at SND.MAX after one packet of the sender the capture did not
  /// see (after frame `after_frame`, captured at `prev`): when it fits the
  /// loss-probe timer from a time that packet can have left (with the
  /// previous packet, within limits::kResponseTrain; or answering the newest
  /// peer segment the sender had heard since, within the ACK clock's
  /// window), the probe resending that packet, lost before the capture
  /// point. Replays the unseen original (its arm, the ledger) and the
  /// repeat; false, changing nothing, otherwise. With `acks_new` (the
  /// segment acknowledges peer data first: the unseen packet may have been
  /// that ACK) only an INFO naming both readings (Topic::unseen_or_ack),
  /// and false.
  bool resend_of_unseen(const Segment& s, std::uint32_t seq, std::uint32_t end, CaptureTime prev,
                        std::uint64_t after_frame, bool old_tsval, bool acks_new);
  void probe_read_as_write();
  void timer_event(const Segment& s, std::uint32_t seq, bool syn, bool maybe_probe, std::optional<std::uint32_t> tsval,
                   bool maybe_repeat = false);
  // ---- the timer's arm (5.1, 5.2, 5.3, 5.6 and the profile's re-arms) ----
  /// Arms the timer at `t` on the sender's clock (a send's time, or a peer
  /// segment's capture time: held_us_ is 0 then), `earliest` on the capture's.
  void arm(CaptureTime t, ArmCause cause, std::optional<std::uint32_t> tsval, CaptureTime earliest);
  void arm(CaptureTime t, ArmCause cause, std::optional<std::uint32_t> tsval) {
    arm(t, cause, tsval, t + std::chrono::microseconds{held_us_});
  }
  void note_rearm(CaptureTime t);
  /// The head segment sent again by fast recovery or after an RTO: the
  /// profile's re-arm there, or a note that some stacks re-arm.
  void head_retransmitted(const Segment& s, std::optional<std::uint32_t> tsval);
  /// The RTO the timer is armed with now (the display's: base doubled per
  /// expiry of the current chain, capped).
  std::chrono::microseconds current_rto() const;
  /// Expiries of the open data chain (a probe that may have been one not
  /// counted): the backoff the sender's RTO carries now.
  unsigned data_expiries() const;
  // ---- chains ----
  void settle_data_chain();
  void settle_syn_chain();
  void absorb(SettledChain&& c);
  // (Inline: with no note waiting, the common case, a segment makes no call.)
  void settle_54() {
    if (notes_waiting_) settle_54_waiting();
  }
  void settle_54_waiting();
  /// Settles an open 5.7 note: `sample_frame`, the frame of the next sample
  /// that made 5.7 invisible (0: the capture ended first).
  void settle_57(std::uint64_t sample_frame);
  // ---- the peer ----
  bool apply_sack(const wire::TcpHeader& h, CaptureTime& first);
  /// Whether a retransmission of [seq, end) sent at or after `since` (the
  /// latest expiry: an expiry marks every segment lost afresh, Linux
  /// tcp_enter_loss) went before a segment the peer has SACKed since and is
  /// not acknowledged itself: the peer shows it lost (RFC 8985 6.2 with no
  /// reordering window, which Linux uses in its Loss state until it sees
  /// reordering: tcp_rack_reo_wnd).
  bool retransmission_lost(std::uint32_t seq, std::uint32_t end, CaptureTime since) const;
  // ---- ACKs the capture saw and the sender did not receive ----
  TimerState timer_state() const;
  void restore(const TimerState& t);
  void remember_before_ack(std::uint64_t frame, CaptureTime t, std::uint32_t ack, std::optional<std::uint32_t> tsval);
  /// The state before the ACK that first acknowledged `seq`, unless the
  /// sender's TSecr showed that ACK (or a later segment) reached it: its
  /// index for unheard_at().
  std::optional<std::size_t> unheard_index_for(std::uint32_t seq) const;
  /// The states before ACKs the sender may not have received, newest first
  /// (i = 0), the ring's then the older ones: unheard_kept_count() of them.
  const BeforeAck& unheard_at(std::size_t i) const {
    return i < before_count_ ? before_at((before_next_ + kUnheardAcksKept - 1 - i) % kUnheardAcksKept)
                             : before_older_[before_older_.size() - 1 - (i - before_count_)];
  }
  std::size_t unheard_kept_count() const { return before_count_ + before_older_.size(); }
  /// The sender echoed `tsecr`: it received every ACK with an older TSval.
  void heard_through(std::uint32_t tsecr);
  /// The sender answered the peer's segment captured at `t`: it received
  /// every ACK captured up to then (ACKs are cumulative), except one that
  /// acknowledged `resent`, the first byte of the data this answer sends
  /// again (causality over timing: the timing may pick the wrong ACK).
  void heard_until(CaptureTime t, std::optional<std::uint32_t> resent);
  /// How long the states before ACKs without a TSval are kept
  /// (kUnheardAckRtos x the RTO, at least kUnheardAckMinHorizon).
  std::chrono::microseconds unheard_horizon() const {
    return std::max(kUnheardAckRtos * current_rto(), kUnheardAckMinHorizon);
  }
  /// Whether the ACK path after the capture point may still be holding
  /// ACKs at `t` (acks_held_from_): a resend showed an ACK unheard that was
  /// captured less than unheard_horizon() before it. A back-to-back train
  /// then shows no ACK heard between its segments (send_at).
  bool acks_held_at(CaptureTime t) const {
    return acks_held_from_ && !across_step(*acks_held_from_, t) && since(t, *acks_held_from_) <= unheard_horizon();
  }
  /// Keeps the newest `n` of the states before ACKs the sender may not have
  /// received (unheard_at() 0 to n - 1), drops the older ones.
  void keep_newest(std::size_t n);
  /// Drops the newest `n` of them (unheard_at() 0 to n - 1).
  void drop_newest(std::size_t n);
  /// Keeps the states before the ACKs newer than the newest one
  /// `received(const BeforeAck&)` says the sender received (it and every
  /// older one were: ACKs are cumulative), the ring's and the older ones.
  template <class Received>
  void keep_unheard(const Received& received);
  /// Any state before an ACK kept (the ring's or the older ones).
  bool unheard_acks_kept() const { return before_count_ > 0 || !before_older_.empty(); }
  /// Both SYNs offered SACK (RFC 2018); mid-stream, unknown: assumed.
  bool sack_negotiated() const { return handshake_seen_ ? (own_sack_ok_ && peer_sack_ok_) : true; }
  /// SND.UNA as the sender knows it: behind the capture's where the sender
  /// showed it did not receive ACKs the capture saw.
  std::uint32_t heard_una() const { return heard_una_.value_or(seq_.snd_una); }
  bool take_sample(std::chrono::microseconds r, SampleKind kind, std::chrono::microseconds corr);
  /// Takes the pending samples the sender must have processed by `now`.
  void settle_pending_samples(CaptureTime now) {
    if (pending_count_ > 0) settle_due_samples(now);  // (inline: most segments find none)
  }
  void settle_due_samples(CaptureTime now);
  /// Takes a held sample; `now`: the latest time its timeline row may have
  /// (the segment being processed; max at the end).
  void take_pending(const PendingSample& p, CaptureTime now);
  /// Removes and returns the oldest held sample (there must be one).
  PendingSample pop_pending();
  void add_pending(const PendingSample& p);
  /// Drops the pending samples `keep` refuses; returns how many it dropped.
  template <class Keep>
  std::size_t filter_pending(Keep keep);
  void on_valid_sample();
  // ---- the ledger of outstanding segments ----
  void mark_retransmitted(std::uint32_t seq, std::uint32_t end, CaptureTime t);
  void insert_outstanding(const Tx& x);
  void push_outstanding(const Tx& x);
  void pop_outstanding();
  void trim_front(std::uint32_t seq);
  /// The SACK scoreboard's index (unsacked_): adds key `k` (once) / removes it if there.
  void index_unsacked(std::int64_t k);
  void unindex_unsacked(std::int64_t k);
  unsigned in_flight() const { return unsacked_count_ + (heard_una_ ? unheard_segments_ : 0); }
  std::int64_t sb_key(std::uint32_t seq) const { return una64_ + rto::seq_diff(seq, seq_.snd_una); }
  /// Whether [seq, end), sent at `t`, fills a hole as a first transmission
  /// reordered before the capture point (and marks that part seen).
  bool fill_hole(std::uint32_t seq, std::uint32_t end, CaptureTime t, const wire::TcpOptions& o);
  /// The soonest the capture sees the sender's response to a segment of the
  /// peer it captured: the capture-to-sender round trip, less its band.
  std::chrono::microseconds response_floor() const;
  /// Whether part of [seq, end) was sent again at or after `t0`.
  bool resent_since(std::uint32_t seq, std::uint32_t end, CaptureTime t0) const;
  // ---- the capture point ----
  /// The capture-to-sender round trip from the handshake: our response to
  /// the peer's SYN or SYN-ACK (`syn`: the send just made carries SYN, so is
  /// no response to a SYN-ACK). Left unknown when the capture cannot pair
  /// them (our first SYN-ACK after the peer's SYN sent again, echoing an
  /// older one: its timer's or an answer, lost before the capture point).
  void learn_handshake_delays(bool syn);
  /// The sender acknowledged, at `sent`, peer data the capture saw at
  /// `heard`: the capture-to-sender round trip is no longer than that.
  void bound_round_trip(CaptureTime sent, CaptureTime heard);
  /// Whether the expiry `o` describes may have fired later than its RTO,
  /// held back by the newest data (ObservedExpiry::maybe_delayed).
  bool delayed_by_new_data(const Observation& o) const;
  /// The segment from the peer (its capture time) a transmission at `t`
  /// answers, if its timing says it does: one the sender can have received
  /// (heard_peer_), at most a capture-to-sender round trip (and a band)
  /// before `t`, and at least the quickest answer the capture has shown
  /// (least_answer_us_, less the band) before it. With `unheard_from`: under the reading that nothing the
  /// peer sent from then on reached the sender, one captured before it.
  std::optional<CaptureTime> ack_clocked(CaptureTime t, std::optional<CaptureTime> unheard_from = std::nullopt) const;
  /// The newest segment from the peer the sender can have received that
  /// was captured before `limit`.
  std::optional<CaptureTime> newest_peer_before(CaptureTime limit) const;
  /// The newest segment from the peer the sender can have received when it
  /// sent a segment echoing `tsecr` (RFC 7323 TS.Recent: it echoes the
  /// latest in-order segment it accepted): none newer than one whose TSval
  /// it echoed. Without TSecr, or from a sender whose echoes never matched
  /// the peer's TSvals, every segment the capture saw before.
  std::optional<CaptureTime> heard_peer_time(std::optional<std::uint32_t> tsecr) const;
  std::chrono::microseconds ack_delay_hi() const;
  bool across_step(CaptureTime a, CaptureTime b) const { return clock_ && clock_->spans(a, b); }
  FeedContext feed_context() const { return FeedContext{activity_, clock_}; }
  /// The send time of the segment being sent, captured at `t` (held_).
  CaptureTime send_time(CaptureTime t) const;
  /// The send time an RTT sample counts from, of the segment being sent.
  CaptureTime sample_from() const { return send_time(*capture_time_); }
  /// When the sender sent `s`, for what it did and could have heard: its
  /// capture time, or earlier when its TSval (not older than one already
  /// sent) shows it held on its way to the capture point by more than
  /// kClockDisagreeTicks ticks; never before the peer segment its TSecr
  /// shows it had received.
  CaptureTime causal_send_time(const Segment& s) const {
    // No hold within kClockDisagreeTicks ticks of the fastest clock TsClock
    // reads (kMaxTsvalHz) is read: the common case, without the rate.
    constexpr std::chrono::microseconds kNeverMoved{limits::kClockDisagreeTicks * 1'000'000 / limits::kMaxTsvalHz};
    if (!held_ || *held_ <= kNeverMoved) return s.time;
    return held_send_time(s);
  }
  CaptureTime held_send_time(const Segment& s) const;  // causal_send_time() past its common case
  /// on_send() of `s`, its time the send time (causal_send_time()), as
  /// `captured` was captured.
  void send_at(const Segment& s, const Segment& captured, HostEffect effect);
  // ---- the report ----
  void record(const Segment& s, std::string_view event, std::uint32_t seq,
              std::optional<std::chrono::microseconds> sample = std::nullopt,
              std::optional<SampleKind> kind = std::nullopt);
  void count(SendKind k) { ++out_.by_kind[static_cast<std::size_t>(k)]; }
  void append(Judgement j) { out_.findings.push_back(std::move(j)); }
  /// An INFO note about `topic` at `frame` (rule "ambiguous" unless changed).
  static Judgement note(Topic topic, std::uint64_t frame, CaptureTime t, bool syn);

  // The members a segment of the common path (in-order data, an ACK of new
  // data) reads or writes come first, on as few cache lines as they fill:
  // once thousands of connections interleave, none of them is still cached
  // when the connection's next segment comes, and each line it touches is a
  // miss. Grouped by which of the two calls touch them, as measured
  // (bench/README, "The engine's lines"): each line below is 64 bytes; the
  // comment before it says who reads it. Then what every ACK of new data
  // writes (the held sample, the state before it), the TSval clock and the
  // estimators, and last what only handshakes, losses and SACK use.
  // Line 0, every call (on_send and on_peer).
  SenderReport& out_;
  std::size_t file_ = 0;             // the input file (Segment::file_index)
  std::uint64_t current_frame_ = 0;  // the frame being processed
  SendSequence seq_;
  std::uint16_t peer_window_ = 1;
  std::uint8_t pending_first_ = 0, pending_count_ = 0;  // pending_: the oldest, and how many
  std::uint8_t before_count_ = 0;  // before_acks_: valid entries, the newest at before_next_ - 1
  std::uint8_t before_next_ = 0;
  Handshake handshake_ = Handshake::none;
  Recovery recovery_ = Recovery::open;
  bool keep_timeline_;
  bool feed_only_ = false;
  /// The profile's stack counts IPv4 IDs per connection (unseen_before()).
  bool read_ip_ids_ = false;
  bool handshake_seen_ = false;
  bool sack_evidence_ = false;
  bool peer_timestamps_ = false;
  bool scoreboard_ = false;
  bool last_peer_had_tsval_ = false;  ///< the newest peer segment carried a TSval (last_peer_tsval_ is its)
  /// The peer's largest segment so far (bytes): its full-sized segment, as
  /// a receiver estimates it (Linux rcv_mss, from limits::kDefaultMss up)
  /// for prompt_capture_acked().
  std::uint32_t largest_peer_segment_ = 0;
  bool echo_tracks_ = false;  // the sender has echoed the peer's newest TSval
  bool probe_since_ack_ = false;
  bool ambiguous_since_expiry_ = false;
  bool sack_sample_since_expiry_ = false;
  bool ack_unheard_ = false;  // the repeat being explained is timed from before an unheard ACK
  /// pending_54_ or open_57_ may be set (false: neither is): what every
  /// segment's settle_54() and every sample's settle_57() read first, here
  /// and not on those members' own lines.
  bool notes_waiting_ = false;
  /// Which SYN our first SYN-ACK answers the capture cannot tell: the round
  /// trip to the capture point is in doubt (read every segment that
  /// acknowledges the peer's data, bound_round_trip()).
  bool handshake_ambiguous_ = false;
  /// The FIN being sent acknowledges more of the peer's than any of our
  /// segments before it (Observation::answers_fin; set at each FIN only).
  bool ack_advanced_ = false;
  bool data_chain_open_ = false;  // data_chain_ holds an expiry (settle_data_chain() reads this, not the vector)
  // held_synack_ is set: read on every segment from this line (a hole in
  // it), not from the pointer's, far from the hot lines.
  bool synack_held_ = false;
  /// The IPv4 ID of the sender's previous packet (read_ip_ids_; 0 before
  /// any): a skip of one is read further (unseen_before()).
  std::uint16_t prev_ip_id_ = 0;
  // Line 1, every call.
  std::optional<std::uint32_t> last_peer_tsval_;
  MaybeMicros sender_rtt_;
  // Of the segment being sent: its capture time (the report's), and how
  // long before it the sender sent it, by causal_send_time() (on_send).
  MaybeTime capture_time_;
  std::int32_t held_us_ = 0;
  /// The least time, in microseconds, from the capture of the peer's data
  /// to that of the sender's segment first acknowledging it, among ACKs no
  /// receiver delays (HostFeed::prompt_capture_acked): the quickest answer
  /// the capture has shown, no shorter than the round trip from the capture
  /// point to the sender (-1: none yet; ack_clocked()).
  std::int32_t least_answer_us_ = -1;
  RingDeque<PeerMark> peer_times_;
  std::uint64_t acked_segments_ = 0;  // segments removed from the ledger by ACKs so far
  // Line 2, on_peer.
  const Options& opt_;
  std::optional<std::uint32_t> heard_una_;
  /// The highest ACK counted among ambiguous_acks when a resend voided its
  /// pending sample (Karn): a repeat of it is not counted again.
  std::optional<std::uint32_t> ambiguous_through_;
  MaybeTime last_peer_time_;
  MaybeTime burst_last_;  // the post-RTO burst's last retransmission (cleared by any peer segment)
  RingDeque<Hole> holes_;
  // Line 3, on_send (tsval_before_step_: an ACK of new data).
  const ClockSteps* clock_ = nullptr;
  HostActivity* activity_ = nullptr;
  const std::optional<double>* replay_rate_ = nullptr;  // set while replay_first_send() runs
  std::optional<std::uint32_t> newest_tsval_;
  /// TsClock::held_for() of the segment being sent (set by on_send): how
  /// long before its capture it left; nullopt without a TSval or a rate.
  MaybeMicros held_;
  MaybeTime heard_peer_;  // heard_peer_time() at the transmission being explained
  MaybeTime last_sent_;  // the send time (causal_send_time()) of the latest (feed_.last_send_time())
  std::optional<std::uint32_t> tsval_before_step_;
  // Line 4, on_send, and on_peer of an ACK of new data.
  RingDeque<Tx> outstanding_;
  /// States before ACKs older than the ring's, oldest first (kUnheardAcksAway).
  RingDeque<BeforeAck> before_older_;
  /// The peer's segment (capture time) that clocked the previous send, and
  /// the one clocking this send's response train, if any.
  MaybeTime last_send_trigger_, train_trigger_;
  // Line 5, a data segment sent, an ACK of new data.
  std::optional<TimerArm> arm_;  // the data timer's arm (nullopt: stopped)
  unsigned unsacked_count_ = 0;
  unsigned dupacks_ = 0;
  unsigned timeouts_since_ack_ = 0;  // data expiries since the last ACK of new data
  std::uint32_t fast_recovery_point_ = 0;
  // Line 6, on_send; SND.UNA unwrapped, an ACK of new data.
  /// The peer's segment the sender's latest train of back-to-back segments
  /// shows it heard (what the train's first answered), if any, and when
  /// that train began.
  MaybeTime train_heard_, train_start_;
  MaybeTime last_data_send_time_;
  MaybeTime last_new_data_time_;  // the last first transmission (the probe timer re-arms there)
  /// The latest send time of a segment the peer has SACKed (RACK's
  /// "most recently delivered"): a retransmission sent before it and not
  /// acknowledged was lost (retransmission_lost()).
  MaybeTime newest_sacked_send_;
  std::uint64_t last_new_data_frame_ = 0;  // its frame
  MaybeTime rearm_any_;  // the latest event any stack may re-arm at
  std::int64_t una64_ = std::int64_t{1} << 32;  // SND.UNA unwrapped (sb_key's origin)
  std::optional<std::uint32_t> last_data_tsval_;  // the TSval of the segment at last_data_send_time_

  // Written by ACKs of new data: the sample held until the sender must have
  // taken it (slot 0 again whenever the ring empties), and the state before
  // the ACK (the latest few).
  // Slot 0 of both on two lines of their own (AckSlot0), the others after.
  // pending_at(i): oldest first, from pending_first_; before_at(i): the
  // newest at before_next_ - 1.
  AckSlot0 slot0_{};
  std::array<PendingSample, kPendingSamplesKept - 1> pending_rest_{};
  std::array<BeforeAck, kUnheardAcksKept - 1> before_rest_{};
  PendingSample& pending_at(std::size_t i) { return i == 0 ? slot0_.pending : pending_rest_[i - 1]; }
  const PendingSample& pending_at(std::size_t i) const { return i == 0 ? slot0_.pending : pending_rest_[i - 1]; }
  BeforeAck& before_at(std::size_t i) { return i == 0 ? slot0_.before : before_rest_[i - 1]; }
  const BeforeAck& before_at(std::size_t i) const { return i == 0 ? slot0_.before : before_rest_[i - 1]; }

  // The TSval clock, and what feeds the host's shared state.
  HostFeed feed_;
  EstimatorReadings est_;

  // Timer events and chains.
  std::optional<Pending54> pending_54_;  // notes_waiting_ tells whether to look
  std::optional<Open57> open_57_;
  std::vector<ObservedExpiry> data_chain_;  // (data_chain_open_ tells whether it holds any)
  std::vector<ObservedExpiry> syn_chain_;
  std::optional<TimerArm> syn_arm_;
  ChainJudge judge_;
  // New data read as a loss probe, until a repeat or a peer segment settles
  // the reading (new data sent after it changes no timer state): the
  // timer's state before it, its send time, and its timeline row (kNoRow:
  // none kept).
  struct NewDataProbe {
    TimerState before;
    CaptureTime at;
    std::size_t row;
  };
  static constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
  std::optional<NewDataProbe> new_data_probe_;
  // The post-RTO burst: the expiry that began it and the span it resent.
  CaptureTime burst_start_{};
  std::pair<std::uint32_t, std::uint32_t> burst_span_{};  ///< [first, end) resent since the expiry
  // Timeline rows of probes whose reading the chain settles (frame -> row).
  std::vector<std::pair<std::uint64_t, std::size_t>> provisional_rows_;

  // Used by handshakes, repeats, losses and SACK.
  std::uint64_t unheard_segments_ = 0;  // segments acknowledged in the capture, not at the sender
  std::optional<std::uint32_t> zwp_seq_;
  // The handshake's pairs (learn_handshake_delays): our latest SYN and the
  // peer's latest SYN-ACK until our ACK answers one; the peer's latest SYN
  // before our first SYN-ACK, and that SYN-ACK.
  std::optional<CaptureTime> own_syn_, peer_syn_, own_synack_, peer_synack_;
  MaybeTime peer_first_syn_;  // the peer's first SYN before our first SYN-ACK
  MaybeTime peer_syn_again_;  // the peer's latest SYN not yet answered (it asks for our SYN-ACK again)
  std::optional<std::uint32_t> peer_syn_tsval_, own_synack_tsecr_;
  bool peer_syn_repeated_ = false;    // more than one SYN of the peer's before our first SYN-ACK
  bool maybe_delayed_ = false;        // the expiry being recorded may be a probe timer's, re-armed by new data
  bool left_syn_rcvd_ = false;        // we sent a segment past SYN-RCVD (peer_acked_synack_ read once)
  std::optional<std::chrono::microseconds> hs_rtt_;
  std::optional<std::uint64_t> syn_acked_frame_;
  bool own_sack_ok_ = false, peer_sack_ok_ = false;
  bool syn_lost_ack_noted_ = false;
  // The sb_key() of each outstanding segment not SACKed, ascending and
  // without repeats, once the peer has sent a SACK block (scoreboard_): a
  // SACK block skips to its first unSACKed segment in a binary search. A
  // flat ring, not a tree: keys join at the back and leave mostly at the
  // front (cumulative ACKs) or near it (the first segments after a hole), so
  // each change touches the ring's ends, not a node per segment.
  RingDeque<std::int64_t> unsacked_;

  /// While the handshake leaves the round trip in doubt: the capture time of
  /// the peer's first segment acknowledging our SYN-ACK (bound_round_trip at
  /// our first segment after it).
  MaybeTime peer_acked_synack_;
  /// The sequence number after the peer's FIN, once it sent one (a FIN of
  /// ours acknowledging it may answer it: Observation::answers_fin).
  std::optional<std::uint32_t> peer_fin_end_;
  /// The capture time of the newest ACK a resend showed the sender had not
  /// received (the ack-unheard reading): the path after the capture point
  /// held it (acks_held_at()).
  MaybeTime acks_held_from_;
  const RecentRing* recent_ = nullptr;  // set_recent()
  /// The MSS the peer's SYN offered (0: none seen): the largest segment the
  /// sender sends, so no larger packet is one segment (unseen_before()).
  std::uint16_t peer_mss_ = 0;
  /// Our SYN-ACK sent again within the response window of the peer's SYN
  /// sent again, at a time our SYN-ACK timer may have fired: the timer's or
  /// the answer, which the next event tells (settle_held_synack). Its
  /// reading waits until then, with what repeat() takes; made only then.
  struct HeldSynAck {
    Segment s;              // as send_at had it (its send time)
    CaptureTime captured;   // its capture time
    CaptureTime asked;      // the peer's SYN it may answer
    std::uint32_t seq, end;
    AfterPrevious prev;
    bool ack_triggered, old_tsval;
    std::optional<std::uint32_t> tsval;
  };
  std::unique_ptr<HeldSynAck> held_synack_;
  /// Reads the held SYN-ACK (if any) before the engine's next event:
  /// `next_send`, our next segment, or null (a peer segment, the end).
  void settle_held_synack(const Segment* next_send) {
    if (synack_held_) read_held_synack(next_send);  // (inline: almost never held)
  }
  void read_held_synack(const Segment* next_send);
  /// Whether a SYN-ACK sent at `t` is within the response window of the
  /// peer's SYN captured at `asked` (Linux tcp_check_req answers at once).
  bool answers_in_window(CaptureTime asked, CaptureTime t) const;
  /// Whether our SYN-ACK timer may have fired by `t`: its least wait, with
  /// the backoff of the expiries so far, since its arm.
  bool synack_timer_due(CaptureTime t) const;
};

}  // namespace replay::engine
