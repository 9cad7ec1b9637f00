#include "sender_model.hpp"

#include <algorithm>

#include <rto/seq.hpp>

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
// A send within this time of a segment from the peer is ACK-clocked (the
// capture is taken at or near the sender).
constexpr microseconds kAckClock{2'000};
}  // namespace

SenderModel::SenderModel(const Options& options, SenderReport& out, bool keep_timeline)
    : opt_(options), out_(out), keep_timeline_(keep_timeline), timer_(options, out) {}

void SenderModel::record(const Segment& s, std::string_view event, std::uint32_t rel_seq,
                         std::optional<microseconds> sample, std::optional<SampleKind> kind) {
  if (!keep_timeline_) return;
  const auto& e = timer_.estimator();
  out_.timeline.push_back(TimelineEvent{s.frame, s.time, event, rel_seq, sample, kind, e.srtt(), e.rttvar(),
                                        e.rto(), e.backoff()});
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

void SenderModel::on_send(const Segment& s) {
  ++out_.packets;
  const auto& h = s.tcp;
  if (h.options.tsval) {
    ts_clock_.observe(s.time, *h.options.tsval);
    out_.tsval_sent = true;
  }
  if (h.options.tsval && peer_timestamps_) out_.timestamps = true;
  if (h.has(wire::kRst)) return;
  const bool syn = h.has(wire::kSyn);
  const bool fin = h.has(wire::kFin);
  const std::uint32_t len = s.payload_len + (syn ? 1 : 0) + (fin ? 1 : 0);

  if (!started_) {
    started_ = true;
    isn_ = syn ? h.seq : h.seq - 1;
    syn_seen_ = syn;
    snd_una_ = h.seq;
    snd_max_ = h.seq;
  }
  const bool ack_triggered =
      (last_peer_time_ && since(s.time, *last_peer_time_) <= kAckClock) ||
      (last_send_ack_triggered_ && last_send_time_ && since(s.time, *last_send_time_) <= microseconds{200});
  last_send_time_ = s.time;
  last_send_ack_triggered_ = ack_triggered;
  if (len == 0) return;
  // The sender's previous data-bearing segment (pure ACKs answer the peer and
  // say nothing of the sender's timer), and whether the peer was silent since.
  const std::optional<CaptureTime> prev_send = last_data_send_time_;
  last_data_send_time_ = s.time;
  const bool peer_since_prev = prev_send && last_peer_time_ && *last_peer_time_ >= *prev_send;
  // Sent right after the previous one with nothing from the peer between:
  // not after a quiet period, so not on a timer (expiry or probe).
  const bool back_to_back = prev_send && !peer_since_prev && since(s.time, *prev_send) < kBackToBack;

  const std::uint32_t seq = h.seq;
  const std::uint32_t end = seq + len;
  // Keep-alive: one byte (or none) just below SND.UNA (RFC 9293 3.8.4).
  if (!syn && !fin && s.payload_len <= 1 && seq == snd_una_ - 1 && snd_una_ == snd_max_) {
    ++out_.keepalives;
    return;
  }
  ++out_.data_segments;
  if (seq_ge(seq, snd_max_)) {
    // First transmission (a gap means the capture missed some; take it as sent).
    // Zero-window probe: one byte into a zero window.
    if (peer_window_ == 0 && s.payload_len == 1) ++out_.zero_window_probes;
    const bool was_idle = (snd_una_ == snd_max_) || outstanding_.empty();
    if (was_idle) timer_.on_timer_start(s.time);  // 5.1
    else if (!ack_triggered && !back_to_back) timer_.on_new_data_probe(s.time);
    outstanding_.push_back(Tx{seq, end, s.time, s.time, s.frame, false});
    snd_max_ = end;
    ++out_.by_kind[static_cast<std::size_t>(SendKind::first)];
    out_.bytes += s.payload_len;
    record(s, to_string(SendKind::first), rel(seq));
    return;
  }
  // Zero-window probe repeated into a zero window: not a retransmission.
  if (peer_window_ == 0 && s.payload_len == 1 && seq == snd_una_ && !syn && !fin) {
    ++out_.zero_window_probes;
    return;
  }

  // A retransmission: classify it.
  std::optional<CaptureTime> head_send;
  if (!outstanding_.empty() && outstanding_.front().seq == snd_una_) head_send = outstanding_.front().last_time;
  RetransmissionContext c;
  c.syn = syn;
  c.already_acked = seq_le(end, snd_una_);
  c.ack_triggered = ack_triggered;
  c.in_rto_recovery = in_rto_recovery_ && seq_lt(snd_una_, recovery_point_);
  c.loss_evidence = dupacks_ > 0 || sack_evidence_ || (in_fast_recovery_ && seq_lt(snd_una_, fast_recovery_point_));
  c.is_head = seq_le(seq, snd_una_);
  c.is_highest = seq_ge(end, snd_max_);
  c.timeouts_in_chain = timer_.chain_length();
  c.probe_since_ack = timer_.probe_since_ack();
  c.since_arm = timer_.last_arm() ? since(s.time, *timer_.last_arm()) : microseconds{0};
  c.since_peer = last_peer_time_ ? since(s.time, *last_peer_time_) : microseconds::max();
  c.srtt = timer_.estimator().srtt();
  c.rto = timer_.estimator().rto();
  c.single_segment_probe = opt_.profile == Profile::linux_kernel;
  c.peer_seen = last_peer_time_.has_value();
  if (burst_last_ && timer_.chain_length() > 0) {
    // A genuine further expiry comes no sooner than the backed-off RTO, at
    // least about the previous expiry's wait: half of it separates the two.
    const microseconds burst_gap = std::max(timer_.last_expiry_wait() / 2, kBackToBack);
    c.in_rto_burst = since(s.time, *burst_last_) < burst_gap;
  }
  c.back_to_back = back_to_back;
  const SendKind kind = classify_retransmission(c);
  ++out_.by_kind[static_cast<std::size_t>(kind)];

  if (seq_gt(end, snd_max_)) {  // partly new data
    outstanding_.push_back(Tx{snd_max_, end, s.time, s.time, s.frame, false});
    snd_max_ = end;
  }
  switch (kind) {
    case SendKind::timeout:
    case SendKind::syn_timeout:
      timer_.on_timeout(s.frame, s.time, syn, rel(seq), rel(snd_una_), head_send,
                        /*check=*/last_peer_time_.has_value() || syn);
      in_rto_recovery_ = true;
      recovery_point_ = snd_max_;
      burst_last_ = s.time;
      break;
    case SendKind::tlp:
      timer_.on_probe(s.time);
      break;
    case SendKind::fast:
      if (!in_fast_recovery_ || !seq_lt(snd_una_, fast_recovery_point_)) {
        in_fast_recovery_ = true;
        fast_recovery_point_ = snd_max_;
      }
      if (c.is_head) timer_.on_head_retransmit(s.time);
      break;
    case SendKind::slow_start_after_rto:
      if (c.is_head) timer_.on_head_retransmit(s.time);
      if (c.in_rto_burst) burst_last_ = s.time;
      break;
    default:
      break;
  }
  mark_retransmitted(seq, end, s.time);
  record(s, to_string(kind), rel(seq));
}

bool SenderModel::apply_sack(const wire::TcpHeader& h, CaptureTime& first) {
  bool found = false;
  std::uint32_t first_seq = 0;
  for (std::uint8_t i = 0; i < h.options.sack_count && i < h.options.sack.size(); ++i) {
    const auto& b = h.options.sack[i];
    if (!seq_gt(b.right, snd_una_)) continue;  // D-SACK or old block
    auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                   [&](const Tx& x) { return seq_lt(x.seq, b.left); });
    for (; it != outstanding_.end() && seq_le(it->end, b.right); ++it) {
      if (it->sacked) continue;
      it->sacked = true;
      if (!it->retransmitted && (!found || seq_lt(it->seq, first_seq))) {
        first = it->last_time;
        first_seq = it->seq;
        found = true;
      }
    }
  }
  return found;
}

void SenderModel::take_sample(const Segment& s, microseconds r, SampleKind kind) {
  timer_.on_sample(r, snd_una_, snd_max_);
  if (kind == SampleKind::seq) ++out_.samples_seq; else ++out_.samples_ts;
  (void)s;
}

void SenderModel::on_peer(const Segment& s) {
  const auto& h = s.tcp;
  last_peer_time_ = s.time;
  out_.peer_seen = true;
  burst_last_.reset();  // the burst after an expiry ends with anything from the peer
  if (h.options.tsval) {
    peer_timestamps_ = true;
    out_.tsval_peer = true;
  }
  if (h.options.sack_count > 0 || h.options.sack_permitted) out_.sack = out_.sack || h.options.sack_count > 0;
  if (!started_ || !h.has(wire::kAck) || h.has(wire::kRst)) return;
  peer_window_ = h.window;
  const std::uint32_t ack = h.ack;
  const auto sack_above = [&](std::uint32_t una) {
    for (std::uint8_t i = 0; i < h.options.sack_count && i < h.options.sack.size(); ++i)
      if (seq_gt(h.options.sack[i].right, una)) return true;
    return false;
  };
  if (sack_above(snd_una_)) sack_evidence_ = true;
  // Linux also samples from newly SACKed, never retransmitted data when the
  // ACK gives no other sample (tcp_ack_update_rtt: seq_rtt < 0 -> sack_rtt).
  CaptureTime first_sacked{};
  const bool have_sacked = h.options.sack_count > 0 && apply_sack(h, first_sacked);

  if (!seq_gt(ack, snd_una_)) {
    if (have_sacked && seq_ge(ack, snd_una_)) {
      const microseconds r = since(s.time, first_sacked);
      take_sample(s, r, SampleKind::seq);
      record(s, "sack", rel(ack), r, SampleKind::seq);
    }
    // Duplicate ACK (RFC 5681 2): no data, no SYN/FIN, same ACK, data outstanding.
    if (ack == snd_una_ && s.payload_len == 0 && !h.has(wire::kSyn) && !h.has(wire::kFin) &&
        snd_una_ != snd_max_) {
      ++dupacks_;
      record(s, "dup-ack", rel(ack));
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
    outstanding_.pop_front();
  }
  if (!outstanding_.empty() && seq_lt(outstanding_.front().seq, ack)) {
    Tx& x = outstanding_.front();
    any_retx = any_retx || x.retransmitted;
    if (!oldest && !x.sacked) oldest = x.last_time;
    x.seq = ack;
  }
  const bool acks_syn = syn_seen_ && !syn_acked_ && seq_gt(ack, isn_);
  snd_una_ = ack;
  dupacks_ = 0;
  sack_evidence_ = sack_above(snd_una_);
  if (in_rto_recovery_ && seq_ge(snd_una_, recovery_point_)) in_rto_recovery_ = false;

  // The RTT sample the sender could take (section 3; Linux tcp_clean_rtx_queue):
  // from the oldest newly acked segment if no acked segment was retransmitted
  // (Karn), else from the timestamp echo (RFC 7323 4), else none.
  std::optional<microseconds> sample;
  std::optional<SampleKind> kind;
  if (oldest && !any_retx) {
    sample = since(s.time, *oldest);
    kind = SampleKind::seq;
  } else if (have_sacked) {
    sample = since(s.time, first_sacked);
    kind = SampleKind::seq;
  } else if (h.options.tsecr && ts_clock_.seen()) {
    sample = ts_clock_.echo_rtt(s.time, *h.options.tsecr);
    if (sample) kind = SampleKind::ts_echo;
  }
  if (sample && sample->count() >= 0) {
    take_sample(s, *sample, *kind);
  } else {
    sample.reset();
    kind.reset();
    if (any_retx) ++out_.ambiguous_acks;
  }
  const bool all_acked = snd_una_ == snd_max_;
  std::optional<CaptureTime> oldest_send;
  if (!outstanding_.empty()) oldest_send = outstanding_.front().last_time;
  timer_.on_ack_new_data(s.time, all_acked, oldest_send, any_retx && !sample);
  if (acks_syn) {
    syn_acked_ = true;
    timer_.on_handshake_complete(s.frame, s.time, sample.has_value(), sample);
  }
  record(s, "ack", rel(ack), sample, kind);
}

void SenderModel::finish() {
  timer_.finish();
  const auto& e = timer_.estimator();
  out_.srtt = e.srtt();
  out_.rttvar = e.rttvar();
  out_.rto = e.rto();
  out_.backoff = e.backoff();
}

}  // namespace replay
