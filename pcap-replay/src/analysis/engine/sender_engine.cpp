#include "analysis/engine/sender_engine.hpp"

#include <algorithm>
#include <utility>

#include <rto/seq.hpp>

#include <replay/thresholds.hpp>

namespace replay::engine {

using std::chrono::microseconds;
using rto::seq_ge;
using rto::seq_gt;
using rto::seq_le;
using rto::seq_lt;

namespace {
microseconds since(CaptureTime later, CaptureTime earlier) {
  return std::chrono::duration_cast<microseconds>(later - earlier);
}
}  // namespace

SenderEngine::SenderEngine(const Options& options, SenderReport& out, bool keep_timeline, HostClock* host,
                           HostActivity* activity, bool feed_activity)
    : out_(out), opt_(options), activity_(activity), keep_timeline_(keep_timeline), feed_activity_(feed_activity),
      est_(options), judge_(options) {
  ts_clock_.set_host(host);
  out_.profile = options.profile->name;
}

// ---- the report --------------------------------------------------------

microseconds SenderEngine::current_rto() const {
  microseconds r = est_.estimator().base_rto();
  std::size_t doublings = 0;
  for (const ObservedExpiry& x : data_chain_) doublings += x.maybe_probe ? 0 : 1;
  for (std::size_t i = 0; i < doublings && r < opt_.config.max_rto; ++i) r = std::min(2 * r, opt_.config.max_rto);
  return r;
}

void SenderEngine::record(const Segment& s, std::string_view event, std::uint32_t seq, std::optional<microseconds> sample,
                          std::optional<SampleKind> kind) {
  if (!keep_timeline_) return;
  const auto& e = est_.estimator();
  unsigned backoff = 0;
  for (const ObservedExpiry& x : data_chain_) backoff += x.maybe_probe ? 0 : 1;
  out_.timeline.push_back(
      TimelineEvent{s.frame, s.time, event, rel(seq), sample, kind, e.srtt(), e.rttvar(), current_rto(), backoff});
  // For the pictures (report_html): a send's sequence length, a peer ACK's SACK blocks.
  TimelineEvent& t = out_.timeline.back();
  const bool from_peer = event == "ack" || event == "dup-ack" || event == "sack";
  if (!from_peer) {
    t.len = s.payload_len + (s.tcp.has(wire::kSyn) ? 1u : 0u) + (s.tcp.has(wire::kFin) ? 1u : 0u);
    return;
  }
  const auto& o = s.tcp.options;
  for (std::uint8_t i = 0; i < o.sack_count && i < o.sack.size(); ++i)
    t.sack[t.sack_count++] = {rel(o.sack[i].left), rel(o.sack[i].right)};
}

// ---- the ledger of outstanding segments ---------------------------------

void SenderEngine::mark_retransmitted(std::uint32_t seq, std::uint32_t end, CaptureTime t) {
  // outstanding_ is ordered by sequence: find the first range that ends after seq.
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& x) { return seq_le(x.end, seq); });
  for (; it != outstanding_.end() && seq_lt(it->seq, end); ++it) {
    it->retransmitted = true;
    it->last_time = t;
  }
}

void SenderEngine::insert_outstanding(const Tx& x) {
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& y) { return seq_lt(y.seq, x.seq); });
  outstanding_.insert(it, x);
  ++unsacked_count_;
  if (scoreboard_) unsacked_.insert(sb_key(x.seq));
}

void SenderEngine::push_outstanding(const Tx& x) {
  outstanding_.push_back(x);
  ++unsacked_count_;
  if (scoreboard_) unsacked_.insert(unsacked_.end(), sb_key(x.seq));
}

void SenderEngine::pop_outstanding() {
  ++acked_segments_;
  const Tx& x = outstanding_.front();
  if (!x.sacked) {
    --unsacked_count_;
    if (scoreboard_)
      if (auto it = unsacked_.find(sb_key(x.seq)); it != unsacked_.end()) unsacked_.erase(it);
  }
  outstanding_.pop_front();
}

void SenderEngine::trim_front(std::uint32_t seq) {
  Tx& x = outstanding_.front();
  if (scoreboard_ && !x.sacked) {
    if (auto it = unsacked_.find(sb_key(x.seq)); it != unsacked_.end()) unsacked_.erase(it);
    unsacked_.insert(sb_key(seq));
  }
  x.seq = seq;
}

bool SenderEngine::resent_since(std::uint32_t seq, std::uint32_t end, CaptureTime t0) const {
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& x) { return seq_le(x.end, seq); });
  for (; it != outstanding_.end() && seq_lt(it->seq, end); ++it)
    if (it->retransmitted && it->last_time >= t0) return true;
  return false;
}

microseconds SenderEngine::response_floor() const {
  const microseconds d = sender_rtt_.value_or(microseconds{0});
  return d - d * limits::kAckClockBandNum / limits::kAckClockBandDen;
}

bool SenderEngine::fill_hole(std::uint32_t seq, std::uint32_t end, CaptureTime t, const wire::TcpOptions& opts) {
  const microseconds window = std::max(limits::kReorderWindowFloor, hs_rtt_.value_or(microseconds{0}));
  for (auto it = holes_.begin(); it != holes_.end(); ++it) {
    if (!(seq_ge(seq, it->seq) && seq_le(end, it->end))) continue;
    // A first transmission reordered before the capture point was sent
    // before the segment beyond the hole; a retransmission after it, once
    // the sender learned of the loss. The sender's clock tells them apart
    // where it moved between the two: an older TSval, sent before; a newer
    // TSval, or a TSecr echoing a newer segment of the peer, sent after.
    const auto older = [](std::optional<std::uint32_t> a, std::optional<std::uint32_t> b) {
      return a && b && rto::ts_diff(*a, *b) < 0;
    };
    const bool sent_before = older(opts.tsval, it->tsval);
    const bool sent_after = older(it->tsval, opts.tsval) || older(it->tsecr, opts.tsecr);
    // Otherwise the timing: soon after the segment beyond the hole, and
    // sooner after the peer showed the loss than the sender's response to
    // it can be captured (a fill that can be that response is one).
    const bool before_response = !it->evidence || since(t, *it->evidence) < response_floor();
    const bool recent = since(t, it->time) <= window && !across_step(it->time, t) && before_response;
    // Shrink or split the hole: this part has now been seen.
    Hole h = *it;
    it = holes_.erase(it);
    if (seq_lt(h.seq, seq)) {
      Hole left = h;
      left.end = seq;
      it = holes_.insert(it, left) + 1;
    }
    if (seq_lt(end, h.end)) {
      h.seq = end;
      holes_.insert(it, h);
    }
    return sent_before || (!sent_after && recent);
  }
  return false;
}

// ---- the capture point ----------------------------------------------------

void SenderEngine::learn_handshake_delays() {
  // Client: SYN -> (peer) SYN-ACK -> our ACK. Server: (peer) SYN -> our SYN-ACK.
  // The sender's own response time as the capture sees it is the round trip
  // from the capture point to the sender (about 0 when captured there).
  if (sender_rtt_) return;
  if (last_send_time_ && ((peer_synack_ && across_step(*peer_synack_, *last_send_time_)) ||
                          (own_syn_ && across_step(*own_syn_, *last_send_time_))))
    return;  // a handshake across a clock step tells no delay
  if (own_syn_ && peer_synack_ && last_send_time_ && *last_send_time_ >= *peer_synack_) {
    sender_rtt_ = since(*last_send_time_, *peer_synack_);
    hs_rtt_ = since(*last_send_time_, *own_syn_);
  } else if (peer_syn_ && own_synack_ && *own_synack_ >= *peer_syn_) {
    sender_rtt_ = since(*own_synack_, *peer_syn_);
  }
  if (sender_rtt_ && *sender_rtt_ <= limits::kCaptureAtSender) sender_rtt_ = microseconds{0};  // at the sender
}

microseconds SenderEngine::ack_delay_hi() const {
  const microseconds d = sender_rtt_.value_or(microseconds{0});
  return d + d * limits::kAckClockBandNum / limits::kAckClockBandDen;
}

std::optional<CaptureTime> SenderEngine::heard_peer_time(std::optional<std::uint32_t> tsecr) const {
  if (!tsecr || !echo_tracks_ || peer_times_.empty()) return last_peer_time_;
  // Newest first: the first the echo reaches. Past the ring, the oldest kept
  // (the sender heard something at least that old).
  for (std::size_t i = peer_times_.size(); i-- > 0;) {
    const PeerMark& m = peer_times_[i];
    if (!m.has_tsval || rto::ts_diff(m.tsval, *tsecr) <= 0) return m.time;
  }
  return peer_times_.front().time;
}

std::optional<CaptureTime> SenderEngine::ack_clocked(CaptureTime t) const {
  // The capture may see the peer's segment late too (its own path to the
  // capture point), so a response can show up sooner than the
  // capture-to-sender round trip: from 0 on.
  const microseconds hi = ack_delay_hi() + limits::kAckClockMin;
  // Newest first; older ones are read only when the newest heard was
  // captured after t.
  if (!heard_peer_) return std::nullopt;
  CaptureTime p = *heard_peer_;
  for (std::size_t i = peer_times_.size();;) {
    if (across_step(p, t)) return std::nullopt;  // how long after it is unknown: no evidence
    const microseconds after = since(t, p);
    if (after > hi) return std::nullopt;
    if (after >= microseconds{0}) return p;
    while (i > 0 && peer_times_[i - 1].time >= p) --i;
    if (i == 0) return std::nullopt;
    p = peer_times_[--i].time;
  }
}

void SenderEngine::skip_acked_peer_data(std::uint32_t moved) {
  // An entry at or below acked_through_ fails the late-ACK test's first
  // condition for as long as acked_through_ has moved less than 2^31 minus
  // its distance below it; entries at most 2^30 below are counted, and the
  // count is redone once acked_through_ has moved 2^30 since.
  constexpr std::uint32_t kQuarter = std::uint32_t{1} << 30;
  if (moved >= kQuarter - acked_moved_) {
    peer_data_acked_ = 0;
    acked_moved_ = 0;
  } else {
    acked_moved_ += moved;
  }
  while (peer_data_acked_ < peer_data_.size()) {
    const std::int32_t below = rto::seq_diff(peer_data_[peer_data_acked_].first, *acked_through_);
    if (below > 0 || below < -static_cast<std::int32_t>(kQuarter)) break;
    ++peer_data_acked_;
  }
}

CaptureTime SenderEngine::send_time(CaptureTime t, std::optional<std::uint32_t> tsval) const {
  // A segment whose TSval shows it left more than a tick before its capture
  // (held in a queue between the sender and the capture point) was sent by
  // the end of its tick: its RTT sample counts from there.
  if (!tsval) return t;
  const auto rate = ts_clock_.rate_hz();
  const auto held = rate ? ts_clock_.held_for(t, *tsval) : std::nullopt;
  if (!held) return t;
  const microseconds tick{static_cast<std::int64_t>(1e6 / *rate)};
  return *held > tick ? t - (*held - tick) : t;
}

// ---- the timer's arm ------------------------------------------------------

void SenderEngine::arm(CaptureTime t, ArmCause cause, std::optional<std::uint32_t> tsval, CaptureTime earliest) {
  rearm_any_ = t;
  arm_ = TimerArm{cause, std::min(earliest, t), t, tsval, 0};
}

void SenderEngine::note_rearm(CaptureTime t) {
  // An event some stacks re-arm at and the profile does not: the arm may be
  // as late as this.
  if (!arm_) return;
  rearm_any_ = t;
  arm_->latest = std::max(arm_->latest, t);
}

// ---- the sender's transmissions ---------------------------------------------

void SenderEngine::replay_first_send(const Segment& s, std::optional<double> rate_then) {
  replay_rate_ = &rate_then;
  on_send(s);
  replay_rate_ = nullptr;
}

bool SenderEngine::first_send_held(const TsClock& clock, const Segment& s) {
  const auto held = s.tcp.options.tsval ? clock.held_for(s.time, *s.tcp.options.tsval) : std::nullopt;
  return held && *held >= limits::kFlushHeld;
}

void SenderEngine::on_send(const Segment& s) {
  ++out_.packets;
  file_ = s.file_index;
  current_frame_ = s.frame;
  if (pending_count_ > 0 && s.payload_len > 0) {
    // Sent again before the ACK could reach the sender: the ACK covers a
    // retransmission, so the sender took no sample from it (Karn, 3).
    const std::size_t voided = filter_pending(
        [&](const PendingSample& p) { return !(s.time < p.until && seq_lt(s.tcp.seq, p.ack)); });
    if (voided > 0) {
      out_.ambiguous_acks += voided;
      ambiguous_since_expiry_ = true;
    }
  }
  settle_pending_samples(s.time);
  const auto& h = s.tcp;
  if (h.options.tsecr && before_count_ > 0) heard_through(*h.options.tsecr);
  if (last_send_time_ && across_step(*last_send_time_, s.time)) {
    // The first transmission after a step of the capture clock: the TSvals
    // sent so far are from before it; the TSval clock bridges it.
    tsval_before_step_ = newest_tsval_;
    ts_clock_.clock_stepped();
  }
  if (h.options.tsval) {
    if (replay_rate_)
      ts_clock_.observe_first_again(s.time, *h.options.tsval, *replay_rate_);
    else
      ts_clock_.observe(s.time, *h.options.tsval);
    out_.tsval_sent = true;
  }
  if (activity_ && feed_activity_ && !replay_rate_) {
    const auto held = h.options.tsval ? ts_clock_.held_for(s.time, *h.options.tsval) : std::nullopt;
    bool late_ack = false;
    if (s.payload_len == 0 && h.has(wire::kAck) && !h.has(wire::kSyn) &&
        (!acked_through_ || seq_gt(h.ack, *acked_through_))) {
      // The first ACK of peer data the capture saw arrive over 0.5 s ago.
      for (std::size_t i = peer_data_acked_; i < peer_data_.size(); ++i) {
        const auto& [end, t] = peer_data_[i];
        if ((!acked_through_ || seq_gt(end, *acked_through_)) && seq_le(end, h.ack)) {
          late_ack = since(s.time, t) > limits::kDelayedAckMax && !across_step(t, s.time);
          break;
        }
      }
    }
    activity_->observe(s.file_index, s.frame, s.time, (held && *held >= limits::kFlushHeld) || late_ack);
  }
  if (h.has(wire::kAck) && (!acked_through_ || seq_gt(h.ack, *acked_through_))) {
    const std::uint32_t moved = acked_through_ ? h.ack - *acked_through_ : 0;
    acked_through_ = h.ack;
    skip_acked_peer_data(moved);
  }
  if (h.options.tsval && peer_timestamps_) out_.timestamps = true;
  if (h.has(wire::kRst)) return;
  const bool syn = h.has(wire::kSyn);
  const bool fin = h.has(wire::kFin);
  const std::uint32_t len = s.payload_len + (syn ? 1 : 0) + (fin ? 1 : 0);
  // A SYN-ACK after the peer sent its SYN again answers it (Linux
  // tcp_check_req answers at once): within the response window of that SYN,
  // or sooner after our previous SYN-ACK than the SYN-ACK timer can fire
  // (its initial RTO, less the tolerance). Later, its timer sent it.
  bool answers_syn = false;
  if (syn && h.has(wire::kAck) && peer_syn_again_) {
    const bool in_window = !across_step(*peer_syn_again_, s.time) &&
                           std::chrono::abs(since(s.time, *peer_syn_again_)) <= ack_delay_hi() + limits::kAckClockMin;
    const microseconds timer_least = opt_.config.initial_rto - opt_.tolerance(opt_.config.initial_rto);
    const bool before_timer = syn_arm_ && !across_step(syn_arm_->latest, s.time) &&
                              since(s.time, syn_arm_->latest) < timer_least;
    answers_syn = in_window || before_timer;
    peer_syn_again_.reset();
  }
  if (syn) {
    own_sack_ok_ = own_sack_ok_ || h.options.sack_permitted;
    if (h.has(wire::kAck)) {
      if (!own_synack_) own_synack_ = s.time;
    } else if (!peer_synack_) {
      own_syn_ = s.time;  // the SYN the peer's first SYN-ACK answers is the latest before it
    }
  }
  if (handshake_ == Handshake::none) {
    handshake_ = syn ? (h.has(wire::kAck) ? Handshake::syn_received : Handshake::syn_sent) : Handshake::mid_stream;
    seq_.isn = syn ? h.seq : h.seq - 1;
    seq_.snd_una = h.seq;
    seq_.snd_max = h.seq;
    una64_ = std::int64_t{1} << 32;
    // Captured mid-stream: the sender's RTO is not known until a sample.
    est_.set_unknown_start(!syn);
  }
  if (h.options.tsecr && last_peer_tsval_ && *h.options.tsecr == *last_peer_tsval_) echo_tracks_ = true;
  heard_peer_ = heard_peer_time(h.options.tsecr);
  const std::optional<CaptureTime> answered = ack_clocked(s.time);
  if (answered && before_count_ > 0) heard_until(*answered);
  const bool ack_triggered =
      answered.has_value() ||
      (last_send_ack_triggered_ && last_send_time_ && since(s.time, *last_send_time_) <= limits::kResponseTrain &&
       !across_step(*last_send_time_, s.time));
  last_send_time_ = s.time;
  last_send_ack_triggered_ = ack_triggered;
  learn_handshake_delays();
  // RFC 7323: is this TSval older than what the sender already sent?
  bool old_tsval = false;
  if (h.options.tsval) {
    if (newest_tsval_ && rto::ts_diff(*newest_tsval_, *h.options.tsval) >= static_cast<std::int32_t>(limits::kOldTsvalTicks))
      old_tsval = true;
    if (!newest_tsval_ || rto::ts_diff(*h.options.tsval, *newest_tsval_) > 0) newest_tsval_ = *h.options.tsval;
  }
  if (probe_or_keepalive(s, h.seq, syn, fin)) return;
  if (len == 0) return;
  // The sender's previous data-bearing segment, and whether the peer was silent since.
  const std::optional<CaptureTime> prev_send = last_data_send_time_;
  last_data_send_time_ = s.time;
  const bool peer_since_prev = prev_send && heard_peer_ && *heard_peer_ >= *prev_send;
  // Sent right after the previous one with nothing from the peer between:
  // not after a quiet period, so not on a timer. Across a clock step the
  // quiet period is unknown: no evidence either way.
  const bool back_to_back = prev_send && !peer_since_prev && since(s.time, *prev_send) < limits::kMinTimerWait &&
                            !across_step(*prev_send, s.time);
  ++out_.data_segments;
  const std::uint32_t seq = h.seq;
  const std::uint32_t end = seq + len;
  if (seq_ge(seq, seq_.snd_max))
    first_transmission(s, seq, end, syn, ack_triggered, back_to_back, h.options.tsval);
  else
    repeat(s, seq, end, syn, ack_triggered, back_to_back, old_tsval, answers_syn, h.options.tsval);
}

bool SenderEngine::probe_or_keepalive(const Segment& s, std::uint32_t seq, bool syn, bool fin) {
  // One byte or none just below SND.UNA with nothing outstanding: a probe
  // that asks the peer for an ACK (RFC 9293 3.8.4 keep-alive; Linux sends
  // its zero-window probes the same way, tcp_xmit_probe_skb). Into a zero
  // window it is a zero-window probe (3.8.6.1), otherwise a keep-alive.
  if (syn || fin || s.payload_len > 1 || handshake_ == Handshake::none) return false;
  if (seq != seq_.snd_una - 1 || seq_.snd_una != seq_.snd_max) return false;
  if (peer_window_ == 0) {
    ++out_.zero_window_probes;
    count(SendKind::zero_window_probe);
    record(s, to_string(SendKind::zero_window_probe), seq);
  } else {
    ++out_.keepalives;
    count(SendKind::keepalive);
    record(s, to_string(SendKind::keepalive), seq);
  }
  return true;
}

void SenderEngine::first_transmission(const Segment& s, std::uint32_t seq, std::uint32_t end, bool syn,
                                      bool ack_triggered, bool back_to_back, std::optional<std::uint32_t> tsval) {
  // A gap: the capture has not seen what lies between (yet: it may come
  // reordered, also after everything before it was acknowledged).
  if (seq_gt(seq, seq_.snd_max))
    holes_.push_back(Hole{seq_.snd_max, seq, s.time, tsval, s.tcp.options.tsecr, std::nullopt});
  SendKind kind = SendKind::first;
  // Zero-window probe: one byte of new data into a zero window (BSD).
  if (peer_window_ == 0 && s.payload_len == 1) {
    ++out_.zero_window_probes;
    zwp_seq_ = seq;
    kind = SendKind::zero_window_probe;
  }
  const bool was_idle = heard_una() == seq_.snd_max || (outstanding_.empty() && !heard_una_);
  if (syn) {
    syn_arm_ = TimerArm{ArmCause::send, s.time, s.time, tsval, s.frame};
    if (!arm_) arm_ = TimerArm{ArmCause::send, s.time, s.time, tsval, s.frame};
  } else if (!arm_ || was_idle) {
    arm(s.time, ArmCause::send, tsval);  // 5.1: start the timer when data is sent and it is not running
    arm_->frame = s.frame;
  } else if (!ack_triggered && !back_to_back && kind == SendKind::first) {
    // New data on a timer with data outstanding: when it fits the probe
    // timer, a loss probe that sends new data (RFC 8985 7.3; it re-arms the
    // RTO), or else an application write (the timer runs on, 5.1): the arm
    // is anywhere between the two. Other new data leaves the timer alone.
    Observation o;
    o.sack_negotiated = handshake_seen_ ? (own_sack_ok_ && peer_sack_ok_) : true;
    o.srtt = est_.estimator().srtt();
    o.is_highest = true;
    o.recovery = recovery_;
    o.loss_evidence = dupacks_ > 0 || sack_evidence_;
    o.probe_since_ack = probe_since_ack_;
    o.timeouts_in_chain = timeouts_since_ack_;
    o.single_segment = in_flight() <= 1;
    o.since_arm = since(s.time, arm_->latest);
    if (last_new_data_time_ && !across_step(*last_new_data_time_, s.time))
      o.since_new_data = since(s.time, *last_new_data_time_);
    o.since_peer = !heard_peer_ || across_step(*heard_peer_, s.time)
                       ? microseconds::max()
                       : std::chrono::abs(since(s.time, *heard_peer_));
    o.rto_left = current_rto();
    o.tolerance = opt_.tolerance(current_rto());
    o.granularity = opt_.granularity;
    o.slack_percent = opt_.slack_percent;
    o.jitter = timer_jitter(opt_);
    o.tick = opt_.config.tick;
    o.sender_rtt = sender_rtt_.value_or(microseconds{0});
    if (fits_probe(o, *opt_.profile)) {
      kind = SendKind::tlp_new_data;
      probe_since_ack_ = true;
      if (recovery_ == Recovery::open) recovery_ = Recovery::probe_out;
      const CaptureTime before = arm_->earliest;
      arm(s.time, ArmCause::probe, tsval, before);
      arm_->frame = s.frame;
    }
  }
  push_outstanding(Tx{seq, end, send_time(s.time, tsval), false});
  seq_.snd_max = end;
  last_new_data_time_ = s.time;
  count(kind);
  out_.bytes += s.payload_len;
  record(s, to_string(kind), seq);
}

void SenderEngine::repeat(const Segment& s, std::uint32_t seq, std::uint32_t end, bool syn, bool ack_triggered,
                          bool back_to_back, bool old_tsval, bool answers_syn, std::optional<std::uint32_t> tsval) {
  const bool fin = s.tcp.has(wire::kFin);
  // Zero-window probe repeated into a zero window: not a retransmission.
  if (peer_window_ == 0 && s.payload_len == 1 && seq == seq_.snd_una && !syn && !fin) {
    ++out_.zero_window_probes;
    count(SendKind::zero_window_probe);
    record(s, to_string(SendKind::zero_window_probe), seq);
    return;
  }
  // The window opened: data that starts with the probe's byte sends the rest
  // for the first time (the one byte it repeats was a probe, not lost data).
  if (zwp_seq_ && seq == *zwp_seq_ && peer_window_ > 0 && seq_gt(end, seq_.snd_max)) {
    zwp_seq_.reset();
    push_outstanding(Tx{seq_.snd_max, end, send_time(s.time, tsval), false});
    out_.bytes += rto::seq_diff(end, seq_.snd_max);
    seq_.snd_max = end;
    count(SendKind::first);
    if (!arm_) arm(s.time, ArmCause::send, tsval);
    record(s, to_string(SendKind::first), seq);
    return;
  }
  const bool fills_hole = !syn && fill_hole(seq, end, s.time, s.tcp.options);
  const auto observe = [&] {
  Observation o;
  o.handshake = handshake_;
  o.recovery = recovery_;
  o.syn = syn;
  o.already_acked = seq_le(end, heard_una());
  o.old_tsval = old_tsval;
  o.fills_hole = fills_hole;
  o.ack_clocked = ack_triggered;
  o.answers_dup_syn = answers_syn;
  o.peer_seen = last_peer_time_.has_value();
  o.loss_evidence = dupacks_ > 0 || sack_evidence_;
  o.is_head = seq_le(seq, heard_una());
  o.is_highest = seq_ge(end, seq_.snd_max);
  o.back_to_back = back_to_back;
  o.sack_negotiated = handshake_seen_ ? (own_sack_ok_ && peer_sack_ok_) : true;
  o.single_segment = in_flight() <= 1;
  o.timeouts_in_chain = timeouts_since_ack_;
  o.probe_since_ack = probe_since_ack_;
  const microseconds rto = current_rto() + opt_.profile->additive;
  if (arm_) {
    // Across a clock step the time since the arm is unknown: not a probe's time.
    o.since_arm = across_step(arm_->latest, s.time) ? microseconds::max() : since(s.time, arm_->latest);
    const microseconds lead = since(arm_->latest, arm_->earliest);
    o.rto_left = rto > lead ? rto - lead : microseconds{1};
  }
  o.since_peer = !heard_peer_ || across_step(*heard_peer_, s.time)
                     ? microseconds::max()
                     : std::chrono::abs(since(s.time, *heard_peer_));
  if (last_new_data_time_ && !across_step(*last_new_data_time_, s.time))
    o.since_new_data = since(s.time, *last_new_data_time_);
  o.srtt = est_.estimator().srtt();
  o.tolerance = opt_.tolerance(rto);
  o.granularity = opt_.granularity;
  o.slack_percent = opt_.slack_percent;
  o.jitter = timer_jitter(opt_);
  o.tick = opt_.config.tick;
  o.sender_rtt = sender_rtt_.value_or(microseconds{0});
  if (burst_last_ && timeouts_since_ack_ > 0) {
    // A further expiry comes no sooner than the backed-off RTO, at least
    // about the previous expiry's wait: a fraction of it separates the two.
    microseconds last_wait{0};
    for (auto it = data_chain_.rbegin(); it != data_chain_.rend(); ++it)
      if (!it->maybe_probe) {
        last_wait = it->wait.lo;
        break;
      }
    const microseconds burst_gap =
        std::max(last_wait * limits::kBurstFractionNum / limits::kBurstFractionDen, limits::kMinTimerWait);
    o.in_rto_burst = since(s.time, *burst_last_) < burst_gap && !across_step(*burst_last_, s.time);
    // A burst member carries the burst's TSval (within a tick or two); one
    // its own clock shows sent a burst gap later is a further expiry.
    if (o.in_rto_burst && tsval && burst_tsval_)
      if (const auto d = ts_clock_.interval(*burst_tsval_, *tsval); d && *d >= burst_gap) o.in_rto_burst = false;
    // A burst sends each segment once.
    o.resent_in_burst = resent_since(seq, end, burst_start_);
  }
  return o;
  };
  Observation o = observe();
  Explanation ex = explain(o, *opt_.profile);
  if (ex.kind == SendKind::spurious && !syn)
    if (const BeforeAck* b = unheard_ack_for(seq)) {
      // The capture saw this acknowledged: the sender resent it all the
      // same. Read with the sender's state before that ACK (the ACK was
      // lost after the capture point, or still on its way): a repeat its
      // timers or its ACK clock explain then is theirs, timed from there.
      const TimerState now = timer_state();
      const std::optional<std::uint32_t> heard_before = heard_una_;
      const std::uint64_t unheard_before = unheard_segments_;
      restore(b->state);
      heard_una_ = b->una;
      unheard_segments_ = acked_segments_ - b->acked_segments;
      const Observation before = observe();
      const Explanation e2 = explain(before, *opt_.profile);
      if (e2.kind == SendKind::timeout || e2.kind == SendKind::tlp || e2.kind == SendKind::fast ||
          e2.kind == SendKind::slow_start_after_rto) {
        o = before;
        ex = e2;
        ack_unheard_ = true;
        Judgement j = note(Topic::ack_unheard, s.frame, s.time, false);
        j.other_frame = b->frame;
        append(std::move(j));
        // That ACK and every later one are unheard: none is kept.
        const std::uint32_t from = b->una;
        while (before_count_ > 0) {
          const BeforeAck& newest = before_acks_[(before_next_ + before_acks_.size() - 1) % before_acks_.size()];
          if (seq_lt(newest.una, from)) break;
          before_next_ = static_cast<std::uint8_t>((before_next_ + before_acks_.size() - 1) % before_acks_.size());
          --before_count_;
        }
        (void)filter_pending([&](const PendingSample& p) { return !seq_gt(p.ack, from); });  // never taken
      } else {
        restore(now);
        heard_una_ = heard_before;
        unheard_segments_ = unheard_before;
      }
    }
  const SendKind kind = ex.kind;

  if (kind == SendKind::out_of_order) {
    // Not the sender's doing: a first transmission seen late, or an old copy.
    count(kind);
    if (ex.cause == Cause::reordered_first) insert_outstanding(Tx{seq, end, send_time(s.time, tsval), false});
    record(s, to_string(kind), seq);
    return;
  }
  if (seq_gt(end, seq_.snd_max)) {  // partly new data
    push_outstanding(Tx{seq_.snd_max, end, send_time(s.time, tsval), false});
    seq_.snd_max = end;
  }
  if (!ex.maybe_rto) count(kind);  // a probe's reading is counted when its chain settles
  switch (kind) {
    case SendKind::timeout:
    case SendKind::syn_timeout:
      timer_event(s, seq, syn, false, tsval);
      break;
    case SendKind::tlp:
      if (ex.maybe_rto) {
        timer_event(s, seq, false, true, tsval);
      } else {
        // RFC 8985 7.3 / Linux tcp_send_loss_probe: the probe re-arms a full
        // RTO. A stack that does not re-arm keeps the old deadline: under
        // profiles other than Linux both readings stay open.
        const CaptureTime before = arm_ ? arm_->earliest : s.time;
        arm(s.time, ArmCause::probe, tsval, opt_.profile->rearm_from_head ? s.time : before);
        arm_->frame = s.frame;
      }
      probe_since_ack_ = true;
      if (recovery_ == Recovery::open) recovery_ = Recovery::probe_out;
      break;
    case SendKind::fast:
      if (recovery_ != Recovery::fast || !seq_lt(heard_una(), fast_recovery_point_)) {
        recovery_ = Recovery::fast;
        fast_recovery_point_ = seq_.snd_max;
      }
      if (o.is_head) {
        // RFC 6298 5.1: fast retransmit does not move the timer (B12); Linux
        // re-arms the RTO at a retransmission of the head.
        if (opt_.profile->rearm_from_head) {
          arm(s.time, ArmCause::head_retransmit, tsval);
          arm_->frame = s.frame;
        } else {
          note_rearm(s.time);
        }
      }
      break;
    case SendKind::slow_start_after_rto:
      if (o.is_head && pending_54_) pending_54_->head_resent = true;  // 5.4 does not order a burst's segments
      if (o.is_head) {
        if (opt_.profile->rearm_from_head) {
          arm(s.time, ArmCause::head_retransmit, tsval);
          arm_->frame = s.frame;
        } else {
          note_rearm(s.time);
        }
      }
      if (o.in_rto_burst) {
        burst_last_ = s.time;
        burst_tsval_ = tsval;
      }
      break;
    case SendKind::syn_reply:
      // Linux tcp_check_req re-arms the SYN-ACK timer from the reply, keeping
      // its backoff; a stack that does not leaves the old arm: both readings.
      if (syn_arm_) {
        if (opt_.profile->rearm_from_head)
          syn_arm_ = TimerArm{ArmCause::syn_reply, s.time, s.time, tsval, s.frame};
        else
          syn_arm_->latest = s.time;
      }
      break;
    default:
      break;
  }
  ack_unheard_ = false;
  mark_retransmitted(seq, end, send_time(s.time, tsval));
  if (ex.maybe_rto && keep_timeline_) provisional_rows_.emplace_back(s.frame, out_.timeline.size());
  record(s, to_string(kind), seq);
}

void SenderEngine::timer_event(const Segment& s, std::uint32_t seq, bool syn, bool maybe_probe,
                               std::optional<std::uint32_t> tsval) {
  if (syn && syn_acked_frame_ && !syn_lost_ack_noted_) {
    syn_lost_ack_noted_ = true;
    Judgement j = note(Topic::syn_acked_unseen, s.frame, s.time, true);
    j.other_frame = *syn_acked_frame_;
    append(std::move(j));
  }
  const std::optional<TimerArm>& a = syn ? syn_arm_ : arm_;
  const TimerArm armed = a.value_or(TimerArm{ArmCause::send, s.time, s.time, std::nullopt, 0});
  ObservedExpiry x;
  x.frame = s.frame;
  x.time = s.time;
  x.syn = syn;
  x.rel_seq = rel(seq);
  x.armed_by = armed.cause;
  x.arm_frame = armed.frame;
  x.wait = wait_since(armed, s.time);
  x.check = last_peer_time_.has_value() || syn;
  x.thin = in_flight() < 4;
  x.maybe_probe = maybe_probe;
  x.after_ambiguous_ack = ambiguous_since_expiry_;
  x.after_sack_sample = sack_sample_since_expiry_;
  x.ack_unheard = std::exchange(ack_unheard_, false);
  x.expect = syn ? est_.syn_expectation() : est_.data_expectation();
  // The sender's own clock: its TSvals show the wait it timed even where the
  // capture's timestamps are late or batched, or step.
  std::optional<Interval> on_ts;
  if (tsval && armed.tsval)
    if (const auto w = ts_clock_.interval(*armed.tsval, *tsval); w && w->count() > 0)
      if (const auto rate = ts_clock_.rate_hz()) {
        const microseconds tick{static_cast<std::int64_t>(limits::kClockDisagreeTicks * 1e6 / *rate)};
        on_ts = Interval{*w - tick, *w + tick};
      }
  x.ts_wait = on_ts;
  const ModelStep* step = clock_ ? clock_->between(armed.earliest, s.time) : nullptr;
  if (step || armed.latest > s.time) {
    // A step of the capture clock between the arm and this expiry: the wait
    // on the capture's clock is unknown (clock_steps.hpp) and not judged;
    // the chain's later doublings read it on the sender's TSval clock.
    x.wait_unknown = true;
    x.bridged = on_ts;
    Judgement j = note(Topic::clock_step, s.frame, s.time, syn);
    if (step) {
      j.other_frame = step->frame;
      j.other_prev_frame = step->prev_frame;
      j.step = step->back;
    } else {
      j.step = armed.latest - s.time;
    }
    append(std::move(j));
  } else if (on_ts && !x.wait.intersects(*on_ts)) {
    // The two clocks disagree beyond the TSval's quantisation: the capture
    // saw a transmission late (a queue, a capture batching timestamps). The
    // sender's own clock says how long its timer ran.
    x.wait = *on_ts;
    x.on_tsval = true;
  }
  auto& chain = syn ? syn_chain_ : data_chain_;
  chain.push_back(x);
  ambiguous_since_expiry_ = false;
  sack_sample_since_expiry_ = false;
  if (syn) {
    est_.on_syn_timeout();
    syn_arm_ = TimerArm{ArmCause::timeout, s.time, s.time, tsval, s.frame};
    return;
  }
  if (maybe_probe) {
    arm(s.time, ArmCause::probe, tsval);
    arm_->frame = s.frame;
    return;
  }
  // 5.4 is settled when the expiry's burst ends: the burst may resend the head.
  settle_54();
  std::size_t expiries = 0;
  for (const ObservedExpiry& e : data_chain_) expiries += e.maybe_probe ? 0 : 1;
  if (seq != heard_una())
    pending_54_ = Pending54{s.frame, s.time, rel(seq), rel(heard_una()), static_cast<unsigned>(expiries), false};
  open_57_.reset();  // a data expiry before the next sample: the chain judges 5.7 at it
  recovery_ = Recovery::rto;
  seq_.recovery_point = seq_.snd_max;
  burst_start_ = s.time;
  burst_last_ = s.time;
  burst_tsval_ = tsval;
  ++timeouts_since_ack_;
  arm(s.time, ArmCause::timeout, tsval);  // 5.6: restart the timer
  arm_->frame = s.frame;
}

// ---- chains and pending judgements ------------------------------------------

Judgement SenderEngine::note(Topic topic, std::uint64_t frame, CaptureTime t, bool syn) {
  Judgement j;
  j.rule = RuleId::ambiguous;
  j.outcome = Outcome::note;
  j.level = Level::info;
  j.topic = topic;
  j.frame = frame;
  j.time = t;
  j.syn = syn;
  return j;
}

void SenderEngine::settle_54() {
  if (!pending_54_) return;
  const Pending54 p = *pending_54_;
  pending_54_.reset();
  if (p.head_resent) return;
  Judgement j;
  j.rule = RuleId::rfc6298_5_4;
  j.outcome = Outcome::broken;
  j.level = level_of(j.rule, j.outcome);
  j.frame = p.frame;
  j.time = p.time;
  j.expiry = p.expiry;
  j.rel_seq = p.rel_seq;
  j.rel_una = p.rel_una;
  append(std::move(j));
}

void SenderEngine::settle_57(std::uint64_t sample_frame) {
  if (!open_57_) return;
  const Open57 o = *open_57_;
  open_57_.reset();
  Judgement j = note(Topic::unverifiable_57, o.frame, o.time, false);
  j.rule = RuleId::rfc6298_5_7;
  j.predicted = Interval::point(opt_.config.syn_fallback_rto);
  j.alternative = Interval::point(o.before);
  j.other_frame = sample_frame;
  append(std::move(j));
}

void SenderEngine::absorb(SettledChain&& c) {
  for (Judgement& j : c.judgements) out_.findings.push_back(std::move(j));
  for (TimeoutRecord& r : c.records) {
    // A 5.4 judgement settled with the burst names this expiry too.
    for (const Judgement& j : out_.findings)
      if (j.frame == r.frame && j.rule == RuleId::rfc6298_5_4 &&
          std::find(r.rules.begin(), r.rules.end(), RuleId::rfc6298_5_4) == r.rules.end())
        r.rules.push_back(RuleId::rfc6298_5_4);
    out_.timeouts.push_back(std::move(r));
  }
  for (const auto& [frame, kind] : c.kinds) {
    count(kind);
    for (const auto& [f, row] : provisional_rows_)
      if (f == frame && row < out_.timeline.size()) out_.timeline[row].event = to_string(kind);
  }
  if (c.cap && (!out_.inferred.plateau || c.cap->lo > *out_.inferred.plateau)) out_.inferred.plateau = c.cap->lo;
  if (c.additive && c.additive->bounded()) out_.inferred.additive = (c.additive->lo + c.additive->hi) / 2;
}

void SenderEngine::settle_data_chain() {
  if (data_chain_.empty()) return;
  if (activity_)
    for (ObservedExpiry& x : data_chain_) {
      // A frame captured in a burst its host released after a silence was
      // sent before its capture: a wait that ends at one is at most what
      // the capture shows, one that starts at one at least. The sender's
      // own TSval clock, when it has one, tells the wait itself.
      const bool end_held = activity_->flushed(file_, x.frame);
      const bool start_held = x.arm_frame && activity_->flushed(file_, x.arm_frame);
      if ((!end_held && !start_held) || x.wait_unknown) continue;
      if (x.ts_wait) {
        x.wait = *x.ts_wait;
        x.on_tsval = true;
        continue;
      }
      if (end_held) x.wait.lo = microseconds{0};
      if (start_held) x.wait.hi = microseconds::max();
      Judgement j = note(Topic::flushed_burst, x.frame, x.time, x.syn);
      j.other_frame = end_held ? x.frame : x.arm_frame;
      append(std::move(j));
    }
  absorb(judge_.settle(data_chain_, false));
  data_chain_.clear();
  provisional_rows_.clear();
}

void SenderEngine::settle_syn_chain() {
  if (syn_chain_.empty()) return;
  absorb(judge_.settle(syn_chain_, true));
  syn_chain_.clear();
}

// ---- the peer ------------------------------------------------------------------

bool SenderEngine::apply_sack(const wire::TcpHeader& h, CaptureTime& first) {
  if (!scoreboard_) {
    // The first SACK block of the connection: index the segments not SACKed.
    scoreboard_ = true;
    for (const Tx& x : outstanding_)
      if (!x.sacked) unsacked_.insert(unsacked_.end(), sb_key(x.seq));
  }
  bool found = false;
  std::uint32_t first_seq = 0;
  for (std::uint8_t i = 0; i < h.options.sack_count && i < h.options.sack.size(); ++i) {
    const auto& b = h.options.sack[i];
    if (!seq_gt(b.right, seq_.snd_una)) continue;  // D-SACK or old block
    for (auto k = unsacked_.lower_bound(sb_key(b.left)); k != unsacked_.end();) {
      const std::uint32_t seq = seq_.snd_una + static_cast<std::uint32_t>(*k - una64_);
      auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                     [&](const Tx& x) { return seq_lt(x.seq, seq); });
      while (it != outstanding_.end() && it->seq == seq && it->sacked) ++it;
      if (it == outstanding_.end() || it->seq != seq) {  // not expected: the index lost its segment
        k = unsacked_.erase(k);
        continue;
      }
      if (!seq_le(it->end, b.right)) break;
      it->sacked = true;
      --unsacked_count_;
      k = unsacked_.erase(k);
      if (!it->retransmitted && (!found || seq_lt(it->seq, first_seq))) {
        first = it->last_time;
        first_seq = it->seq;
        found = true;
      }
    }
  }
  return found;
}

// ---- ACKs the capture saw and the sender did not receive ------------------

SenderEngine::TimerState SenderEngine::timer_state() const {
  return TimerState{arm_,      timeouts_since_ack_, dupacks_, recovery_, probe_since_ack_, sack_evidence_,
                    seq_.recovery_point, fast_recovery_point_};
}

void SenderEngine::restore(const TimerState& t) {
  arm_ = t.arm;
  timeouts_since_ack_ = t.timeouts_since_ack;
  dupacks_ = t.dupacks;
  recovery_ = t.recovery;
  probe_since_ack_ = t.probe_since_ack;
  sack_evidence_ = t.sack_evidence;
  seq_.recovery_point = t.recovery_point;
  fast_recovery_point_ = t.fast_recovery_point;
}

void SenderEngine::remember_before_ack(std::uint64_t frame, CaptureTime t, std::uint32_t ack,
                                       std::optional<std::uint32_t> tsval) {
  before_acks_[before_next_] = BeforeAck{timer_state(), frame, t, heard_una(), ack, tsval, acked_segments_};
  before_next_ = static_cast<std::uint8_t>((before_next_ + 1) % before_acks_.size());
  if (before_count_ < before_acks_.size()) ++before_count_;
}

const SenderEngine::BeforeAck* SenderEngine::unheard_ack_for(std::uint32_t seq) const {
  for (std::size_t i = 0; i < before_count_; ++i) {
    const BeforeAck& b = before_acks_[(before_next_ + before_acks_.size() - 1 - i) % before_acks_.size()];
    if (seq_ge(seq, b.una) && seq_lt(seq, b.ack)) return &b;
  }
  return nullptr;
}

void SenderEngine::heard_through(std::uint32_t tsecr) {
  // The sender echoes the TSval of the latest segment it accepted: one
  // newer than an ACK's was sent after it and acknowledges at least as much.
  // An equal TSval may be an earlier segment of the same tick: no evidence.
  std::uint8_t kept = 0;
  for (std::size_t i = 0; i < before_count_; ++i) {
    const BeforeAck& b = before_acks_[(before_next_ + before_acks_.size() - 1 - i) % before_acks_.size()];
    if (b.tsval && rto::ts_diff(tsecr, *b.tsval) > 0) break;  // this one and all older were received
    ++kept;
  }
  before_count_ = kept;
}

void SenderEngine::heard_until(CaptureTime t) {
  std::uint8_t kept = 0;
  for (std::size_t i = 0; i < before_count_; ++i) {
    const BeforeAck& b = before_acks_[(before_next_ + before_acks_.size() - 1 - i) % before_acks_.size()];
    if (b.time <= t) break;  // this one and all older were received
    ++kept;
  }
  before_count_ = kept;
}

void SenderEngine::on_valid_sample() {
  // A valid sample ends the backoff (the note after 5.7): the data chain is over.
  settle_data_chain();
  settle_57(current_frame_);
}

void SenderEngine::settle_pending_samples(CaptureTime now) {
  while (pending_count_ > 0 && pending_[pending_first_].until <= now) {
    const PendingSample p = pending_[pending_first_];
    pending_first_ = static_cast<std::uint8_t>((pending_first_ + 1) % pending_.size());
    --pending_count_;
    take_pending(p);
  }
}

void SenderEngine::add_pending(const PendingSample& p) {
  if (pending_count_ == pending_.size()) {  // the oldest is taken as it is
    const PendingSample oldest = pending_[pending_first_];
    pending_first_ = static_cast<std::uint8_t>((pending_first_ + 1) % pending_.size());
    --pending_count_;
    take_pending(oldest);
  }
  pending_[(pending_first_ + pending_count_) % pending_.size()] = p;
  ++pending_count_;
}

template <class Keep>
std::size_t SenderEngine::filter_pending(Keep keep) {
  std::uint8_t kept = 0;
  for (std::uint8_t i = 0; i < pending_count_; ++i) {
    const PendingSample& p = pending_[(pending_first_ + i) % pending_.size()];
    if (keep(p)) pending_[(pending_first_ + kept++) % pending_.size()] = p;
  }
  const std::size_t dropped = pending_count_ - kept;
  pending_count_ = kept;
  return dropped;
}

void SenderEngine::take_pending(const PendingSample& p) {
  if (!est_.on_sample(p.r, p.r - sender_rtt_.value_or(microseconds{0}), p.snd_una, p.snd_nxt)) {
    ++out_.samples_refused;
    if (p.event && *p.event < out_.timeline.size()) {  // the timeline shows no sample either
      out_.timeline[*p.event].sample.reset();
      out_.timeline[*p.event].sample_kind.reset();
    }
    return;
  }
  if (p.kind == SampleKind::seq) ++out_.samples_seq; else ++out_.samples_ts;
  (p.kind == SampleKind::seq ? out_.rtt_karn : out_.rtt_ts_echo).add(p.r);
  on_valid_sample();
  if (p.at_sender && p.event) {
    // Taken at the ACK, as it turned out: the timeline shows it from there.
    const auto& e = est_.estimator();
    unsigned backoff = 0;
    for (const ObservedExpiry& x : data_chain_) backoff += x.maybe_probe ? 0 : 1;
    for (std::size_t i = *p.event; i < out_.timeline.size(); ++i) {
      out_.timeline[i].srtt = e.srtt();
      out_.timeline[i].rttvar = e.rttvar();
      out_.timeline[i].rto = current_rto();
      out_.timeline[i].backoff = backoff;
    }
  }
}

bool SenderEngine::take_sample(microseconds r, SampleKind kind, microseconds corr) {
  settle_pending_samples(CaptureTime::max());  // the samples in the order the sender took them
  if (!est_.on_sample(r, r - corr, seq_.snd_una, seq_.snd_max)) {
    ++out_.samples_refused;
    return false;
  }
  if (kind == SampleKind::seq) ++out_.samples_seq; else ++out_.samples_ts;
  (kind == SampleKind::seq ? out_.rtt_karn : out_.rtt_ts_echo).add(r);
  on_valid_sample();
  return true;
}

void SenderEngine::on_peer(const Segment& s) {
  settle_pending_samples(s.time);
  if (s.tcp.options.tsecr) ts_clock_.echoed(*s.tcp.options.tsecr);
  const auto& h = s.tcp;
  file_ = s.file_index;
  current_frame_ = s.frame;
  last_peer_time_ = s.time;
  if (h.options.tsval) last_peer_tsval_ = *h.options.tsval;
  peer_times_.push_back(PeerMark{s.time, h.options.tsval.value_or(0), h.options.tsval.has_value()});
  if (peer_times_.size() > limits::kAckClockHistory) peer_times_.pop_front();
  if (s.payload_len > 0) {
    peer_data_.emplace_back(h.seq + s.payload_len, s.time);
    if (peer_data_.size() > limits::kPeerDataHistory) {
      peer_data_.pop_front();
      if (peer_data_acked_ > 0) --peer_data_acked_;
    }
  }
  out_.peer_seen = true;
  burst_last_.reset();  // the burst after an expiry ends with anything from the peer
  settle_54();
  if (h.options.tsval) {
    peer_timestamps_ = true;
    out_.tsval_peer = true;
  }
  if (h.has(wire::kSyn)) {
    peer_sack_ok_ = peer_sack_ok_ || h.options.sack_permitted;
    handshake_seen_ = handshake_seen_ || (own_syn_ || own_synack_);
    if (h.has(wire::kAck)) {
      if (!peer_synack_) peer_synack_ = s.time;
      handshake_seen_ = handshake_seen_ || own_syn_.has_value();
    } else {
      if (!own_synack_) peer_syn_ = s.time;  // the SYN our first SYN-ACK answers is the latest before it
      else peer_syn_again_ = s.time;         // it asks for our SYN-ACK again
    }
  }
  if (h.options.sack_count > 0 || h.options.sack_permitted) out_.sack = out_.sack || h.options.sack_count > 0;
  if (handshake_ == Handshake::none || !h.has(wire::kAck) || h.has(wire::kRst)) return;
  if (!handshake_seen_ && (handshake_ == Handshake::syn_sent || handshake_ == Handshake::syn_received) &&
      (peer_syn_ || peer_synack_))
    handshake_seen_ = true;
  peer_window_ = h.window;
  const std::uint32_t ack = h.ack;
  const auto sack_above = [&](std::uint32_t una) {
    for (std::uint8_t i = 0; i < h.options.sack_count && i < h.options.sack.size(); ++i)
      if (seq_gt(h.options.sack[i].right, una)) return true;
    return false;
  };
  // SND.UNA as the sender knows it (behind the capture's after an ACK it
  // showed it did not receive).
  const std::uint32_t una = heard_una();
  if (sack_above(una)) sack_evidence_ = true;
  // The peer shows a hole lost: a SACK above it or a duplicate ACK below it.
  if (!holes_.empty() && (h.options.sack_count > 0 || (ack == una && s.payload_len == 0)))
    for (Hole& x : holes_)
      if (!x.evidence && seq_le(ack, x.seq)) x.evidence = s.time;
  // The capture point is not the sender: a sample measured there misses the
  // round trip between it and the sender.
  const microseconds correction = sender_rtt_.value_or(microseconds{0});
  CaptureTime first_sacked{};
  const bool have_sacked = h.options.sack_count > 0 && apply_sack(h, first_sacked);
  const bool sack_samples = opt_.profile->sack_rtt_samples;

  if (!seq_gt(ack, una)) {
    if (have_sacked && seq_ge(ack, una) && !across_step(first_sacked, s.time)) {
      if (sack_samples) {
        // Linux samples newly SACKed, never retransmitted data on any ACK
        // (tcp_ack_update_rtt's sack_rtt) and re-arms the RTO from the
        // head's send time (tcp_rearm_rto).
        const microseconds r = since(s.time, first_sacked) + correction;
        const bool taken = take_sample(r, SampleKind::seq, correction);
        if (arm_) {
          const CaptureTime head = outstanding_.empty() ? arm_->earliest : outstanding_.front().last_time;
          arm(s.time, ArmCause::sack, std::nullopt, std::min(arm_->earliest, head));
        }
        record(s, "sack", ack, taken ? std::optional<microseconds>(r) : std::nullopt,
               taken ? std::optional<SampleKind>(SampleKind::seq) : std::nullopt);
      } else {
        // RFC 6298 and 7323 take no sample from a duplicate ACK; a stack that
        // samples SACKed data (Linux) took one here, and may re-arm.
        sack_sample_since_expiry_ = true;
        note_rearm(s.time);
      }
    }
    // Duplicate ACK (RFC 5681 2): no data, no SYN/FIN, same ACK, data outstanding.
    if (ack == una && s.payload_len == 0 && !h.has(wire::kSyn) && !h.has(wire::kFin) && una != seq_.snd_max) {
      ++dupacks_;
      record(s, "dup-ack", ack);
    }
    return;
  }
  remember_before_ack(s.frame, s.time, ack, h.options.tsval);
  if (seq_gt(ack, seq_.snd_max)) seq_.snd_max = ack;  // the capture missed what it acknowledges

  // ACK of new data: which segments does it cover? (None the capture saw
  // acknowledged before: those the sender resent, so Karn voids the sample.)
  bool any_retx = !seq_gt(ack, seq_.snd_una);
  std::optional<CaptureTime> oldest;
  // Linux tcp_clean_rtx_queue: the oldest newly acked segment not already
  // SACKed gives the time; any retransmitted one voids the sample (Karn).
  while (!outstanding_.empty() && seq_le(outstanding_.front().end, ack)) {
    const Tx& x = outstanding_.front();
    any_retx = any_retx || x.retransmitted;
    if (!oldest && !x.sacked) oldest = x.last_time;
    pop_outstanding();
  }
  if (!outstanding_.empty() && seq_lt(outstanding_.front().seq, ack)) {
    Tx& x = outstanding_.front();
    any_retx = any_retx || x.retransmitted;
    if (!oldest && !x.sacked) oldest = x.last_time;
    trim_front(ack);
  }
  while (!holes_.empty() && seq_le(holes_.front().end, ack)) holes_.pop_front();
  const bool acks_syn = (handshake_ == Handshake::syn_sent || handshake_ == Handshake::syn_received) &&
                        seq_gt(ack, seq_.isn);
  if (seq_gt(ack, seq_.snd_una)) {
    una64_ += rto::seq_diff(ack, seq_.snd_una);
    seq_.snd_una = ack;
  }
  if (heard_una_) {
    if (seq_ge(ack, seq_.snd_una)) heard_una_.reset();  // the sender has caught up with the capture
    else heard_una_ = ack;
  }
  dupacks_ = 0;
  sack_evidence_ = sack_above(ack);
  if ((recovery_ == Recovery::rto && seq_ge(ack, seq_.recovery_point)) ||
      (recovery_ == Recovery::fast && seq_ge(ack, fast_recovery_point_)) || recovery_ == Recovery::probe_out)
    recovery_ = Recovery::open;
  timeouts_since_ack_ = 0;
  probe_since_ack_ = false;

  // The RTT sample the sender could take (section 3; Linux tcp_clean_rtx_queue):
  // from the oldest newly acked segment if no acked segment was retransmitted
  // (Karn), else (Linux) from newly SACKed data, else from the timestamp echo
  // (RFC 7323 4: one sample per TSval, from an ACK that advances SND.UNA), else none.
  std::optional<microseconds> sample;
  std::optional<SampleKind> kind;
  const bool echo_across = (last_send_time_ && across_step(*last_send_time_, s.time)) ||
                           (tsval_before_step_ && h.options.tsecr &&
                            rto::ts_diff(*h.options.tsecr, *tsval_before_step_) <= 0);
  if (oldest && !any_retx) {
    if (!across_step(*oldest, s.time)) {
      sample = since(s.time, *oldest) + correction;
      kind = SampleKind::seq;
    }
  } else if (have_sacked && sack_samples) {
    if (!across_step(first_sacked, s.time)) {
      sample = since(s.time, first_sacked) + correction;
      kind = SampleKind::seq;
    }
  } else if (h.options.tsecr && ts_clock_.seen() && !echo_across) {
    sample = ts_clock_.echo_rtt(s.time, *h.options.tsecr);
    if (sample) kind = SampleKind::ts_echo;
  }
  if (have_sacked && !sack_samples && any_retx) sack_sample_since_expiry_ = true;
  const bool all_acked = heard_una() == seq_.snd_max;
  // 5.2 / 5.3 before the sample settles the chain (the arm is the chain's).
  if (all_acked) {
    arm_.reset();  // 5.2: all outstanding data acknowledged: the timer stops
  } else {
    // 5.3: restart with the current RTO when the sender received the ACK:
    // up to the capture-to-sender round trip after the capture saw it. Linux
    // (tcp_rearm_rto, a probe or RACK timer pending) counts the deadline
    // from the head's last transmission instead: the arm is anywhere between.
    CaptureTime earliest = s.time;
    if (opt_.profile->rearm_from_head && !outstanding_.empty() && outstanding_.front().last_time < s.time)
      earliest = outstanding_.front().last_time;
    arm(s.time + ack_delay_hi(), ArmCause::ack, std::nullopt, earliest);
  }
  // Karn (3) as the sender applies it: an ACK it processes after it sent
  // the acknowledged data again gives no sample. It processes the ACK up to
  // the capture-to-sender round trip after the capture saw it; at the
  // sender (a round trip below kCaptureAtSender, read as 0), up to that.
  if (sample && sample->count() >= 0 && sender_rtt_ && *kind == SampleKind::seq && !acks_syn) {
    const microseconds until = sender_rtt_->count() > 0 ? *sender_rtt_ : limits::kCaptureAtSender;
    PendingSample p{*sample, s.time + until, std::nullopt, ack, seq_.snd_una, seq_.snd_max, *kind,
                    sender_rtt_->count() == 0};
    if (keep_timeline_) p.event = out_.timeline.size();  // the "ack" recorded below
    add_pending(p);
  } else if (sample && sample->count() >= 0) {
    if (!take_sample(*sample, *kind, *kind == SampleKind::seq ? correction : microseconds{0})) {
      sample.reset();
      kind.reset();
    }
  } else {
    sample.reset();
    kind.reset();
    if (any_retx) {
      ++out_.ambiguous_acks;
      ambiguous_since_expiry_ = true;
    }
  }
  if (acks_syn) {
    // The handshake completes: the SYN timer's chain is over, and its backoff
    // reaches the data timer only as 5.7 says.
    handshake_ = Handshake::established;
    syn_acked_frame_ = s.frame;
    settle_syn_chain();
    est_.on_handshake_complete(est_.syn_timed_out());
    if (opt_.profile->fallback_57 == Fallback57::rfc && est_.syn_timed_out() && est_.before_57())
      open_57_ = Open57{s.frame, s.time, *est_.before_57()};  // seen only at a data expiry before the next sample
  }
  record(s, "ack", ack, sample, kind);
}

void SenderEngine::finish() {
  settle_pending_samples(CaptureTime::max());
  // The replayed estimator at the end, with the backoff of the chain still open.
  const auto& e = est_.estimator();
  out_.srtt = e.srtt();
  out_.rttvar = e.rttvar();
  out_.rto = current_rto();
  out_.backoff = 0;
  for (const ObservedExpiry& x : data_chain_) out_.backoff += x.maybe_probe ? 0 : 1;
  settle_54();
  settle_syn_chain();
  settle_data_chain();
  current_frame_ = 0;
  settle_57(0);
  if (auto r = ts_clock_.rate_hz()) out_.inferred.tsval_hz = *r;
  // The log in frame order (stable: a frame's judgements keep theirs).
  std::stable_sort(out_.findings.begin(), out_.findings.end(),
                   [](const Judgement& a, const Judgement& b) { return a.frame < b.frame; });
  std::stable_sort(out_.timeouts.begin(), out_.timeouts.end(),
                   [](const TimeoutRecord& a, const TimeoutRecord& b) { return a.frame < b.frame; });
}

}  // namespace replay::engine
