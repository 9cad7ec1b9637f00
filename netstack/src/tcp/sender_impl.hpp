#pragma once
// TcpSender's state, shared by the files that implement it:
//   sender.cpp          the public API (connect, write, close, queries)
//   sender_events.cpp   the state machine: segments in, timer expiries, ACKs
//   sender_output.cpp   segments out: SYN, data (segmentation, windows), ACKs, probes
//   netstack/{sack_scoreboard,persist_timer,send_buffer}.hpp   one part each
//
// Sequence space is tracked as 64-bit offsets from the ISS (the SYN is
// offset 0, data byte k is offset 1 + k, the FIN follows the last byte), so
// nothing inside wraps; offsets become 32-bit sequence numbers only on the
// wire (seq = ISS + offset, modulo 2^32).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "netstack/sender.hpp"
#include "netstack/persist_timer.hpp"
#include "rto/any_estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"
#include "netstack/sack_scoreboard.hpp"
#include "netstack/send_buffer.hpp"
#include "wire/tcp.hpp"

namespace netstack {

/// Why a data segment is sent: new data (or go-back-N after a timeout), the
/// timeout's retransmission of the earliest segment (RFC 6298 5.4), or a fast
/// retransmission (RFC 6582).
enum class SendReason { New, Timeout, Fast };

/// The MSS assumed when the peer's SYN-ACK has no MSS option (RFC 9293 3.7.1).
inline constexpr std::uint32_t kDefaultPeerMss = 536;
/// Bytes of the timestamps option every data segment carries when
/// timestamps are on (RFC 7323 3, padded; RFC 6691: deducted from SMSS).
inline constexpr std::uint32_t kTimestampOptionBytes = 12;

struct TcpSender::Impl {
  /// Validates `c` (see TcpSender::TcpSender).
  explicit Impl(SenderConfig c);

  SenderConfig cfg;
  rto::AnyEstimator est;           // SRTT, RTTVAR (2.2, 2.3): the profile's variant
  rto::RttSampler sampler;
  rto::RetransmissionTimer timer;  // 5.1-5.7, the backoff, RFC 1122 R2 (cfg's limits)
  rto::Instant timer_started{};          // when `timer` last started or restarted
  std::chrono::microseconds expiry_wait{0};  // for the log: how long it ran before the expiry being handled
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
  SackScoreboard sacked;
  SendBuffer buf;
  bool close_requested = false;

  // Receive side (the peer sends only SYN and FIN).
  std::uint32_t rcv_nxt = 0;
  bool peer_fin = false;
  bool ts_ok = false;
  bool sack_ok = false;
  std::uint32_t ts_recent = 0;
  bool ack_pending = false;

  PersistTimer persist;
  // RFC 9293 3.10.1: the OPEN timeout, set by connect() when configured.
  std::optional<rto::Instant> connect_deadline;

  // ---- derived values (sender.cpp) ----------------------------------------
  /// Payload bytes per segment: SMSS less the options every data segment
  /// carries (RFC 9293 3.7.1, RFC 6691): the timestamps when in use.
  std::uint32_t payload_mss() const { return smss - (ts_ok ? kTimestampOptionBytes : 0); }
  std::uint32_t seq32(std::uint64_t off) const { return cfg.iss + static_cast<std::uint32_t>(off); }
  std::uint64_t data_end() const { return buf.data_end(); }
  std::uint64_t total_end() const { return data_end() + (close_requested ? 1 : 0); }
  bool finished() const {
    return state == SenderState::TimeWait || state == SenderState::Failed || state == SenderState::Reset;
  }
  bool may_send_data() const {
    return state == SenderState::Established || state == SenderState::FinWait1 ||
           state == SenderState::CloseWait || state == SenderState::Closing || state == SenderState::LastAck;
  }
  std::uint16_t window_field() const;
  void request_close();

  // ---- output (sender_output.cpp) -----------------------------------------
  void emit(wire::TcpHeader& h, std::span<const std::uint8_t> payload);
  /// RFC 6298 5.1 for a segment sent at `now`, noting when the timer starts.
  void start_timer_if_stopped(rto::Instant now);
  void send_syn(rto::Instant now, bool retransmission);
  void send_ack(rto::Instant now);
  void add_ts(wire::TcpHeader& h, rto::Instant now) const;
  std::uint64_t send_segment(std::uint64_t off, std::uint64_t room, rto::Instant now, SendReason reason);
  void log_retransmission(rto::Instant now, RetransmitKind kind, std::uint32_t seq, std::uint32_t len, bool syn,
                          bool fin);
  std::uint64_t sendable_room() const;
  void push(rto::Instant now);
  void limited_transmit(rto::Instant now);
  void arm_persist(rto::Instant now);
  void send_window_probe(rto::Instant now);

  // ---- events (sender_events.cpp) -----------------------------------------
  void fail(FailureReason why, SenderState st);
  void on_timer_expiry(rto::Instant now);
  void on_tick(rto::Instant now);
  void on_datagram(std::span<const std::uint8_t> ip, rto::Instant now);
  void on_syn_sent_segment(const wire::TcpHeader& h, rto::Instant now);
  void on_synchronized_segment(const wire::TcpHeader& h, std::span<const std::uint8_t> payload, rto::Instant now);
  void on_ack(const wire::TcpHeader& h, std::size_t payload_len, rto::Instant now);
  void take_sample(std::chrono::microseconds r, rto::Instant now);
  bool record_sack(const wire::TcpOptions& o);
};

}  // namespace netstack
