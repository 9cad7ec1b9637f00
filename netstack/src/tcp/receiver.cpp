// TcpReceiver: the passive-open core. See receiver.hpp for the RFCs it follows.
//
// Received data is tracked as 64-bit stream offsets (byte 0 is IRS + 1), so
// only the wire conversion is modulo 2^32.

#include "netstack/receiver.hpp"

#include <algorithm>
#include <utility>

#include "netstack/reassembly.hpp"
#include "netstack/segment_codec.hpp"
#include "rto/any_estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"
#include "rto/seq.hpp"
#include "wire/tcp.hpp"

namespace netstack {

const char* to_string(ReceiverState s) {
  switch (s) {
    case ReceiverState::Listen: return "Listen";
    case ReceiverState::SynReceived: return "SynReceived";
    case ReceiverState::Established: return "Established";
    case ReceiverState::LastAck: return "LastAck";
    case ReceiverState::Closed: return "Closed";
    case ReceiverState::Reset: return "Reset";
    case ReceiverState::Failed: return "Failed";
  }
  return "?";
}

struct TcpReceiver::Impl {
  explicit Impl(ReceiverConfig c)
      : cfg(std::move(c)),
        est(cfg.rto),
        sampler(cfg.ts_tick, cfg.ts_offset),
        timer(cfg.rto, rto::RetryLimits{cfg.max_backoffs, cfg.max_backoffs, std::chrono::microseconds{0}}) {}

  ReceiverConfig cfg;
  rto::AnyEstimator est;
  rto::RttSampler sampler;
  rto::RetransmissionTimer timer;  // 5.1-5.7 for the SYN-ACK and the FIN; gives up after max_backoffs
  ReceiverState state = ReceiverState::Listen;
  ReceiverStats stats;
  std::vector<std::vector<std::uint8_t>> out;
  std::uint16_t next_ip_id = 1;  // IPv4 Identification of the next datagram (RFC 6864 4.1)
  rto::Instant last_now{};

  Endpoint remote;
  std::uint32_t irs = 0;
  std::uint64_t rcv_off = 0;  // bytes delivered in order (RCV.NXT = IRS + 1 + rcv_off [+1 after FIN])
  std::optional<std::uint64_t> fin_off;
  bool fin_received = false;
  bool fin_sent = false;
  std::uint32_t peer_mss = 536;
  std::uint8_t snd_wscale = 0;  // ours, applied to our window field
  bool ts_ok = false;
  bool sack_ok = false;
  std::uint32_t ts_recent = 0;
  std::uint32_t last_ack_sent = 0;
  unsigned backoffs = 0;

  ReassemblyQueue ooo;
  std::optional<std::uint64_t> last_ooo_off;  // most recent out-of-order segment (SACK order)
  std::vector<std::uint8_t> app;
  std::size_t app_head = 0;

  unsigned unacked_segments = 0;
  std::optional<rto::Instant> delack_deadline;
  bool ack_now = false;
  std::uint32_t last_window_sent = 0;

  std::uint32_t rcv_nxt() const { return irs + 1 + static_cast<std::uint32_t>(rcv_off) + (fin_received ? 1 : 0); }
  std::size_t unread() const { return cfg.consume_immediately ? 0 : app.size() - app_head; }
  // Free buffer space: what we accept (the right edge never moves left).
  std::uint32_t free_space() const {
    const std::size_t u = unread();
    return u >= cfg.receive_buffer ? 0 : cfg.receive_buffer - static_cast<std::uint32_t>(u);
  }
  // The window we advertise: free space rounded down to the scale unit.
  std::uint32_t window() const {
    const std::uint32_t max_wnd = std::uint32_t{65535} << snd_wscale;
    return (std::min(free_space(), max_wnd) >> snd_wscale) << snd_wscale;
  }

  void emit(wire::TcpHeader& h, rto::Instant now) {
    if (ts_ok) {
      h.options.tsval = sampler.tsval(now);
      h.options.tsecr = ts_recent;
    }
    out.push_back(encode_segment(cfg.local, remote, h, {}, next_ip_id++));
    ++stats.acks_sent;
    last_ack_sent = h.ack;
    last_window_sent = window();
    unacked_segments = 0;
    delack_deadline.reset();
    ack_now = false;
  }

  void send_syn_ack(rto::Instant now, bool retransmission) {
    wire::TcpHeader h;
    h.seq = cfg.iss;
    h.ack = irs + 1;
    h.flags = wire::kSyn | wire::kAck;
    h.window = static_cast<std::uint16_t>(std::min<std::uint32_t>(cfg.receive_buffer, 65535));
    h.options.mss = cfg.mss;
    if (snd_wscale > 0) h.options.window_scale = snd_wscale;
    h.options.sack_permitted = sack_ok;
    sampler.on_send(cfg.iss, 1, retransmission ? cfg.iss + 1 : cfg.iss, now);  // SND.MAX before it
    timer.on_data_sent(now);  // 5.1
    emit(h, now);
    if (retransmission) ++stats.retransmissions;
  }

  void send_ack(rto::Instant now) {
    wire::TcpHeader h;
    h.seq = cfg.iss + 1 + (fin_sent ? 1 : 0);
    h.ack = rcv_nxt();
    h.flags = wire::kAck;
    h.window = static_cast<std::uint16_t>(window() >> snd_wscale);
    if (sack_ok) add_sack_blocks(h);
    emit(h, now);
  }

  void send_fin(rto::Instant now, bool retransmission) {
    wire::TcpHeader h;
    h.seq = cfg.iss + 1;
    h.ack = rcv_nxt();
    h.flags = wire::kFin | wire::kAck;
    h.window = static_cast<std::uint16_t>(window() >> snd_wscale);
    sampler.on_send(h.seq, 1, retransmission ? h.seq + 1 : h.seq, now);  // SND.MAX before it
    timer.on_data_sent(now);  // 5.1
    fin_sent = true;
    emit(h, now);
    if (retransmission) ++stats.retransmissions;
  }

  // RFC 2018 section 4: the block holding the latest out-of-order segment
  // first, then the others; 3 blocks fit next to timestamps, 4 without.
  void add_sack_blocks(wire::TcpHeader& h) const {
    if (ooo.empty()) return;
    auto ranges = ooo.ranges();
    const std::size_t limit = ts_ok ? 3 : 4;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> picked;
    if (last_ooo_off) {
      for (const auto& r : ranges) {
        if (r.first <= *last_ooo_off && *last_ooo_off < r.second) picked.push_back(r);
      }
    }
    for (auto it = ranges.rbegin(); it != ranges.rend() && picked.size() < limit; ++it) {
      if (std::find(picked.begin(), picked.end(), *it) == picked.end()) picked.push_back(*it);
    }
    for (const auto& r : picked) {
      if (h.options.sack_count >= limit) break;
      h.options.sack[h.options.sack_count++] =
          wire::SackBlock{irs + 1 + static_cast<std::uint32_t>(r.first), irs + 1 + static_cast<std::uint32_t>(r.second)};
    }
  }

  void on_tick(rto::Instant now) {
    last_now = std::max(last_now, now);
    if (timer.expired(now)) {
      // RFC 1122 R2 (max_backoffs in a row), then 5.5 / 5.6.
      const bool syn = state == ReceiverState::SynReceived;
      const rto::Expiry x = syn ? timer.on_syn_expiry(now) : timer.on_expiry(now);
      if (x.verdict != rto::RetryVerdict::Retransmit) {
        state = ReceiverState::Failed;
        timer.stop();
        return;
      }
      if (x.forget_rtt) est.forget();
      ++backoffs;
      ++stats.timeouts;
      sampler.on_timeout();
      if (syn) {
        send_syn_ack(now, true);
      } else if (state == ReceiverState::LastAck) {
        send_fin(now, true);
      } else {
        timer.stop();
      }
    }
    if (delack_deadline && now >= *delack_deadline) ack_now = true;
    // Window update after the application read (RFC 9293 3.8.6.2.2).
    if (state == ReceiverState::Established && !cfg.consume_immediately && window() > last_window_sent &&
        (last_window_sent < std::uint32_t{peer_mss} || window() - last_window_sent >= cfg.receive_buffer / 2)) {
      ack_now = true;
    }
    if (ack_now && state != ReceiverState::Listen && state != ReceiverState::Closed) send_ack(now);
  }

  void on_datagram(std::span<const std::uint8_t> ip, rto::Instant now) {
    last_now = std::max(last_now, now);
    const auto opened =
        accept_segment(ip, cfg.local, state != ReceiverState::Listen ? std::optional<Endpoint>(remote) : std::nullopt);
    if (!opened) {
      ++stats.bad_datagrams;
      return;
    }
    const ParsedSegment& seg = *opened;
    ++stats.segments_received;
    const wire::TcpHeader& h = seg.tcp;
    switch (state) {
      case ReceiverState::Listen: on_listen(seg, now); break;
      case ReceiverState::SynReceived:
      case ReceiverState::Established:
      case ReceiverState::LastAck: on_synchronized(h, seg.payload, now); break;
      default: break;
    }
    if (ack_now && state != ReceiverState::Listen && state != ReceiverState::Closed &&
        state != ReceiverState::Reset) {
      send_ack(now);
    }
  }

  void on_listen(const ParsedSegment& seg, rto::Instant now) {
    const wire::TcpHeader& h = seg.tcp;
    if (!h.has(wire::kSyn) || h.has(wire::kAck) || h.has(wire::kRst)) return;
    remote = seg.src;
    irs = h.seq;
    peer_mss = h.options.mss.value_or(536);
    if (h.options.window_scale && cfg.window_scale > 0) snd_wscale = std::min<std::uint8_t>(cfg.window_scale, 14);
    ts_ok = cfg.timestamps && h.options.tsval.has_value();
    if (ts_ok) ts_recent = *h.options.tsval;
    sack_ok = cfg.sack && h.options.sack_permitted;
    state = ReceiverState::SynReceived;
    send_syn_ack(now, false);
  }

  void on_synchronized(const wire::TcpHeader& h, std::span<const std::uint8_t> payload, rto::Instant now) {
    if (h.has(wire::kRst)) {
      if (h.seq == rcv_nxt()) {
        state = ReceiverState::Reset;
        timer.stop();
      }
      return;
    }
    if (h.has(wire::kSyn)) {
      // A retransmitted SYN: our SYN-ACK (or the ACK of it) was lost.
      if (state == ReceiverState::SynReceived && h.seq == irs) {
        send_syn_ack(now, true);
      } else {
        ack_now = true;
      }
      return;
    }
    if (!h.has(wire::kAck)) return;

    // RFC 9293 3.10.7.4 acceptability test.
    const std::int64_t rel = rto::seq_diff(h.seq, rcv_nxt());
    const std::uint32_t wnd = free_space();
    const std::uint64_t len = payload.size();
    bool acceptable;
    if (len == 0) {
      acceptable = wnd == 0 ? rel == 0 : (rel >= 0 && rel < static_cast<std::int64_t>(wnd));
    } else {
      const std::int64_t last = rel + static_cast<std::int64_t>(len) - 1;
      acceptable = wnd > 0 && ((rel >= 0 && rel < static_cast<std::int64_t>(wnd)) ||
                               (last >= 0 && last < static_cast<std::int64_t>(wnd)));
    }
    if (!acceptable) {
      if (len > 0 && rel < 0) stats.duplicate_bytes += std::min<std::uint64_t>(len, static_cast<std::uint64_t>(-rel));
      ack_now = true;  // RFC 9293: answer an unacceptable segment with an ACK
    }
    // RFC 7323 4.3: TS.Recent, from segments that start at or before Last.ACK.sent.
    if (acceptable && ts_ok && h.options.tsval && rto::ts_diff(*h.options.tsval, ts_recent) >= 0 &&
        rto::seq_le(h.seq, last_ack_sent)) {
      ts_recent = *h.options.tsval;
    }

    // The ACK field: completes the handshake or acknowledges our FIN.
    if (state == ReceiverState::SynReceived) {
      if (h.ack != cfg.iss + 1) return;
      std::optional<std::chrono::microseconds> r;
      // The SYN-ACK [ISS, ISS + 1) is all that was sent: SND.UNA ISS, SND.MAX ISS + 1.
      if (ts_ok && h.options.tsecr && *h.options.tsecr != 0) {
        r = sampler.on_ack_ts(h.ack, *h.options.tsecr, cfg.iss, cfg.iss + 1, now);
      } else {
        r = sampler.on_ack(h.ack, cfg.iss, cfg.iss + 1, now);
      }
      if (r && est.on_rtt_sample(*r)) timer.on_rtt_sample(est.rto());  // 2.2 / 2.3
      timer.on_handshake_complete(backoffs > 0, est.has_sample());  // 5.7
      timer.on_all_acked();                                        // 5.2
      backoffs = 0;
      state = ReceiverState::Established;
    } else if (state == ReceiverState::LastAck && h.ack == cfg.iss + 2) {
      timer.on_all_acked();
      state = ReceiverState::Closed;
      return;
    }
    if (!acceptable) return;

    // RFC 9293 3.10.7.4, seventh: once the peer's FIN is processed
    // (CLOSE-WAIT and after) segment text is ignored; it is not stream data.
    if (len > 0 && !fin_received) on_payload(h.seq, payload);
    if (h.has(wire::kFin)) {
      const std::int64_t fin_rel = rto::seq_diff(h.seq, irs + 1) + static_cast<std::int64_t>(len);
      if (!fin_received && fin_rel >= 0) fin_off = static_cast<std::uint64_t>(fin_rel);
      ack_now = true;
    }
    if (!fin_received && fin_off && rcv_off == *fin_off && ooo.empty()) {
      fin_received = true;
      ack_now = true;
      // Close our side at once: FIN+ACK (RFC 9293 CLOSE-WAIT -> LAST-ACK).
      if (state == ReceiverState::Established) {
        state = ReceiverState::LastAck;
        send_fin(now, false);
      }
    }
    if (!ack_now && cfg.delayed_ack && !delack_deadline && unacked_segments > 0) {
      delack_deadline = now + cfg.ack_delay;
    }
  }

  void on_payload(std::uint32_t seq, std::span<const std::uint8_t> payload) {
    // Stream offset of the first byte: rcv_off + (seq - RCV.NXT).
    const std::int64_t start = static_cast<std::int64_t>(rcv_off) + rto::seq_diff(seq, rcv_nxt());
    std::int64_t skip = 0;
    if (start < static_cast<std::int64_t>(rcv_off)) skip = static_cast<std::int64_t>(rcv_off) - start;
    // Trim to the window's right edge.
    const std::uint64_t right = rcv_off + free_space();
    std::uint64_t first = static_cast<std::uint64_t>(start + skip);
    std::uint64_t end = static_cast<std::uint64_t>(start) + payload.size();
    end = std::min(end, right);
    if (fin_off) end = std::min(end, *fin_off);  // nothing follows the FIN (RFC 9293 3.10.7.4, eighth)
    if (skip > 0) stats.duplicate_bytes += static_cast<std::uint64_t>(skip);
    if (end <= first) {
      ack_now = true;
      return;
    }
    const auto data = payload.subspan(static_cast<std::size_t>(first - static_cast<std::uint64_t>(start)),
                                      static_cast<std::size_t>(end - first));
    if (first == rcv_off) {
      const bool had_gap = !ooo.empty();
      app.insert(app.end(), data.begin(), data.end());
      rcv_off = end;
      const std::size_t before = app.size();
      rcv_off = ooo.pop_contiguous(rcv_off, app);
      stats.bytes_delivered += data.size() + (app.size() - before);
      if (ooo.empty()) last_ooo_off.reset();
      ++unacked_segments;
      // RFC 5681 4.2: ACK at once when a gap filled; otherwise every second
      // segment when delaying.
      if (had_gap || !cfg.delayed_ack || unacked_segments >= 2) ack_now = true;
    } else {
      ++stats.out_of_order_segments;
      const std::uint64_t added = ooo.insert(first, data);
      stats.duplicate_bytes += data.size() - added;
      last_ooo_off = first;
      ack_now = true;  // RFC 5681 4.2: immediate duplicate ACK for out-of-order data
    }
  }
};

TcpReceiver::TcpReceiver(ReceiverConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
TcpReceiver::~TcpReceiver() = default;
TcpReceiver::TcpReceiver(TcpReceiver&&) noexcept = default;
TcpReceiver& TcpReceiver::operator=(TcpReceiver&&) noexcept = default;

void TcpReceiver::on_datagram(std::span<const std::uint8_t> ip, rto::Instant now) { impl_->on_datagram(ip, now); }
void TcpReceiver::on_tick(rto::Instant now) { impl_->on_tick(now); }
std::vector<std::vector<std::uint8_t>> TcpReceiver::take_output() { return std::exchange(impl_->out, {}); }

std::optional<rto::Instant> TcpReceiver::next_deadline() const {
  const Impl& s = *impl_;
  if (s.state == ReceiverState::Closed || s.state == ReceiverState::Reset || s.state == ReceiverState::Failed ||
      s.state == ReceiverState::Listen) {
    return std::nullopt;
  }
  if (s.ack_now) return s.last_now;
  std::optional<rto::Instant> d;
  if (s.timer.running()) d = s.timer.deadline();
  if (s.delack_deadline && (!d || *s.delack_deadline < *d)) d = s.delack_deadline;
  if (s.state == ReceiverState::Established && !s.cfg.consume_immediately && s.window() > s.last_window_sent &&
      (s.last_window_sent < std::uint32_t{s.peer_mss} || s.window() - s.last_window_sent >= s.cfg.receive_buffer / 2)) {
    d = s.last_now;
  }
  return d;
}

std::size_t TcpReceiver::readable() const { return impl_->app.size() - impl_->app_head; }

std::vector<std::uint8_t> TcpReceiver::read(std::size_t max) {
  Impl& s = *impl_;
  const std::size_t n = std::min(max, s.app.size() - s.app_head);
  std::vector<std::uint8_t> r(s.app.begin() + static_cast<std::ptrdiff_t>(s.app_head),
                              s.app.begin() + static_cast<std::ptrdiff_t>(s.app_head + n));
  s.app_head += n;
  if (s.app_head == s.app.size()) {
    s.app.clear();
    s.app_head = 0;
  }
  return r;
}

ReceiverState TcpReceiver::state() const { return impl_->state; }
bool TcpReceiver::peer_closed() const { return impl_->fin_received; }
std::optional<Endpoint> TcpReceiver::peer() const {
  if (impl_->state == ReceiverState::Listen) return std::nullopt;
  return impl_->remote;
}
const ReceiverStats& TcpReceiver::stats() const { return impl_->stats; }
std::uint32_t TcpReceiver::window() const { return impl_->window(); }

}  // namespace netstack
