// TcpSender's state machine: what each arriving segment, timer expiry and
// ACK does to the connection (RFC 9293 3.10.7, RFC 6298 section 5, RFC 5681
// and RFC 6582 for the ACK clock, RFC 1122 R2 for giving up).

#include <algorithm>

#include "netstack/segment_codec.hpp"
#include "rto/seq.hpp"
#include "sender_impl.hpp"

namespace netstack {

using std::chrono::microseconds;

void TcpSender::Impl::fail(FailureReason why, SenderState st) {
  state = st;
  failure = why;
  timer.stop();
  persist.stop();
}

void TcpSender::Impl::on_timer_expiry(rto::Instant now) {
  const bool syn = state == SenderState::SynSent;
  const bool repeated = timer.consecutive_expiries() > 0;
  const rto::Instant started = timer_started;
  // RFC 1122 R2 first; then 5.5 back off and 5.6 restart (for the SYN: its
  // linear expiries first).
  const rto::Expiry x = syn ? timer.on_syn_expiry(now) : timer.on_expiry(now);
  switch (x.verdict) {
    case rto::RetryVerdict::TimeLimit: fail(FailureReason::RetryTimeLimit, SenderState::Failed); return;
    case rto::RetryVerdict::BackoffLimit:
      fail(syn ? FailureReason::SynBackoffLimit : FailureReason::DataBackoffLimit, SenderState::Failed);
      return;
    case rto::RetryVerdict::Retransmit: break;
  }
  if (x.forget_rtt) est.forget();  // the section 5 note, when the profile asks for it
  ++stats.timeouts;
  expiry_wait = now - started;
  timer_started = now;  // 5.6: restarted with the backed-off RTO
  sampler.on_timeout();  // Karn (3): nothing in flight may be timed now
  if (syn) {
    syn_timed_out = true;
    send_syn(now, true);  // 5.4: the SYN is the earliest unacknowledged segment
    return;
  }
  // RFC 5681 3.1 / RFC 6582: the timeout response.
  cc.on_timeout(static_cast<std::uint32_t>(max - una), seq32(max), repeated);
  dupacks = 0;
  // RFC 2018 section 8: after a retransmission timeout turn off all the
  // SACKed bits (the receiver may have reneged).
  sacked.clear();
  // 5.4: retransmit the earliest segment not yet acknowledged; then go back N.
  nxt = una;
  const std::uint64_t used = send_segment(una, smss, now, SendReason::Timeout);
  nxt = una + used;
}

void TcpSender::Impl::on_tick(rto::Instant now) {
  last_now = std::max(last_now, now);
  if (finished() || state == SenderState::Closed) return;
  if (state == SenderState::SynSent && connect_deadline && now >= *connect_deadline) {
    fail(FailureReason::ConnectTimeout, SenderState::Failed);  // RFC 9293 3.10.1: abort, send nothing
    return;
  }
  if (timer.expired(now)) on_timer_expiry(now);
  if (finished()) return;
  if (persist.due(now)) {
    send_window_probe(now);
    persist.on_probe_sent(now, timer.base_rto());
  }
  push(now);
  if (ack_pending) send_ack(now);
}

void TcpSender::Impl::on_datagram(std::span<const std::uint8_t> ip, rto::Instant now) {
  last_now = std::max(last_now, now);
  const auto seg = accept_segment(ip, cfg.local, cfg.remote);
  if (!seg) {
    ++stats.bad_datagrams;
    return;
  }
  const wire::TcpHeader& h = seg->tcp;
  if (state == SenderState::TimeWait) {
    // RFC 9293 3.10.7.4: a retransmitted FIN in TIME-WAIT is acknowledged again.
    if (h.has(wire::kFin) && !h.has(wire::kRst)) send_ack(now);
    return;
  }
  if (finished() || state == SenderState::Closed) return;
  if (state == SenderState::SynSent) {
    on_syn_sent_segment(h, now);
  } else {
    on_synchronized_segment(h, seg->payload, now);
  }
  if (state == SenderState::Failed || state == SenderState::Reset) return;
  push(now);
  if (ack_pending) send_ack(now);
}

void TcpSender::Impl::on_syn_sent_segment(const wire::TcpHeader& h, rto::Instant now) {
  const bool ack_ok = h.has(wire::kAck) && h.ack == cfg.iss + 1;
  if (h.has(wire::kRst)) {
    if (ack_ok) fail(FailureReason::ConnectionRefused, SenderState::Reset);
    return;
  }
  if (!h.has(wire::kSyn) || !ack_ok) return;  // simultaneous open is not supported
  // RFC 9293 3.10.7.3: SYN-ACK.
  rcv_nxt = h.seq + 1;
  smss = std::min<std::uint32_t>(cfg.mss, h.options.mss.value_or(kDefaultPeerMss));
  if (cfg.window_scale > 0 && h.options.window_scale) {
    snd_wscale = std::min<std::uint8_t>(*h.options.window_scale, 14);  // RFC 7323 2.3
    rcv_wscale = cfg.window_scale;
  }
  sack_ok = cfg.sack_permitted && h.options.sack_permitted;
  ts_ok = cfg.timestamps && h.options.tsval.has_value();
  if (ts_ok) ts_recent = *h.options.tsval;
  snd_wnd = h.window;  // RFC 7323 2.2: the SYN-ACK window is never scaled
  una = 1;
  // Karn (3): the SYN-ACK gives a sample only if the SYN was never
  // retransmitted; no TSecr sample here, so a retransmitted SYN never yields
  // one (which SYN the SYN-ACK answers is ambiguous).
  if (auto r = sampler.on_ack(h.ack, seq32(0), seq32(max), now)) take_sample(*r, now);
  timer.on_handshake_complete(syn_timed_out, est.has_sample());  // 5.7
  timer.on_all_acked();                                          // 5.2, progress for R2
  cc.reset_smss(smss, cfg.initial_window_segments);
  state = close_requested ? SenderState::FinWait1 : SenderState::Established;
  // ACK the SYN-ACK on its own segment, as Linux does, so the handshake
  // completes at the peer even if the first data segment is lost.
  send_ack(now);
  push(now);
}

void TcpSender::Impl::take_sample(microseconds r, rto::Instant now) {
  if (!est.on_rtt_sample(r, seq32(una), seq32(max))) return;  // 2.2 / 2.3
  timer.on_rtt_sample(est.rto());  // the note after 5.7: a sample ends the backoff
  ++stats.rtt_samples;
  if (log_rtt) {
    stats.rtt_log.push_back(RttRecord{now, r, timer.rto(), est.srtt().value_or(microseconds{0}),
                                      est.rttvar().value_or(microseconds{0})});
  }
}

void TcpSender::Impl::on_synchronized_segment(const wire::TcpHeader& h, std::span<const std::uint8_t> payload,
                                              rto::Instant now) {
  if (h.has(wire::kRst)) {
    // RFC 9293 3.10.7.4 / RFC 5961 3.2: accept a RST whose SEQ is RCV.NXT.
    if (h.seq == rcv_nxt) fail(FailureReason::ResetByPeer, SenderState::Reset);
    return;
  }
  if (h.has(wire::kSyn)) {  // a retransmitted SYN-ACK: our ACK was lost
    ack_pending = true;
    return;
  }
  if (!h.has(wire::kAck)) return;

  // RFC 7323 4.3: TS.Recent from segments at or before the last ACK we sent.
  if (ts_ok && h.options.tsval && rto::ts_diff(*h.options.tsval, ts_recent) >= 0 && rto::seq_le(h.seq, rcv_nxt)) {
    ts_recent = *h.options.tsval;
  }

  // The peer sends no data; a FIN at RCV.NXT closes its side.
  if (!payload.empty()) ack_pending = true;  // data is not accepted, but answered
  if (h.has(wire::kFin)) {
    if (h.seq + static_cast<std::uint32_t>(payload.size()) == rcv_nxt && payload.empty() && !peer_fin) {
      rcv_nxt += 1;
      peer_fin = true;
    }
    ack_pending = true;
  }

  on_ack(h, payload.size(), now);

  if (peer_fin) {
    if (state == SenderState::Established) state = SenderState::CloseWait;
    if (state == SenderState::FinWait2) state = SenderState::TimeWait;
    if (state == SenderState::FinWait1) state = SenderState::Closing;
  }
}

bool TcpSender::Impl::record_sack(const wire::TcpOptions& o) {
  return sack_ok && sacked.record(o, seq32(una), una, max);
}

void TcpSender::Impl::on_ack(const wire::TcpHeader& h, std::size_t payload_len, rto::Instant now) {
  const std::int32_t d = rto::seq_diff(h.ack, seq32(una));
  if (d < 0) return;  // an old ACK
  if (static_cast<std::uint64_t>(d) > max - una) {
    ack_pending = true;  // RFC 9293 3.10.7.4: ACK of something not yet sent
    return;
  }
  const std::uint32_t new_wnd = static_cast<std::uint32_t>(h.window) << snd_wscale;
  const std::uint32_t old_wnd = snd_wnd;
  snd_wnd = new_wnd;

  if (d == 0) {
    const bool sack_news = record_sack(h.options);
    // The duplicate-ACK rule for fast retransmit / fast recovery. An ACK
    // counts when it acknowledges nothing new and
    //   (a) data is outstanding (SND.MAX > SND.UNA),
    //   (b) it carries no data,
    //   (c) it has neither SYN nor FIN,
    //   (d) its ACK number equals SND.UNA (d == 0 here),
    // and EITHER
    //   (e) the advertised window is unchanged (RFC 5681 section 2, the
    //       strict definition), OR
    //   (f) it carries SACK blocks that report data beyond SND.UNA not
    //       SACKed before (RFC 6675 section 2 "DupAck" and section 5;
    //       RFC 2018 section 3: a receiver sends a SACK block only for an
    //       out-of-order segment it holds, so such an ACK is evidence of a
    //       segment that left the network, whatever the window says).
    // A pure window update (window changed, no SACK news) does not count,
    // and like every duplicate ACK it leaves the retransmission timer alone
    // (RFC 6298 5.3 restarts it only on an ACK of new data). Without (f), a
    // receiver that opens its window on every ACK (Linux does) would never
    // produce three duplicates, and every loss would wait for the RTO.
    const bool dup = payload_len == 0 && !h.has(wire::kFin) && !h.has(wire::kSyn) && max > una &&
                     (new_wnd == old_wnd || sack_news);
    if (!dup) return;
    ++stats.dup_acks;
    ++dupacks;
    if (cc.on_dup_ack(dupacks, h.ack, static_cast<std::uint32_t>(max - una), seq32(max))) {
      // RFC 6582 3.2 step 3: fast retransmit the first unacknowledged segment.
      // The timer is left running (5.1 starts it only when it is stopped).
      ++stats.fast_recoveries;
      send_segment(una, smss, now, SendReason::Fast);
    } else if (dupacks <= 2 && !cc.in_recovery()) {
      limited_transmit(now);
    }
    return;
  }

  // An ACK of new data.
  const std::uint64_t acked = static_cast<std::uint64_t>(d);
  const std::uint32_t una_before = seq32(una);  // SND.UNA as the ACK found it (the sampler's window)
  const std::uint64_t data_acked =
      std::min(una + acked, data_end()) > std::max<std::uint64_t>(una, 1)
          ? std::min(una + acked, data_end()) - std::max<std::uint64_t>(una, 1)
          : 0;
  una += acked;
  stats.bytes_acked += data_acked;
  if (nxt < una) nxt = una;  // go-back-N overtaken by the cumulative ACK
  dupacks = 0;
  sacked.prune(una);
  record_sack(h.options);  // so a later ACK repeating these blocks is no news
  buf.release_to(std::min(una, data_end()));

  // RTT sample: RFC 7323 TSecr when timestamps are on, else Karn-timed (3).
  std::optional<microseconds> r;
  if (ts_ok && h.options.tsecr && *h.options.tsecr != 0) {
    r = sampler.on_ack_ts(h.ack, *h.options.tsecr, una_before, seq32(max), now);
  } else {
    r = sampler.on_ack(h.ack, una_before, seq32(max), now);
  }
  if (r) take_sample(*r, now);

  const auto flight_after = static_cast<std::uint32_t>(max - una);
  if (cc.in_recovery()) {
    if (cc.on_recovery_ack(h.ack, static_cast<std::uint32_t>(acked), flight_after) && max > una) {
      // RFC 6582 3.2 step 5: partial ACK, retransmit the first unacknowledged segment.
      send_segment(una, smss, now, SendReason::Fast);
    }
  } else {
    cc.on_ack_of_new_data(static_cast<std::uint32_t>(acked));
  }

  // Progress either way: R2's counts start again.
  if (una == max) {
    timer.on_all_acked();  // 5.2
  } else {
    timer.on_new_data_acked(now);  // 5.3
    timer_started = now;
  }

  if (close_requested && una == total_end()) {  // our FIN is acknowledged
    switch (state) {
      case SenderState::FinWait1: state = peer_fin ? SenderState::TimeWait : SenderState::FinWait2; break;
      case SenderState::Closing:
      case SenderState::LastAck: state = SenderState::TimeWait; break;
      default: break;
    }
  }
}

}  // namespace netstack
