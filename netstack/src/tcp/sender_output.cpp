// TcpSender's output: the SYN, data segments cut to SMSS within cwnd and
// SND.WND (with go-back-N after a timeout and RFC 3042 Limited Transmit),
// pure ACKs and zero-window probes, and the retransmission log.

#include <algorithm>

#include "netstack/segment_codec.hpp"
#include "sender_impl.hpp"

namespace netstack {

using std::chrono::microseconds;

void TcpSender::Impl::emit(wire::TcpHeader& h, std::span<const std::uint8_t> payload) {
  out.push_back(encode_segment(cfg.local, cfg.remote, h, payload, next_ip_id++));
  ++stats.segments_sent;
  ack_pending = false;
}

void TcpSender::Impl::start_timer_if_stopped(rto::Instant now) {
  if (!timer.running()) timer_started = now;
  timer.on_data_sent(now);  // 5.1
}

void TcpSender::Impl::log_retransmission(rto::Instant now, RetransmitKind kind, std::uint32_t seq, std::uint32_t len,
                                         bool syn, bool fin) {
  ++stats.retransmissions;
  if (kind == RetransmitKind::Timeout) ++stats.retransmissions_timeout;
  if (kind == RetransmitKind::Fast) ++stats.retransmissions_fast;
  if (kind == RetransmitKind::AfterTimeout) ++stats.retransmissions_after_timeout;
  stats.retransmit_log.push_back(RetransmitRecord{now, kind, seq, len, syn, fin, timer.rto(), timer.backoff(),
                                                  kind == RetransmitKind::Timeout ? expiry_wait : microseconds{0}});
}

void TcpSender::Impl::send_syn(rto::Instant now, bool retransmission) {
  wire::TcpHeader h;
  h.seq = cfg.iss;
  h.flags = wire::kSyn;
  h.window = static_cast<std::uint16_t>(std::min<std::uint32_t>(cfg.receive_window, 65535));  // RFC 7323 2.2: SYN window unscaled
  h.options.mss = cfg.mss;
  if (cfg.window_scale > 0) h.options.window_scale = cfg.window_scale;
  h.options.sack_permitted = cfg.sack_permitted;
  if (cfg.timestamps) {
    h.options.tsval = sampler.tsval(now);
    h.options.tsecr = 0;
  }
  sampler.on_send(cfg.iss, 1, seq32(max), now);
  start_timer_if_stopped(now);
  emit(h, {});
  ++stats.data_segments_sent;
  max = std::max<std::uint64_t>(max, 1);
  nxt = std::max<std::uint64_t>(nxt, 1);
  if (retransmission) log_retransmission(now, RetransmitKind::Timeout, cfg.iss, 1, true, false);
}

void TcpSender::Impl::send_ack(rto::Instant now) {
  wire::TcpHeader h;
  h.seq = seq32(nxt);
  h.ack = rcv_nxt;
  h.flags = wire::kAck;
  h.window = window_field();
  add_ts(h, now);
  emit(h, {});
}

void TcpSender::Impl::add_ts(wire::TcpHeader& h, rto::Instant now) const {
  if (!ts_ok) return;
  h.options.tsval = sampler.tsval(now);
  h.options.tsecr = ts_recent;
}

// Sends the segment starting at offset `off` with at most `room` bytes of
// payload; returns the sequence space it covers (0 if nothing to send).
std::uint64_t TcpSender::Impl::send_segment(std::uint64_t off, std::uint64_t room, rto::Instant now,
                                            SendReason reason) {
  const std::uint64_t dend = data_end();
  std::uint64_t len = 0;
  if (off < dend) len = std::min<std::uint64_t>({room, dend - off, payload_mss()});
  const bool fin = close_requested && off + len == dend;
  if (len == 0 && !fin) return 0;

  wire::TcpHeader h;
  h.seq = seq32(off);
  h.ack = rcv_nxt;
  h.flags = static_cast<std::uint8_t>(wire::kAck | (fin ? wire::kFin : 0) |
                                      (len > 0 && off + len == dend ? wire::kPsh : 0));
  h.window = window_field();
  add_ts(h, now);
  const std::span<const std::uint8_t> payload = buf.bytes(off, static_cast<std::size_t>(len));
  const std::uint64_t seqlen = len + (fin ? 1 : 0);

  const bool retrans = off < max;
  sampler.on_send(h.seq, static_cast<std::uint32_t>(seqlen), seq32(max), now);  // Karn bookkeeping (3)
  start_timer_if_stopped(now);                                       // 5.1
  emit(h, payload);
  ++stats.data_segments_sent;
  max = std::max(max, off + seqlen);
  if (retrans) {
    const RetransmitKind kind = reason == SendReason::Timeout ? RetransmitKind::Timeout
                                : reason == SendReason::Fast  ? RetransmitKind::Fast
                                                              : RetransmitKind::AfterTimeout;
    log_retransmission(now, kind, h.seq, static_cast<std::uint32_t>(seqlen), false, fin);
  }
  return seqlen;
}

// How much may be sent at SND.NXT now (0: nothing), by cwnd, SND.WND and
// sender-side silly window avoidance (RFC 9293 3.8.6.2.1: only full
// segments, the last piece of data, or anything when nothing is in flight).
std::uint64_t TcpSender::Impl::sendable_room() const {
  if (!may_send_data() || nxt >= total_end()) return 0;
  const std::uint64_t in_flight = nxt - una;
  const std::uint64_t wnd = std::min<std::uint64_t>(cc.cwnd(), snd_wnd);
  const std::uint64_t remaining = data_end() > nxt ? data_end() - nxt : 0;
  if (remaining == 0) return 1;  // only the FIN is left: it needs no window
  if (in_flight >= wnd) return 0;
  const std::uint64_t room = wnd - in_flight;
  if (room < std::min<std::uint64_t>(payload_mss(), remaining) && in_flight > 0) return 0;
  return room;
}

// Sends new (or go-back-N) segments while cwnd and SND.WND allow.
void TcpSender::Impl::push(rto::Instant now) {
  while (true) {
    const std::uint64_t room = sendable_room();
    if (room == 0) break;
    const std::uint64_t used = send_segment(nxt, room, now, SendReason::New);
    if (used == 0) break;
    nxt += used;
  }
  arm_persist(now);
}

// RFC 3042 Limited Transmit (RFC 5681 3.2 step 1, a SHOULD): on the first
// and second duplicate ACK send one segment of previously unsent data if
// the peer's window allows and FlightSize stays <= cwnd + 2*SMSS; cwnd is
// not changed. With a small cwnd (3-4 segments, common after losses) this
// is what makes a third duplicate ACK arrive at all instead of a timeout.
void TcpSender::Impl::limited_transmit(rto::Instant now) {
  if (!cfg.limited_transmit || !may_send_data() || nxt != max || nxt >= data_end()) return;
  const std::uint64_t flight = max - una;
  const std::uint64_t cap = std::uint64_t{cc.cwnd()} + 2 * std::uint64_t{smss};
  if (flight >= cap || flight >= snd_wnd) return;
  const std::uint64_t room = std::min(cap - flight, snd_wnd - flight);
  // Sender SWS avoidance (RFC 9293 3.8.6.2.1): a full segment or the last piece.
  if (room < std::min<std::uint64_t>(payload_mss(), data_end() - nxt)) return;
  const std::uint64_t used = send_segment(nxt, std::min<std::uint64_t>(room, payload_mss()), now, SendReason::New);
  nxt += used;
  if (used > 0) ++stats.limited_transmits;
}

// RFC 9293 3.8.6.1: window probes while the peer's window is zero and nothing
// is in flight (no retransmission timer to wake us).
void TcpSender::Impl::arm_persist(rto::Instant now) {
  const bool zero_window_stall = snd_wnd == 0 && nxt < total_end() && una == max && may_send_data();
  persist.update(zero_window_stall, now, timer.base_rto());
}

void TcpSender::Impl::send_window_probe(rto::Instant now) {
  // Linux-style probe (tcp_xmit_probe_skb): no data, SEQ = SND.UNA - 1, which
  // the receiver must answer with an ACK carrying its window. Not a
  // retransmission; the RTO does not back off.
  wire::TcpHeader h;
  h.seq = seq32(una) - 1;
  h.ack = rcv_nxt;
  h.flags = wire::kAck;
  h.window = window_field();
  add_ts(h, now);
  emit(h, {});
  ++stats.window_probes;
}

}  // namespace netstack
