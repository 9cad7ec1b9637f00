// TcpSender: the active-open core. See sender.hpp for the RFCs it follows.
//
// Sequence space is tracked as 64-bit offsets from the ISS (the SYN is
// offset 0, data byte k is offset 1 + k, the FIN follows the last byte), so
// nothing inside wraps; offsets become 32-bit sequence numbers only on the
// wire (seq = ISS + offset, modulo 2^32).

#include "netstack/sender.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "netstack/segment_codec.hpp"
#include "rto/estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"
#include "rto/seq.hpp"
#include "wire/tcp.hpp"

namespace netstack {

using std::chrono::microseconds;

const char* to_string(SenderState s) {
  switch (s) {
    case SenderState::Closed: return "Closed";
    case SenderState::SynSent: return "SynSent";
    case SenderState::Established: return "Established";
    case SenderState::FinWait1: return "FinWait1";
    case SenderState::FinWait2: return "FinWait2";
    case SenderState::Closing: return "Closing";
    case SenderState::CloseWait: return "CloseWait";
    case SenderState::LastAck: return "LastAck";
    case SenderState::TimeWait: return "TimeWait";
    case SenderState::Failed: return "Failed";
    case SenderState::Reset: return "Reset";
  }
  return "?";
}

const char* to_string(FailureReason r) {
  switch (r) {
    case FailureReason::None: return "none";
    case FailureReason::SynBackoffLimit: return "SYN retransmitted too often (RFC 1122 R2)";
    case FailureReason::DataBackoffLimit: return "segment retransmitted too often (RFC 1122 R2)";
    case FailureReason::RetryTimeLimit: return "retransmission time limit reached (RFC 1122 R2)";
    case FailureReason::ConnectionRefused: return "connection refused (RST in reply to SYN)";
    case FailureReason::ResetByPeer: return "connection reset by peer";
    case FailureReason::ConnectTimeout: return "connect timed out (the OPEN timeout, RFC 9293 3.10.1)";
  }
  return "?";
}

const char* to_string(RetransmitKind k) {
  switch (k) {
    case RetransmitKind::Timeout: return "timeout";
    case RetransmitKind::Fast: return "fast";
    case RetransmitKind::AfterTimeout: return "after-timeout";
  }
  return "?";
}

namespace {

enum class SendReason { New, Timeout, Fast };

constexpr std::uint32_t kDefaultPeerMss = 536;  // RFC 9293 3.7.1 when no MSS option

}  // namespace

struct TcpSender::Impl {
  explicit Impl(SenderConfig c)
      : cfg(std::move(c)),
        est(cfg.rto),
        sampler(cfg.ts_tick, cfg.ts_offset),
        cc(cfg.mss, cfg.initial_window_segments, cfg.iss) {
    if (cfg.local.address.version != cfg.remote.address.version) {
      throw std::invalid_argument("netstack::SenderConfig: local and remote IP versions differ");
    }
    if (cfg.mss < 64) throw std::invalid_argument("netstack::SenderConfig.mss: below 64 bytes");
    if (cfg.window_scale > 14) throw std::invalid_argument("netstack::SenderConfig.window_scale: above 14");
    smss = cfg.mss;
  }

  SenderConfig cfg;
  rto::Estimator est;
  rto::RttSampler sampler;
  rto::RetransmissionTimer timer;
  NewReno cc;
  SenderState state = SenderState::Closed;
  FailureReason failure = FailureReason::None;
  SenderStats stats;
  bool log_rtt = false;
  std::vector<std::vector<std::uint8_t>> out;
  std::uint16_t next_ip_id = 1;  // IPv4 Identification of the next datagram (RFC 6864 4.1)
  rto::Instant last_now{};

  // Send side, offsets from ISS.
  std::uint64_t una = 0;  // SND.UNA
  std::uint64_t nxt = 0;  // SND.NXT (rewound to SND.UNA on a timeout: go-back-N)
  std::uint64_t max = 0;  // highest offset sent + 1 ("SND.MAX")
  std::uint32_t snd_wnd = 0;
  std::uint32_t smss;
  std::uint8_t snd_wscale = 0;  // applied to the peer's window field
  std::uint8_t rcv_wscale = 0;  // applied to ours
  unsigned dupacks = 0;
  bool syn_timed_out = false;
  // SACK scoreboard (RFC 2018 section 3, RFC 6675 section 3): the ranges
  // above SND.UNA the peer has reported holding, as sorted, disjoint,
  // non-adjacent [begin, end) offsets. Used only to tell whether an ACK's
  // SACK blocks report new out-of-order data (the duplicate-ACK rule in
  // on_ack); nothing is retransmitted from it.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sacked;
  static constexpr std::size_t kMaxSackedRanges = 64;  // bound; forgetting only makes later blocks look new

  // Application data not yet acknowledged: buf[head] is stream offset buf_off.
  std::vector<std::uint8_t> buf;
  std::size_t head = 0;
  std::uint64_t buf_off = 1;
  std::uint64_t written = 0;
  bool close_requested = false;

  // Receive side (the peer sends only SYN and FIN).
  std::uint32_t rcv_nxt = 0;
  bool peer_fin = false;
  bool ts_ok = false;
  bool sack_ok = false;
  std::uint32_t ts_recent = 0;
  bool ack_pending = false;

  // R2 and the persist timer.
  unsigned consecutive_backoffs = 0;
  std::optional<rto::Instant> retry_since;
  std::optional<rto::Instant> persist_deadline;
  unsigned persist_backoff = 0;
  // RFC 9293 3.10.1: the OPEN timeout, set by connect() when configured.
  std::optional<rto::Instant> connect_deadline;

  // Payload bytes per segment: SMSS less the options every data segment
  // carries (RFC 9293 3.7.1, RFC 6691): 12 bytes of timestamps when in use.
  std::uint32_t payload_mss() const { return smss - (ts_ok ? 12 : 0); }

  std::uint32_t seq32(std::uint64_t off) const { return cfg.iss + static_cast<std::uint32_t>(off); }
  std::uint64_t data_end() const { return 1 + written; }
  std::uint64_t total_end() const { return data_end() + (close_requested ? 1 : 0); }
  bool synchronized() const {
    return state != SenderState::Closed && state != SenderState::SynSent && !finished();
  }
  bool finished() const {
    return state == SenderState::TimeWait || state == SenderState::Failed || state == SenderState::Reset;
  }
  bool may_send_data() const {
    return state == SenderState::Established || state == SenderState::FinWait1 ||
           state == SenderState::CloseWait || state == SenderState::Closing || state == SenderState::LastAck;
  }

  std::uint16_t window_field() const {
    const std::uint32_t w = cfg.receive_window >> rcv_wscale;
    return static_cast<std::uint16_t>(std::min<std::uint32_t>(w, 65535));
  }

  void emit(wire::TcpHeader& h, std::span<const std::uint8_t> payload) {
    out.push_back(encode_segment(cfg.local, cfg.remote, h, payload, next_ip_id++));
    ++stats.segments_sent;
    ack_pending = false;
  }

  // ---- segments ----------------------------------------------------------

  void send_syn(rto::Instant now, bool retransmission) {
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
    sampler.on_send(cfg.iss, 1, now);
    timer.on_data_sent(now, est.rto());  // 5.1
    emit(h, {});
    ++stats.data_segments_sent;
    max = std::max<std::uint64_t>(max, 1);
    nxt = std::max<std::uint64_t>(nxt, 1);
    if (retransmission) {
      ++stats.retransmissions;
      ++stats.retransmissions_timeout;
      stats.retransmit_log.push_back(
          RetransmitRecord{now, RetransmitKind::Timeout, cfg.iss, 1, true, false, est.rto(), est.backoff()});
    }
  }

  void send_ack(rto::Instant now) {
    wire::TcpHeader h;
    h.seq = seq32(nxt);
    h.ack = rcv_nxt;
    h.flags = wire::kAck;
    h.window = window_field();
    add_ts(h, now);
    emit(h, {});
  }

  void add_ts(wire::TcpHeader& h, rto::Instant now) {
    if (!ts_ok) return;
    h.options.tsval = sampler.tsval(now);
    h.options.tsecr = ts_recent;
  }

  // Sends the segment starting at offset `off` with at most `room` bytes of
  // payload; returns the sequence space it covers (0 if nothing to send).
  std::uint64_t send_segment(std::uint64_t off, std::uint64_t room, rto::Instant now, SendReason reason) {
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
    const std::size_t at = head + static_cast<std::size_t>(off - buf_off);
    const std::span<const std::uint8_t> payload(buf.data() + at, static_cast<std::size_t>(len));
    const std::uint64_t seqlen = len + (fin ? 1 : 0);

    const bool retrans = off < max;
    sampler.on_send(h.seq, static_cast<std::uint32_t>(seqlen), now);  // Karn bookkeeping (3)
    timer.on_data_sent(now, est.rto());                                // 5.1
    emit(h, payload);
    ++stats.data_segments_sent;
    max = std::max(max, off + seqlen);
    if (retrans) {
      RetransmitKind kind = reason == SendReason::Timeout ? RetransmitKind::Timeout
                            : reason == SendReason::Fast  ? RetransmitKind::Fast
                                                          : RetransmitKind::AfterTimeout;
      ++stats.retransmissions;
      if (kind == RetransmitKind::Timeout) ++stats.retransmissions_timeout;
      if (kind == RetransmitKind::Fast) ++stats.retransmissions_fast;
      if (kind == RetransmitKind::AfterTimeout) ++stats.retransmissions_after_timeout;
      stats.retransmit_log.push_back(RetransmitRecord{now, kind, h.seq, static_cast<std::uint32_t>(seqlen), false,
                                                      fin, est.rto(), est.backoff()});
    }
    return seqlen;
  }

  // How much may be sent at SND.NXT now (0: nothing), by cwnd, SND.WND and
  // sender-side silly window avoidance (RFC 9293 3.8.6.2.1: only full
  // segments, the last piece of data, or anything when nothing is in flight).
  std::uint64_t sendable_room() const {
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
  void push(rto::Instant now) {
    while (true) {
      const std::uint64_t room = sendable_room();
      if (room == 0) break;
      const std::uint64_t used = send_segment(nxt, room, now, SendReason::New);
      if (used == 0) break;
      nxt += used;
    }
    arm_persist(now);
  }

  // RFC 9293 3.8.6.1: window probes while the peer's window is zero and nothing
  // is in flight (no retransmission timer to wake us).
  void arm_persist(rto::Instant now) {
    const bool zero_window_stall = snd_wnd == 0 && nxt < total_end() && una == max && may_send_data();
    if (!zero_window_stall) {
      persist_deadline.reset();
      persist_backoff = 0;
      return;
    }
    if (!persist_deadline) persist_deadline = now + persist_interval();
  }

  microseconds persist_interval() const {
    microseconds d = est.base_rto();
    for (unsigned i = 0; i < persist_backoff && d < microseconds{60'000'000}; ++i) d *= 2;
    return std::min(d, microseconds{60'000'000});
  }

  void send_window_probe(rto::Instant now) {
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

  // ---- events ------------------------------------------------------------

  void fail(FailureReason why, SenderState st) {
    state = st;
    failure = why;
    timer.stop();
    persist_deadline.reset();
  }

  void on_timer_expiry(rto::Instant now) {
    // impl: RFC1122-4.2.3.5 (R2: give up after max_syn_backoffs / max_backoffs expiries or max_retry_time)
    if (!retry_since) retry_since = now;
    const bool over_time = cfg.max_retry_time.count() > 0 && now - *retry_since >= cfg.max_retry_time;
    if (state == SenderState::SynSent) {
      if (consecutive_backoffs >= cfg.max_syn_backoffs || over_time) {
        fail(over_time ? FailureReason::RetryTimeLimit : FailureReason::SynBackoffLimit, SenderState::Failed);
        return;
      }
      ++stats.timeouts;
      ++consecutive_backoffs;
      syn_timed_out = true;
      timer.on_syn_expiry(now, est);  // 5.5 / 5.6 for the SYN
      sampler.on_timeout();
      send_syn(now, true);  // 5.4: the SYN is the earliest unacknowledged segment
      return;
    }
    if (consecutive_backoffs >= cfg.max_backoffs || over_time) {
      fail(over_time ? FailureReason::RetryTimeLimit : FailureReason::DataBackoffLimit, SenderState::Failed);
      return;
    }
    ++stats.timeouts;
    const bool repeated = consecutive_backoffs > 0;
    ++consecutive_backoffs;
    // RFC 5681 3.1 / RFC 6582: the timeout response.
    cc.on_timeout(static_cast<std::uint32_t>(max - una), seq32(max), repeated);
    dupacks = 0;
    // RFC 2018 section 8: after a retransmission timeout turn off all the
    // SACKed bits (the receiver may have reneged).
    sacked.clear();
    timer.on_expiry(now, est);  // 5.5 back off, 5.6 restart with the new RTO
    sampler.on_timeout();       // Karn (3): nothing in flight may be timed now
    // 5.4: retransmit the earliest segment not yet acknowledged; then go back N.
    nxt = una;
    const std::uint64_t used = send_segment(una, smss, now, SendReason::Timeout);
    nxt = una + used;
  }

  void on_tick(rto::Instant now) {
    last_now = std::max(last_now, now);
    if (finished() || state == SenderState::Closed) return;
    if (state == SenderState::SynSent && connect_deadline && now >= *connect_deadline) {
      fail(FailureReason::ConnectTimeout, SenderState::Failed);  // RFC 9293 3.10.1: abort, send nothing
      return;
    }
    if (timer.expired(now)) on_timer_expiry(now);
    if (finished()) return;
    if (persist_deadline && now >= *persist_deadline) {
      send_window_probe(now);
      ++persist_backoff;
      persist_deadline = now + persist_interval();
    }
    push(now);
    if (ack_pending) send_ack(now);
  }

  void on_datagram(std::span<const std::uint8_t> ip, rto::Instant now) {
    last_now = std::max(last_now, now);
    auto parsed = parse_segment(ip);
    if (!std::holds_alternative<ParsedSegment>(parsed)) {
      ++stats.bad_datagrams;
      return;
    }
    const ParsedSegment& seg = std::get<ParsedSegment>(parsed);
    if (!(seg.src == cfg.remote) || !(seg.dst == cfg.local)) {
      ++stats.bad_datagrams;
      return;
    }
    const wire::TcpHeader& h = seg.tcp;
    if (state == SenderState::TimeWait) {
      // RFC 9293 3.10.7.4: a retransmitted FIN in TIME-WAIT is acknowledged again.
      if (h.has(wire::kFin) && !h.has(wire::kRst)) send_ack(now);
      return;
    }
    if (finished() || state == SenderState::Closed) return;
    if (state == SenderState::SynSent) {
      on_syn_sent_segment(h, now);
    } else {
      on_synchronized_segment(h, seg.payload, now);
    }
    if (state == SenderState::Failed || state == SenderState::Reset) return;
    push(now);
    if (ack_pending) send_ack(now);
  }

  void on_syn_sent_segment(const wire::TcpHeader& h, rto::Instant now) {
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
    // one (shared case B15).
    if (auto r = sampler.on_ack(h.ack, now)) take_sample(*r, now);
    est.on_handshake_complete(syn_timed_out);  // 5.7
    timer.on_all_acked();                      // 5.2
    consecutive_backoffs = 0;
    retry_since.reset();
    cc.reset_smss(smss, cfg.initial_window_segments);
    state = close_requested ? SenderState::FinWait1 : SenderState::Established;
    // ACK the SYN-ACK on its own segment, as Linux does, so the handshake
    // completes at the peer even if the first data segment is lost.
    send_ack(now);
    push(now);
  }

  void take_sample(microseconds r, rto::Instant now) {
    if (!est.on_rtt_sample(r, seq32(una), seq32(max))) return;  // 2.2 / 2.3
    ++stats.rtt_samples;
    if (log_rtt) stats.rtt_log.push_back(RttRecord{now, r, est.rto()});
  }

  void on_synchronized_segment(const wire::TcpHeader& h, std::span<const std::uint8_t> payload,
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
    if (ts_ok && h.options.tsval && rto::ts_diff(*h.options.tsval, ts_recent) >= 0 &&
        rto::seq_le(h.seq, rcv_nxt)) {
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

  void on_ack(const wire::TcpHeader& h, std::size_t payload_len, rto::Instant now) {
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
        // The timer is left running (5.1 starts it only when stopped; B12).
        ++stats.fast_recoveries;
        send_segment(una, smss, now, SendReason::Fast);
      } else if (dupacks <= 2 && !cc.in_recovery()) {
        limited_transmit(now);
      }
      return;
    }

    // An ACK of new data.
    const std::uint64_t acked = static_cast<std::uint64_t>(d);
    const std::uint64_t data_acked =
        std::min(una + acked, data_end()) > std::max<std::uint64_t>(una, 1)
            ? std::min(una + acked, data_end()) - std::max<std::uint64_t>(una, 1)
            : 0;
    una += acked;
    stats.bytes_acked += data_acked;
    if (nxt < una) nxt = una;  // go-back-N overtaken by the cumulative ACK
    dupacks = 0;
    prune_sacked();
    record_sack(h.options);  // so a later ACK repeating these blocks is no news
    // Drop acknowledged bytes from the buffer.
    const std::uint64_t drop_to = std::min(una, data_end());
    if (drop_to > buf_off) {
      head += static_cast<std::size_t>(drop_to - buf_off);
      buf_off = drop_to;
      if (head > (1u << 20) && head * 2 > buf.size()) {
        buf.erase(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(head));
        head = 0;
      }
    }

    // RTT sample: RFC 7323 TSecr when timestamps are on, else Karn-timed (3).
    std::optional<microseconds> r;
    if (ts_ok && h.options.tsecr && *h.options.tsecr != 0) {
      r = sampler.on_ack_ts(h.ack, *h.options.tsecr, now);
    } else {
      r = sampler.on_ack(h.ack, now);
    }
    if (r) take_sample(*r, now);

    consecutive_backoffs = 0;  // progress: R2 counts start again
    retry_since.reset();

    const auto flight_after = static_cast<std::uint32_t>(max - una);
    if (cc.in_recovery()) {
      if (cc.on_recovery_ack(h.ack, static_cast<std::uint32_t>(acked), flight_after) && max > una) {
        // RFC 6582 3.2 step 5: partial ACK, retransmit the first unacknowledged segment.
        send_segment(una, smss, now, SendReason::Fast);
      }
    } else {
      cc.on_ack_of_new_data(static_cast<std::uint32_t>(acked));
    }

    if (una == max) {
      timer.on_all_acked();  // 5.2
    } else {
      timer.on_new_data_acked(now, est.rto());  // 5.3
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

  // RFC 3042 Limited Transmit (RFC 5681 3.2 step 1, a SHOULD): on the first
  // and second duplicate ACK send one segment of previously unsent data if
  // the peer's window allows and FlightSize stays <= cwnd + 2*SMSS; cwnd is
  // not changed. With a small cwnd (3-4 segments, common after losses) this
  // is what makes a third duplicate ACK arrive at all instead of a timeout.
  void limited_transmit(rto::Instant now) {
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

  // ---- SACK scoreboard ----------------------------------------------------

  // Drops the scoreboard below SND.UNA (cumulatively acknowledged now).
  void prune_sacked() {
    std::erase_if(sacked, [&](const auto& r) { return r.second <= una; });
    for (auto& r : sacked) r.first = std::max(r.first, una);
  }

  // Adds the ACK's SACK blocks (RFC 2018 section 3) to the scoreboard and
  // returns true when one of them covers bytes above SND.UNA that were not
  // SACKed before. Only when SACK was negotiated. Blocks are clipped to
  // [SND.UNA, SND.MAX); a block entirely below SND.UNA (a D-SACK, RFC 2883)
  // or reaching beyond SND.MAX (data never sent: bogus) reports nothing.
  bool record_sack(const wire::TcpOptions& o) {
    if (!sack_ok) return false;
    bool news = false;
    const std::uint32_t una32 = seq32(una);
    for (std::size_t i = 0; i < o.sack_count && i < o.sack.size(); ++i) {
      const std::int64_t l = rto::seq_diff(o.sack[i].left, una32);
      const std::int64_t r = rto::seq_diff(o.sack[i].right, una32);
      if (r <= 0 || r <= l || static_cast<std::uint64_t>(r) > max - una) continue;
      const std::uint64_t begin = una + static_cast<std::uint64_t>(std::max<std::int64_t>(l, 0));
      const std::uint64_t end = una + static_cast<std::uint64_t>(r);
      news = add_sacked(begin, end) || news;
    }
    return news;
  }

  // Merges [begin, end) into `sacked`; true if it covered anything new.
  bool add_sacked(std::uint64_t begin, std::uint64_t end) {
    auto it = std::lower_bound(sacked.begin(), sacked.end(), begin,
                               [](const auto& r, std::uint64_t b) { return r.second < b; });
    // `it` is the first range ending at or after `begin` (touching or overlapping).
    if (it != sacked.end() && it->first <= begin && end <= it->second) return false;  // already known
    std::uint64_t b = begin, e = end;
    auto last = it;
    while (last != sacked.end() && last->first <= e) {
      b = std::min(b, last->first);
      e = std::max(e, last->second);
      ++last;
    }
    it = sacked.erase(it, last);
    sacked.insert(it, {b, e});
    if (sacked.size() > kMaxSackedRanges) sacked.pop_back();  // forget the highest range
    return true;
  }

  void request_close() {
    if (close_requested) return;
    close_requested = true;
    if (state == SenderState::Established) state = SenderState::FinWait1;
    if (state == SenderState::CloseWait) state = SenderState::LastAck;
  }

  bool has_sendable() const { return sendable_room() > 0; }
};

TcpSender::TcpSender(SenderConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
TcpSender::~TcpSender() = default;
TcpSender::TcpSender(TcpSender&&) noexcept = default;
TcpSender& TcpSender::operator=(TcpSender&&) noexcept = default;

void TcpSender::connect(rto::Instant now) {
  Impl& s = *impl_;
  if (s.state != SenderState::Closed) return;
  s.last_now = now;
  s.state = SenderState::SynSent;
  if (s.cfg.connect_timeout.count() > 0) s.connect_deadline = now + s.cfg.connect_timeout;
  s.send_syn(now, false);
}

void TcpSender::write(std::span<const std::uint8_t> data) {
  Impl& s = *impl_;
  if (s.close_requested || s.finished()) return;
  s.buf.insert(s.buf.end(), data.begin(), data.end());
  s.written += data.size();
}

void TcpSender::write(std::span<const std::uint8_t> data, rto::Instant now) {
  write(data);
  on_tick(now);
}

void TcpSender::close() { impl_->request_close(); }

void TcpSender::close(rto::Instant now) {
  close();
  on_tick(now);
}

void TcpSender::on_datagram(std::span<const std::uint8_t> ip, rto::Instant now) { impl_->on_datagram(ip, now); }
void TcpSender::on_tick(rto::Instant now) { impl_->on_tick(now); }

std::vector<std::vector<std::uint8_t>> TcpSender::take_output() { return std::exchange(impl_->out, {}); }

std::optional<rto::Instant> TcpSender::next_deadline() const {
  const Impl& s = *impl_;
  if (s.finished() || s.state == SenderState::Closed) return std::nullopt;
  if (s.has_sendable() || s.ack_pending) return s.last_now;
  std::optional<rto::Instant> d;
  if (s.timer.running()) d = s.timer.deadline();
  if (s.persist_deadline && (!d || *s.persist_deadline < *d)) d = s.persist_deadline;
  if (s.state == SenderState::SynSent && s.connect_deadline && (!d || *s.connect_deadline < *d))
    d = s.connect_deadline;
  return d;
}

SenderState TcpSender::state() const { return impl_->state; }
FailureReason TcpSender::failure() const { return impl_->failure; }
bool TcpSender::finished() const { return impl_->finished(); }
bool TcpSender::all_acked() const {
  const Impl& s = *impl_;
  return s.close_requested && s.una == s.total_end();
}
const SenderStats& TcpSender::stats() const { return impl_->stats; }
std::chrono::microseconds TcpSender::rto() const { return impl_->est.rto(); }
std::optional<std::chrono::microseconds> TcpSender::srtt() const { return impl_->est.srtt(); }
std::optional<std::chrono::microseconds> TcpSender::rttvar() const { return impl_->est.rttvar(); }
unsigned TcpSender::backoff() const { return impl_->est.backoff(); }
const NewReno& TcpSender::congestion() const { return impl_->cc; }
std::uint32_t TcpSender::smss() const { return impl_->smss; }
std::uint32_t TcpSender::snd_una() const { return impl_->seq32(impl_->una); }
std::uint32_t TcpSender::snd_nxt() const { return impl_->seq32(impl_->nxt); }
std::uint32_t TcpSender::snd_wnd() const { return impl_->snd_wnd; }
void TcpSender::set_log_rtt_samples(bool on) { impl_->log_rtt = on; }

}  // namespace netstack
