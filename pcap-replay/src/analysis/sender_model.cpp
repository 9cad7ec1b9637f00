#include "analysis/sender_model.hpp"

#include <algorithm>
#include <cstdio>

#include <rto/seq.hpp>

#include <replay/thresholds.hpp>

namespace replay {

using std::chrono::microseconds;
using rto::seq_ge;
using rto::seq_gt;
using rto::seq_le;
using rto::seq_lt;

namespace {
microseconds since(CaptureTime later, CaptureTime earlier) {
  return std::chrono::duration_cast<microseconds>(later - earlier);
}
// A clock step as the messages say it: "28.336 s", "88.022 ms".
std::string step_text(std::chrono::nanoseconds d) {
  char buf[48];
  const double ms = static_cast<double>(d.count()) / 1e6;
  if (ms >= 1000.0) std::snprintf(buf, sizeof buf, "%.3f s", ms / 1000.0);
  else std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}
}  // namespace

SenderModel::SenderModel(const Options& options, SenderReport& out, bool keep_timeline, HostClock* host,
                         HostActivity* activity, bool feed_activity)
    : out_(out), activity_(activity), keep_timeline_(keep_timeline), feed_activity_(feed_activity),
      timer_(options, out, ts_clock_), opt_(options) {
  ts_clock_.set_host(host);
  timer_.set_activity(activity);
  out_.profile = options.profile->name;
}

void SenderModel::record(const Segment& s, std::string_view event, std::uint32_t seq,
                         std::optional<microseconds> sample, std::optional<SampleKind> kind) {
  if (!keep_timeline_) return;
  const auto& e = timer_.estimator();
  out_.timeline.push_back(TimelineEvent{s.frame, s.time, event, rel(seq), sample, kind, e.srtt(), e.rttvar(),
                                        e.rto(), e.backoff()});
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

void SenderModel::mark_retransmitted(std::uint32_t seq, std::uint32_t end, CaptureTime t) {
  // outstanding_ is ordered by sequence: find the first range that ends after seq.
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& x) { return seq_le(x.end, seq); });
  for (; it != outstanding_.end() && seq_lt(it->seq, end); ++it) {
    it->retransmitted = true;
    it->last_time = t;
  }
}

void SenderModel::insert_outstanding(const Tx& x) {
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& y) { return seq_lt(y.seq, x.seq); });
  outstanding_.insert(it, x);
  ++unsacked_count_;
  if (scoreboard_) unsacked_.insert(sb_key(x.seq));
}

void SenderModel::push_outstanding(const Tx& x) {
  outstanding_.push_back(x);
  ++unsacked_count_;
  if (scoreboard_) unsacked_.insert(unsacked_.end(), sb_key(x.seq));
}

void SenderModel::pop_outstanding() {
  const Tx& x = outstanding_.front();
  if (!x.sacked) {
    --unsacked_count_;
    if (scoreboard_)
      if (auto it = unsacked_.find(sb_key(x.seq)); it != unsacked_.end()) unsacked_.erase(it);
  }
  outstanding_.pop_front();
}

void SenderModel::trim_front(std::uint32_t seq) {
  Tx& x = outstanding_.front();
  if (scoreboard_ && !x.sacked) {
    if (auto it = unsacked_.find(sb_key(x.seq)); it != unsacked_.end()) unsacked_.erase(it);
    unsacked_.insert(sb_key(seq));
  }
  x.seq = seq;
}

void SenderModel::learn_handshake_delays() {
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
  if (sender_rtt_) timer_.set_sender_rtt(*sender_rtt_);
}

bool SenderModel::ack_clocked(CaptureTime t) const {
  const microseconds d = sender_rtt_.value_or(microseconds{0});
  const microseconds band = d * limits::kAckClockBandNum / limits::kAckClockBandDen + limits::kAckClockMin;
  // The capture may see the peer's segment late too (its own path to the
  // capture point), so a response can show up sooner than d: from 0 on.
  const microseconds lo{0};
  const microseconds hi = d + band;
  // Newest first. The newest is last_peer_time_ (on_peer keeps it equal to
  // peer_times_.back()), so the ring is read only when the newest was
  // captured after t (two capture interfaces).
  if (!last_peer_time_) return false;
  CaptureTime p = *last_peer_time_;
  for (std::size_t i = 1;; ++i) {
    if (across_step(p, t)) return false;  // how long after it is unknown: no evidence (nor for older ones)
    const microseconds after = since(t, p);
    if (after > hi) return false;
    if (after >= lo) return true;
    if (i >= peer_times_.size()) return false;
    p = peer_times_[peer_times_.size() - 1 - i];
  }
}

void SenderModel::skip_acked_peer_data(std::uint32_t moved) {
  // An entry at or below acked_through_ fails the late-ACK test's first
  // condition (seq_gt(end, acked_through_)) for as long as acked_through_,
  // which only moves forward, has moved less than 2^31 minus the entry's
  // distance below it (modulo 2^32 it would come out ahead again). Entries
  // at most 2^30 below it are counted, and the count is redone from the
  // front once acked_through_ has moved 2^30 since: the test stays exact.
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

bool SenderModel::fill_hole(std::uint32_t seq, std::uint32_t end, CaptureTime t) {
  const microseconds window = std::max(limits::kReorderWindowFloor, hs_rtt_.value_or(microseconds{0}));
  for (auto it = holes_.begin(); it != holes_.end(); ++it) {
    if (!(seq_ge(seq, it->seq) && seq_le(end, it->end))) continue;
    const bool recent = since(t, it->time) <= window && !across_step(it->time, t);
    // Shrink or split the hole: this part has now been seen.
    const Hole h = *it;
    it = holes_.erase(it);
    if (seq_lt(h.seq, seq)) it = holes_.insert(it, Hole{h.seq, seq, h.time}) + 1;
    if (seq_lt(end, h.end)) holes_.insert(it, Hole{end, h.end, h.time});
    return recent;
  }
  return false;
}

bool SenderModel::clock_stepped_back(const Segment& s) {
  const auto arm = timer_.last_arm();
  if (!arm) return false;
  if (const ModelStep* step = clock_ ? clock_->between(timer_.earliest_arm().value_or(*arm), s.time) : nullptr) {
    // A step of the capture clock between the arm and this expiry: how much
    // time passed across it is unknown, so is the wait (clock_steps.hpp).
    out_.findings.push_back(Finding{
        RuleId::ambiguous, Level::info, s.frame, s.time,
        "the capture clock stepped back " + step_text(step->back) + " at frame " + std::to_string(step->frame) +
            (step->prev_frame ? " (dated before frame " + std::to_string(step->prev_frame) + ")" : std::string()) +
            ", between the timer's arm and this expiry: the wait across it is unknown and not judged"});
    return true;
  }
  if (*arm <= s.time) return false;
  // The wait would be negative: the capture's clock went back between the
  // arm and this expiry (a step of the capturing host's clock), so the wait
  // is unknown. Recorded and backed off, not judged (never a MUST).
  out_.findings.push_back(Finding{
      RuleId::ambiguous, Level::info, s.frame, s.time,
      "the capture clock steps back between the timer's arm and this expiry (the retransmission is stamped " +
          format_rel(*arm, s.time) + " s before the arm): the wait is unknown and not judged"});
  return true;
}

void SenderModel::replay_first_send(const Segment& s, std::optional<double> rate_then) {
  replay_rate_ = &rate_then;
  on_send(s);
  replay_rate_ = nullptr;
}

bool SenderModel::first_send_held(const TsClock& clock, const Segment& s) {
  // As on_send's test with no peer data heard (late_ack false).
  const auto held = s.tcp.options.tsval ? clock.held_for(s.time, *s.tcp.options.tsval) : std::nullopt;
  return held && *held >= limits::kFlushHeld;
}

void SenderModel::on_send(const Segment& s) {
  ++out_.packets;
  if (pending_sample_ && s.time < pending_sample_->until && s.payload_len > 0 &&
      seq_lt(s.tcp.seq, pending_sample_->ack)) {
    // Sent again before the ACK could reach the sender: the ACK covers a
    // retransmission, so the sender took no sample from it (Karn, 3).
    pending_sample_.reset();
    ++out_.ambiguous_acks;
    timer_.on_ambiguous_ack();
  }
  settle_pending_sample(s.time);
  const auto& h = s.tcp;
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
      // The first ACK of peer data the capture saw arrive over 0.5 s ago
      // (the leading entries already acknowledged cannot be it: skipped).
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
  const bool answers_syn = syn && h.has(wire::kAck) && peer_syn_since_synack_;
  if (syn) {
    peer_syn_since_synack_ = false;
    own_sack_ok_ = own_sack_ok_ || h.options.sack_permitted;
    if (h.has(wire::kAck)) {
      if (!own_synack_) own_synack_ = s.time;
    } else if (!peer_synack_) {
      own_syn_ = s.time;  // the SYN the peer's first SYN-ACK answers is the latest before it
    }
  }

  if (!started_) {
    started_ = true;
    isn_ = syn ? h.seq : h.seq - 1;
    syn_seen_ = syn;
    snd_una_ = h.seq;
    snd_max_ = h.seq;
    una64_ = std::int64_t{1} << 32;
  }
  const bool ack_triggered =
      ack_clocked(s.time) ||
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
  if (len == 0) return;
  // The sender's previous data-bearing segment (pure ACKs answer the peer and
  // say nothing of the sender's timer), and whether the peer was silent since.
  const std::optional<CaptureTime> prev_send = last_data_send_time_;
  last_data_send_time_ = s.time;
  const bool peer_since_prev = prev_send && last_peer_time_ && *last_peer_time_ >= *prev_send;
  // Sent right after the previous one with nothing from the peer between:
  // not after a quiet period, so not on a timer (expiry or probe).
  // Across a clock step the quiet period before it is unknown: no evidence either way.
  const bool back_to_back = prev_send && !peer_since_prev && since(s.time, *prev_send) < limits::kMinTimerWait &&
                            !across_step(*prev_send, s.time);

  const std::uint32_t seq = h.seq;
  const std::uint32_t end = seq + len;
  // Keep-alive: one byte (or none) just below SND.UNA (RFC 9293 3.8.4).
  if (!syn && !fin && s.payload_len <= 1 && seq == snd_una_ - 1 && snd_una_ == snd_max_) {
    ++out_.keepalives;
    return;
  }
  ++out_.data_segments;
  const std::optional<std::uint32_t> tsval = h.options.tsval;
  if (seq_ge(seq, snd_max_)) {
    // First transmission. A gap means the capture has not seen what lies
    // between (yet: it may come reordered).
    if (seq_gt(seq, snd_max_) && started_ && snd_max_ != snd_una_) holes_.push_back(Hole{snd_max_, seq, s.time});
    // Zero-window probe: one byte into a zero window.
    if (peer_window_ == 0 && s.payload_len == 1) {
      ++out_.zero_window_probes;
      zwp_seq_ = seq;
    }
    const bool was_idle = (snd_una_ == snd_max_) || outstanding_.empty();
    if (syn) timer_.on_syn_sent(s.time, tsval);
    else timer_.on_data_sent(s.time, was_idle, tsval);  // 5.1
    if (!was_idle && !ack_triggered && !back_to_back) timer_.on_new_data_probe(s.time);
    push_outstanding(Tx{seq, end, s.time, s.time, s.frame, false});
    snd_max_ = end;
    ++out_.by_kind[static_cast<std::size_t>(SendKind::first)];
    out_.bytes += s.payload_len;
    record(s, to_string(SendKind::first), seq);
    return;
  }
  // Zero-window probe repeated into a zero window: not a retransmission.
  if (peer_window_ == 0 && s.payload_len == 1 && seq == snd_una_ && !syn && !fin) {
    ++out_.zero_window_probes;
    return;
  }
  // The window opened: data that starts with the probe's byte sends the rest
  // for the first time (the one byte it repeats was a probe, not lost data).
  if (zwp_seq_ && seq == *zwp_seq_ && peer_window_ > 0 && seq_gt(end, snd_max_)) {
    zwp_seq_.reset();
    push_outstanding(Tx{snd_max_, end, s.time, s.time, s.frame, false});
    out_.bytes += rto::seq_diff(end, snd_max_);
    snd_max_ = end;
    ++out_.by_kind[static_cast<std::size_t>(SendKind::first)];
    timer_.on_data_sent(s.time, false, tsval);
    record(s, to_string(SendKind::first), seq);
    return;
  }

  // A repeat: explain it.
  std::optional<CaptureTime> head_send;
  if (!outstanding_.empty() && outstanding_.front().seq == snd_una_) head_send = outstanding_.front().last_time;
  Observation o;
  o.syn = syn;
  o.already_acked = seq_le(end, snd_una_);
  o.old_tsval = old_tsval;
  o.fills_hole = !syn && fill_hole(seq, end, s.time);
  // A SYN-ACK sent again after the peer sent its SYN again is the reply to it.
  o.ack_clocked = ack_triggered || answers_syn;
  o.peer_seen = last_peer_time_.has_value();
  o.in_rto_recovery = in_rto_recovery_ && seq_lt(snd_una_, recovery_point_);
  o.loss_evidence = dupacks_ > 0 || sack_evidence_;
  o.in_fast_recovery = in_fast_recovery_ && seq_lt(snd_una_, fast_recovery_point_);
  o.is_head = seq_le(seq, snd_una_);
  o.is_highest = seq_ge(end, snd_max_);
  o.back_to_back = back_to_back;
  o.sack_negotiated = handshake_seen_ ? (own_sack_ok_ && peer_sack_ok_) : true;
  o.single_segment = in_flight() <= 1;
  o.timeouts_in_chain = timer_.chain_length();
  o.probe_since_ack = timer_.probe_since_ack();
  const microseconds rto = timer_.armed_rto();
  if (timer_.last_arm()) {
    // Across a clock step the time since the arm is unknown: not a probe's time.
    o.since_arm = across_step(*timer_.last_arm(), s.time) ? microseconds::max() : since(s.time, *timer_.last_arm());
    const microseconds lead = since(*timer_.last_arm(), *timer_.earliest_arm());
    o.rto_left = rto > lead ? rto - lead : microseconds{1};
  }
  // Frames within limits::kClockReorderMax of each other keep their times
  // and may come in either order (two capture interfaces): the distance is
  // what tells a response. Across a clock step it is unknown: no evidence.
  o.since_peer = !last_peer_time_ || across_step(*last_peer_time_, s.time)
                     ? microseconds::max()
                     : std::chrono::abs(since(s.time, *last_peer_time_));
  o.srtt = timer_.estimator().srtt();
  o.tolerance = opt_.tolerance(rto);
  o.lateness = opt_.lateness(rto);
  o.tick = opt_.config.tick;
  o.sender_rtt = sender_rtt_.value_or(microseconds{0});
  if (burst_last_ && timer_.chain_length() > 0) {
    // A genuine further expiry comes no sooner than the backed-off RTO, at
    // least about the previous expiry's wait: a fraction of it separates the two.
    const microseconds burst_gap =
        std::max(timer_.last_expiry_wait() * limits::kBurstFractionNum / limits::kBurstFractionDen,
                 limits::kMinTimerWait);
    o.in_rto_burst = since(s.time, *burst_last_) < burst_gap && !across_step(*burst_last_, s.time);
    // A burst member carries the burst's TSval (within a tick or two); one
    // its own clock shows sent a burst gap later is a further expiry, seen
    // early only because the one before was captured late.
    if (o.in_rto_burst && tsval && burst_tsval_)
      if (const auto d = ts_clock_.interval(*burst_tsval_, *tsval); d && *d >= burst_gap) o.in_rto_burst = false;
  }
  const Explanation ex = explain(o, *opt_.profile);
  const SendKind kind = ex.kind;
  ++out_.by_kind[static_cast<std::size_t>(kind)];

  if (kind == SendKind::out_of_order) {
    // Not the sender's doing: a first transmission seen late, or an old copy.
    if (ex.cause == Cause::reordered_first) insert_outstanding(Tx{seq, end, s.time, s.time, s.frame, false});
    record(s, to_string(kind), seq);
    return;
  }
  if (seq_gt(end, snd_max_)) {  // partly new data
    push_outstanding(Tx{snd_max_, end, s.time, s.time, s.frame, false});
    snd_max_ = end;
  }
  switch (kind) {
    case SendKind::timeout:
    case SendKind::syn_timeout: {
      if (syn && syn_acked_frame_ && !syn_lost_ack_noted_) {
        syn_lost_ack_noted_ = true;
        out_.findings.push_back(Finding{
            RuleId::ambiguous, Level::info, s.frame, s.time,
            "the SYN is retransmitted on its timer although the capture shows it acknowledged at frame " +
                std::to_string(*syn_acked_frame_) +
                ": that segment did not reach the sender (lost after the capture point); the SYN timer is "
                "judged from the SYN's own transmissions"});
      }
      Expiry e;
      e.frame = s.frame;
      e.time = s.time;
      e.syn = syn;
      e.rel_seq = rel(seq);
      e.rel_una = rel(snd_una_);
      e.tsval = tsval;
      e.check = last_peer_time_.has_value() || syn;
      e.file = s.file_index;
      e.thin = in_flight() < 4;
      if (clock_stepped_back(s)) e.check = false, e.across_step = true;
      timer_.on_timeout(e);
      pending_54_.reset();
      if (!syn && !o.is_head) pending_54_ = s.frame;
      in_rto_recovery_ = true;
      recovery_point_ = snd_max_;
      burst_last_ = s.time;
      burst_tsval_ = tsval;
      break;
    }
    case SendKind::tlp:
      if (o.is_head) {
        Expiry e;
        e.frame = s.frame;
        e.time = s.time;
        e.rel_seq = rel(seq);
        e.rel_una = rel(snd_una_);
        e.tsval = tsval;
        e.thin = in_flight() < 4;
        e.file = s.file_index;
        if (clock_stepped_back(s)) e.check = false, e.across_step = true;
        timer_.on_probe(e);
      } else {
        timer_.on_probe(s.time, tsval);
      }
      break;
    case SendKind::fast:
      if (!in_fast_recovery_ || !seq_lt(snd_una_, fast_recovery_point_)) {
        in_fast_recovery_ = true;
        fast_recovery_point_ = snd_max_;
      }
      if (o.is_head) timer_.on_head_retransmit(s.time, tsval);
      break;
    case SendKind::slow_start_after_rto:
      if (o.is_head && o.in_rto_burst && pending_54_) {
        // The expiry's burst did resend the earliest unacknowledged segment:
        // 5.4 does not order the segments inside one burst.
        const std::uint64_t f = *pending_54_;
        pending_54_.reset();
        std::erase_if(out_.findings, [&](const Finding& x) { return x.frame == f && x.rule == RuleId::rfc6298_5_4; });
        for (auto& t : out_.timeouts)
          if (t.frame == f) std::erase(t.rules, RuleId::rfc6298_5_4);
      }
      if (o.is_head) timer_.on_head_retransmit(s.time, tsval);
      if (o.in_rto_burst) {
        burst_last_ = s.time;
        burst_tsval_ = tsval;
      }
      break;
    default:
      break;
  }
  mark_retransmitted(seq, end, s.time);
  record(s, to_string(kind), seq);
}

bool SenderModel::apply_sack(const wire::TcpHeader& h, CaptureTime& first) {
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
    if (!seq_gt(b.right, snd_una_)) continue;  // D-SACK or old block
    // The segments from the block's left edge on that end inside it, not
    // yet SACKed: outstanding_ is ordered by sequence and its segments do
    // not overlap, so the first one not SACKed that ends beyond the block
    // ends the walk, as would the first SACKed one.
    for (auto k = unsacked_.lower_bound(sb_key(b.left)); k != unsacked_.end();) {
      const std::uint32_t seq = snd_una_ + static_cast<std::uint32_t>(*k - una64_);
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

void SenderModel::settle_pending_sample(CaptureTime now) {
  if (!pending_sample_ || now < pending_sample_->until) return;
  const PendingSample p = *pending_sample_;
  pending_sample_.reset();
  if (!timer_.on_sample(p.r, p.snd_una, p.snd_nxt, p.r - sender_rtt_.value_or(microseconds{0}))) {
    ++out_.samples_refused;
    if (p.event && *p.event < out_.timeline.size()) {  // the timeline shows no sample either
      out_.timeline[*p.event].sample.reset();
      out_.timeline[*p.event].sample_kind.reset();
    }
    return;
  }
  if (p.kind == SampleKind::seq) ++out_.samples_seq; else ++out_.samples_ts;
  (p.kind == SampleKind::seq ? out_.rtt_karn : out_.rtt_ts_echo).add(p.r);
}

bool SenderModel::take_sample(const Segment& s, microseconds r, SampleKind kind) {
  const microseconds corr = kind == SampleKind::seq ? sender_rtt_.value_or(microseconds{0}) : microseconds{0};
  if (!timer_.on_sample(r, snd_una_, snd_max_, r - corr)) {
    ++out_.samples_refused;
    return false;
  }
  if (kind == SampleKind::seq) ++out_.samples_seq; else ++out_.samples_ts;
  (kind == SampleKind::seq ? out_.rtt_karn : out_.rtt_ts_echo).add(r);
  (void)s;
  return true;
}

void SenderModel::on_peer(const Segment& s) {
  settle_pending_sample(s.time);
  // The peer echoes our TSvals in order (RFC 7323 3.2): those before the
  // echo are forgotten after this ACK is sampled (TsClock::echoed keeps the echoed one).
  if (s.tcp.options.tsecr) ts_clock_.echoed(*s.tcp.options.tsecr);
  const auto& h = s.tcp;
  last_peer_time_ = s.time;
  peer_times_.push_back(s.time);
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
  pending_54_.reset();
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
      peer_syn_since_synack_ = true;
    }
  }
  if (h.options.sack_count > 0 || h.options.sack_permitted) out_.sack = out_.sack || h.options.sack_count > 0;
  if (!started_ || !h.has(wire::kAck) || h.has(wire::kRst)) return;
  if (!handshake_seen_ && syn_seen_ && (peer_syn_ || peer_synack_)) handshake_seen_ = true;
  peer_window_ = h.window;
  const std::uint32_t ack = h.ack;
  const auto sack_above = [&](std::uint32_t una) {
    for (std::uint8_t i = 0; i < h.options.sack_count && i < h.options.sack.size(); ++i)
      if (seq_gt(h.options.sack[i].right, una)) return true;
    return false;
  };
  if (sack_above(snd_una_)) sack_evidence_ = true;
  // The capture point is not the sender: a sample measured there misses the
  // round trip between it and the sender.
  const microseconds correction = sender_rtt_.value_or(microseconds{0});
  // Linux also samples from newly SACKed, never retransmitted data when the
  // ACK gives no other sample (tcp_ack_update_rtt: seq_rtt < 0 -> sack_rtt).
  CaptureTime first_sacked{};
  const bool have_sacked = h.options.sack_count > 0 && apply_sack(h, first_sacked);

  if (!seq_gt(ack, snd_una_)) {
    if (have_sacked && seq_ge(ack, snd_una_) && !across_step(first_sacked, s.time)) {
      const microseconds r = since(s.time, first_sacked) + correction;
      const bool taken = take_sample(s, r, SampleKind::seq);
      std::optional<CaptureTime> head;
      if (!outstanding_.empty()) head = outstanding_.front().last_time;
      timer_.on_sack_sample(s.time, head);
      record(s, "sack", ack, taken ? std::optional<microseconds>(r) : std::nullopt,
             taken ? std::optional<SampleKind>(SampleKind::seq) : std::nullopt);
    }
    // Duplicate ACK (RFC 5681 2): no data, no SYN/FIN, same ACK, data outstanding.
    if (ack == snd_una_ && s.payload_len == 0 && !h.has(wire::kSyn) && !h.has(wire::kFin) &&
        snd_una_ != snd_max_) {
      ++dupacks_;
      record(s, "dup-ack", ack);
    }
    return;
  }
  if (seq_gt(ack, snd_max_)) snd_max_ = ack;  // the capture missed what it acknowledges

  // ACK of new data: which segments does it cover?
  bool any_retx = false;
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
  const bool acks_syn = syn_seen_ && !syn_acked_ && seq_gt(ack, isn_);
  una64_ += rto::seq_diff(ack, snd_una_);
  snd_una_ = ack;
  dupacks_ = 0;
  sack_evidence_ = sack_above(snd_una_);
  if (in_rto_recovery_ && seq_ge(snd_una_, recovery_point_)) in_rto_recovery_ = false;

  // The RTT sample the sender could take (section 3; Linux tcp_clean_rtx_queue):
  // from the oldest newly acked segment if no acked segment was retransmitted
  // (Karn), else from newly SACKed data, else from the timestamp echo (RFC
  // 7323 4: one sample per TSval, from an ACK that advances SND.UNA), else none.
  std::optional<microseconds> sample;
  std::optional<SampleKind> kind;
  // A sample whose send and ACK lie on the two sides of a step of the
  // capture clock is not taken: the time between them is unknown.
  const bool echo_across = (last_send_time_ && across_step(*last_send_time_, s.time)) ||
                           (tsval_before_step_ && h.options.tsecr &&
                            rto::ts_diff(*h.options.tsecr, *tsval_before_step_) <= 0);
  if (oldest && !any_retx) {
    if (!across_step(*oldest, s.time)) {
      sample = since(s.time, *oldest) + correction;
      kind = SampleKind::seq;
    }
  } else if (have_sacked) {
    if (!across_step(first_sacked, s.time)) {
      sample = since(s.time, first_sacked) + correction;
      kind = SampleKind::seq;
    }
  } else if (h.options.tsecr && ts_clock_.seen() && !echo_across) {
    sample = ts_clock_.echo_rtt(s.time, *h.options.tsecr);
    if (sample) kind = SampleKind::ts_echo;
  }
  const bool distant = sender_rtt_ && sender_rtt_->count() > 0;
  if (sample && sample->count() >= 0 && distant && *kind == SampleKind::seq && !acks_syn) {
    pending_sample_ = PendingSample{*sample, s.time + *sender_rtt_, std::nullopt, ack, snd_una_, snd_max_, *kind};
    if (keep_timeline_) pending_sample_->event = out_.timeline.size();  // the "ack" recorded below
  } else if (sample && sample->count() >= 0) {
    if (!take_sample(s, *sample, *kind)) {
      sample.reset();
      kind.reset();
    }
  } else {
    sample.reset();
    kind.reset();
    if (any_retx) ++out_.ambiguous_acks;
  }
  const bool all_acked = snd_una_ == snd_max_;
  std::optional<CaptureTime> head_send;
  if (!outstanding_.empty()) head_send = outstanding_.front().last_time;
  timer_.on_ack_new_data(s.time, all_acked, head_send, any_retx && !sample);
  if (acks_syn) {
    syn_acked_ = true;
    syn_acked_frame_ = s.frame;
    timer_.on_handshake_complete(s.frame, s.time, sample.has_value(), sample);
  }
  record(s, "ack", ack, sample, kind);
}

void SenderModel::finish() {
  if (pending_sample_) settle_pending_sample(pending_sample_->until);
  timer_.finish();
  const auto& e = timer_.estimator();
  out_.srtt = e.srtt();
  out_.rttvar = e.rttvar();
  out_.rto = e.rto();
  out_.backoff = e.backoff();
  if (auto r = ts_clock_.rate_hz()) out_.inferred.tsval_hz = *r;
}

}  // namespace replay
