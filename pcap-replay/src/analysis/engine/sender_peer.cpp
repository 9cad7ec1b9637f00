// SenderEngine: the peer's segments (ACKs, SACK, windows) as the sender takes them in.
#include "analysis/engine/sender_engine.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include <rto/seq.hpp>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

// ---- the peer ------------------------------------------------------------------

bool SenderEngine::apply_sack(const wire::TcpHeader& h, CaptureTime& first) {
  if (!scoreboard_) {
    // The first SACK block of the connection: index the segments not SACKed.
    scoreboard_ = true;
    for (const Tx& x : outstanding_)
      if (!x.sacked) index_unsacked(sb_key(x.seq));
  }
  bool found = false;
  std::uint32_t first_seq = 0;
  for (std::uint8_t i = 0; i < h.options.sack_count && i < h.options.sack.size(); ++i) {
    const auto& b = h.options.sack[i];
    if (!seq_gt(b.right, seq_.snd_una)) continue;  // D-SACK or old block
    for (auto k = std::lower_bound(unsacked_.begin(), unsacked_.end(), sb_key(b.left)); k != unsacked_.end();) {
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
      if (!newest_sacked_send_ || it->last_time > *newest_sacked_send_) newest_sacked_send_ = it->last_time;
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

void SenderEngine::on_peer(const Segment& s) {
  if (feed_only_) {
    feed_.on_peer(s);
    return;
  }
  settle_held_synack(nullptr);
  settle_pending_samples(s.time);
  new_data_probe_.reset();  // what the peer sends settles a new-data probe's reading: it stands
  feed_.feed_peer(s);
  if (s.payload_len > largest_peer_segment_) largest_peer_segment_ = s.payload_len;
  const auto& h = s.tcp;
  file_ = s.file_index;
  current_frame_ = s.frame;
  capture_time_.reset();  // (a send's, record())
  held_us_ = 0;           // an arm by the peer's segment
  last_peer_time_ = s.time;
  if (h.options.tsval) last_peer_tsval_ = *h.options.tsval;
  last_peer_had_tsval_ = h.options.tsval.has_value();
  peer_times_.push_back(PeerMark{s.time, h.options.tsval.value_or(0), h.options.tsval.has_value()});
  if (peer_times_.size() > limits::kAckClockHistory) peer_times_.pop_front();
  out_.peer_seen = true;
  burst_last_.reset();  // the burst after an expiry ends with anything from the peer
  settle_54();
  if (h.options.tsval) {
    peer_timestamps_ = true;
    out_.tsval_peer = true;
  }
  if (h.has(wire::kSyn)) {
    peer_sack_ok_ = peer_sack_ok_ || h.options.sack_permitted;
    if (h.options.mss) peer_mss_ = *h.options.mss;
    handshake_seen_ = handshake_seen_ || (own_syn_ || own_synack_);
    if (h.has(wire::kAck)) {
      if (!sender_rtt_) peer_synack_ = s.time;  // our ACK answers the latest (learn_handshake_delays)
      handshake_seen_ = handshake_seen_ || own_syn_.has_value();
    } else if (!own_synack_) {
      // The SYN our first SYN-ACK answers is the latest before it; one
      // before that asks for a SYN-ACK again, if that one does not answer it.
      if (peer_syn_) {
        peer_syn_repeated_ = true;
        peer_syn_again_ = s.time;
      } else {
        peer_first_syn_ = s.time;
      }
      peer_syn_ = s.time;
      peer_syn_tsval_ = h.options.tsval;
    } else {
      peer_syn_again_ = s.time;  // it asks for our SYN-ACK again
    }
  }
  if (h.options.sack_count > 0 || h.options.sack_permitted) out_.sack = out_.sack || h.options.sack_count > 0;
  if (handshake_ == Handshake::none || !h.has(wire::kAck) || h.has(wire::kRst)) return;
  if (!handshake_seen_ && (handshake_ == Handshake::syn_sent || handshake_ == Handshake::syn_received) &&
      (peer_syn_ || peer_synack_))
    handshake_seen_ = true;
  // The peer's first segment acknowledging our SYN-ACK while the round trip
  // is in doubt: our first segment after it left SYN-RCVD, having received
  // it (or a later one).
  if (handshake_ambiguous_ && own_synack_ && !left_syn_rcvd_ && !peer_acked_synack_ && !h.has(wire::kSyn) &&
      seq_gt(h.ack, seq_.isn))
    peer_acked_synack_ = s.time;
  if (h.has(wire::kFin)) peer_fin_end_ = h.seq + s.payload_len + 1;
  const std::uint16_t window_before = peer_window_;
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
  // Past the ACK counted ambiguous, in both views: no repeat of it can be
  // counted again (and the old value must not age across the wrap).
  if (ambiguous_through_ && !heard_una_ && seq_gt(seq_.snd_una, *ambiguous_through_)) ambiguous_through_.reset();
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
    // Duplicate ACK (RFC 5681 2): no data, no SYN/FIN, same ACK, data
    // outstanding, the same window (one that changes it is a window update).
    if (ack == una && s.payload_len == 0 && !h.has(wire::kSyn) && !h.has(wire::kFin) && una != seq_.snd_max &&
        h.window == window_before) {
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
  const bool echo_across = (feed_.last_send_time() && across_step(*feed_.last_send_time(), s.time)) ||
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
  } else if (h.options.tsecr && feed_.ts_clock().seen() && !echo_across) {
    sample = feed_.ts_clock().echo_rtt(s.time, *h.options.tsecr);
    if (sample) {
      // From the TSval's capture to the ACK's, as a segment's sample: it
      // misses the capture-to-sender round trip alike.
      *sample += correction;
      kind = SampleKind::ts_echo;
    }
  }
  if (have_sacked && !sack_samples && any_retx) sack_sample_since_expiry_ = true;
  const bool all_acked = heard_una() == seq_.snd_max;
  // 5.2 / 5.3 before the sample settles the chain (the arm is the chain's).
  if (all_acked) {
    arm_.reset();  // 5.2: all outstanding data acknowledged: the timer stops
  } else {
    // 5.3: restart with the current RTO when the sender received the ACK:
    // up to the capture-to-sender round trip after the capture saw it. Linux
    // (tcp_rearm_rto, a probe or RACK timer pending: both need SACK) counts
    // the deadline from the head's last transmission instead: the arm is
    // anywhere between.
    CaptureTime earliest = s.time;
    if (opt_.profile->rearm_from_head && sack_negotiated() && !outstanding_.empty() &&
        outstanding_.front().last_time < s.time)
      earliest = outstanding_.front().last_time;
    arm(s.time + ack_delay_hi(), ArmCause::ack, std::nullopt, earliest);
  }
  // Karn (3) as the sender applies it: an ACK it processes after it sent
  // the acknowledged data again gives no sample. It processes the ACK up to
  // the capture-to-sender round trip after the capture saw it; at the
  // sender (a round trip below kCaptureAtSender, read as 0), up to that.
  // While the round trip is only bounded (a first SYN-ACK the capture could
  // not pair: its upper reading), any sample waits as long, and is
  // corrected by the round trip known when it is taken (take_pending).
  const bool karn_wait = *kind == SampleKind::seq && !acks_syn;
  if (sample && sample->count() >= 0 && sender_rtt_ && (karn_wait || handshake_ambiguous_)) {
    const microseconds until = sender_rtt_->count() > 0 ? *sender_rtt_ : limits::kCaptureAtSender;
    PendingSample p{*sample, s.time + until, 0, static_cast<std::int32_t>(std::min<std::int64_t>(correction.count(), INT32_MAX)),
                    ack, seq_.snd_una, seq_.snd_max, *kind, sender_rtt_->count() == 0};
    if (keep_timeline_) p.set_event(out_.timeline.size());  // the "ack" recorded below
    add_pending(p);
  } else if (sample && sample->count() >= 0) {
    if (!take_sample(*sample, *kind, correction)) {
      sample.reset();
      kind.reset();
    }
  } else {
    sample.reset();
    kind.reset();
    if (any_retx) {
      // Counted once: an ACK the sender processed after a resend (Karn,
      // counted then) repeated, where the sender's view had not heard it.
      if (!ambiguous_through_ || seq_gt(ack, *ambiguous_through_)) ++out_.ambiguous_acks;
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
    if (opt_.profile->fallback_57 == Fallback57::rfc && est_.syn_timed_out() && est_.before_57()) {
      open_57_ = Open57{s.frame, s.time, *est_.before_57()};  // seen only at a data expiry before the next sample
      notes_waiting_ = true;
    } else if (opt_.profile->fallback_57 == Fallback57::only_without_handshake_sample && est_.syn_timed_out() &&
               est_.has_sample() && est_.estimator().base_rto() < opt_.config.syn_fallback_rto) {
      // The profile's stack keeps the handshake's sample (Linux): what it
      // does is known, and departs from 5.7 as written; noted, not judged.
      Judgement j = note(Topic::sample_kept_57, s.frame, s.time, false);
      j.rule = RuleId::rfc6298_5_7;
      j.predicted = Interval::point(opt_.config.syn_fallback_rto);
      j.alternative = Interval::point(est_.estimator().base_rto());
      append(std::move(j));
    }
  }
  record(s, "ack", ack, sample, kind);
}

}  // namespace replay::engine
