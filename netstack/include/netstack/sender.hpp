#pragma once
// The active side of a TCP connection as a pure, event-driven core: it does
// no I/O and reads no clock. The embedder hands it IP datagrams and the
// current time (rto::Instant) and takes back the datagrams to send and the
// time of its next deadline. The same core runs in the simulator
// (netstack/sim_*.hpp) and over a TUN device.
//
// What it implements, and where from:
//  - RFC 9293: active open (SYN with MSS, window scale, SACK-permitted and
//    timestamps options), SND.UNA / SND.NXT / SND.WND, SMSS segmentation,
//    cumulative ACKs, FIN close, RST handling.
//  - RFC 6298 through rto::AnyEstimator / rto::RttSampler / rto::RetransmissionTimer:
//    2.1-2.5 RTO computation, 3 (Karn), 5.1-5.7 timer management; on expiry
//    the EARLIEST unacknowledged segment is retransmitted (5.4).
//  - RFC 7323: timestamps; RTT samples from TSecr.
//  - RFC 5681 congestion control (slow start, congestion avoidance, the
//    timeout response cwnd = 1 SMSS (LW), ssthresh = max(FlightSize/2, 2*SMSS))
//    with NewReno fast retransmit / fast recovery (RFC 6582, the
//    "Slow-but-Steady" variant: the timer restarts on every ACK of new data,
//    as RFC 6298 5.3 says). A duplicate ACK is one with an unchanged window
//    (RFC 5681 section 2) or one whose SACK blocks report new out-of-order
//    data (RFC 6675 section 2 / 5), so a receiver that opens its window on
//    every ACK (Linux) still triggers fast retransmit.
//  - RFC 3042 Limited Transmit on the first two duplicate ACKs.
//  - RFC 9293 3.8.6.1 zero-window probing with a persist timer (probes are
//    not retransmissions and do not back off the RTO).
//  - RFC 1122 4.2.3.5 (R2): the connection gives up after a configurable
//    number of backoffs or a total time without progress, and says why.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netstack/address.hpp"
#include "netstack/congestion.hpp"
#include "rto/clock.hpp"
#include "rto/config.hpp"
#include "rto/retransmission_timer.hpp"

namespace netstack {

/// Parameters of a TcpSender. The three RFC 1122 R2 fields are handed to the
/// rto::RetransmissionTimer as its rto::RetryLimits.
struct SenderConfig {
  Endpoint local;   ///< our address and port
  Endpoint remote;  ///< the peer's address and port (same IP version)
  /// Initial send sequence number (RFC 9293 3.4.1). Fixed here so runs are
  /// reproducible; a real stack picks it per RFC 6528.
  std::uint32_t iss = 0x10000000;
  /// MSS we announce in our SYN, bytes (RFC 9293 3.7.1). SMSS is the smaller
  /// of this and the peer's MSS option (536 when the peer sends none).
  std::uint16_t mss = 1460;
  /// Offer RFC 7323 timestamps / SACK-permitted (RFC 2018) / window scale.
  bool timestamps = true;
  bool sack_permitted = true;
  std::uint8_t window_scale = 7;
  /// Our receive window, bytes (what we advertise; the sender receives no data).
  std::uint32_t receive_window = 65535;
  /// TSval clock tick (RFC 7323 5.4: between 1 ms and 1 s per tick).
  std::chrono::microseconds ts_tick{1000};
  /// TSval at time 0 (a fixed offset keeps runs reproducible).
  std::uint32_t ts_offset = 1;
  /// RTO computation (RFC 6298 defaults, or rto::Config::linux_default()).
  rto::Config rto = rto::Config::rfc6298();
  /// RFC 1122 R2: give up when the timer has backed off this many times in a
  /// row for one segment (Linux tcp_retries2 = 15 for data, tcp_syn_retries = 6).
  unsigned max_backoffs = rto::kDefaultMaxDataBackoffs;
  unsigned max_syn_backoffs = rto::kDefaultMaxSynBackoffs;
  /// RFC 1122 R2: give up when an unacknowledged segment has waited this long
  /// since its first retransmission timeout started (0 = no time limit).
  std::chrono::microseconds max_retry_time{0};
  /// The OPEN call's timeout (RFC 9293 3.10.1, "if the timeout expires,
  /// connection is aborted"): a connection still in SynSent this long after
  /// connect() fails with FailureReason::ConnectTimeout, however many SYN
  /// retransmissions are left (a client's connect deadline, e.g. gRPC's
  /// MIN_CONNECT_TIMEOUT). Nothing is sent when it fires. 0 = no timeout
  /// (only the R2 limits above end a SynSent connection).
  std::chrono::microseconds connect_timeout{0};
  /// Initial cwnd in segments; 0 = RFC 5681 3.1 IW (2, 3 or 4 SMSS by size).
  std::uint32_t initial_window_segments = 0;
  /// RFC 3042 Limited Transmit (RFC 5681 3.2 step 1): one new segment on each
  /// of the first two duplicate ACKs, FlightSize <= cwnd + 2*SMSS.
  bool limited_transmit = true;
};

/// Connection states of the sender (RFC 9293 3.3.2 names; Failed and Reset
/// are how it ends when it does not end with a close).
enum class SenderState {
  Closed,       ///< connect() not called yet
  SynSent,      ///< SYN sent, waiting for SYN-ACK
  Established,  ///< data transfer
  FinWait1,     ///< close() called and our FIN sent, not yet acknowledged
  FinWait2,     ///< our FIN acknowledged, waiting for the peer's FIN
  Closing,      ///< both FINs sent, ours not yet acknowledged
  CloseWait,    ///< the peer's FIN arrived first; we may still send
  LastAck,      ///< our FIN sent after the peer's, not yet acknowledged
  TimeWait,     ///< both FINs acknowledged: done (2*MSL not modelled)
  Failed,       ///< gave up (RFC 1122 R2); see failure()
  Reset,        ///< peer sent RST (or refused the connection)
};

/// Human-readable name of a state ("SynSent", ...).
const char* to_string(SenderState s);

/// Why a connection failed or was reset.
enum class FailureReason {
  None,
  SynBackoffLimit,   ///< SYN retransmitted max_syn_backoffs times (R2)
  DataBackoffLimit,  ///< a segment retransmitted max_backoffs times (R2)
  RetryTimeLimit,    ///< max_retry_time elapsed without progress (R2)
  ConnectionRefused, ///< RST in reply to our SYN
  ResetByPeer,       ///< RST in a synchronized state
  ConnectTimeout,    ///< still in SynSent when SenderConfig::connect_timeout expired
};
/// A sentence naming the reason ("connection reset by peer", ...).
const char* to_string(FailureReason r);

/// Why a segment was retransmitted.
enum class RetransmitKind {
  Timeout,       ///< the retransmission timer expired (RFC 6298 5.4)
  Fast,          ///< third duplicate ACK or partial ACK in NewReno recovery (RFC 6582)
  AfterTimeout,  ///< go-back-N resend of data already sent, in slow start after a timeout
};
/// "timeout", "fast" or "after-timeout".
const char* to_string(RetransmitKind k);

/// One retransmission, as the sender saw it.
struct RetransmitRecord {
  rto::Instant time;           ///< when it was sent
  RetransmitKind kind;
  std::uint32_t seq;           ///< first sequence number (absolute)
  std::uint32_t len;           ///< sequence space covered (SYN and FIN count 1)
  bool syn = false;
  bool fin = false;
  std::chrono::microseconds rto{0};  ///< for Timeout: the RTO after the backoff (5.5)
  unsigned backoff = 0;              ///< for Timeout: backoff count after the expiry
  /// For Timeout: how long the timer ran before this expiry, from the event
  /// that last started or restarted it (5.1 first send, 5.3 ACK of new
  /// data, 5.6 previous expiry) to the expiry; as pcap-replay's "waited".
  std::chrono::microseconds waited{0};
};

/// One RTT sample fed to the estimator.
struct RttRecord {
  rto::Instant time;
  std::chrono::microseconds sample{0};
  std::chrono::microseconds rto{0};     ///< RTO right after the sample
  std::chrono::microseconds srtt{0};    ///< SRTT right after the sample (RFC 6298 2.2 / 2.3)
  std::chrono::microseconds rttvar{0};  ///< RTTVAR right after the sample (Linux profile: mdev / 4, tcpi_rttvar)
};

/// Counters of a TcpSender.
struct SenderStats {
  std::uint64_t segments_sent = 0;        ///< every datagram emitted (retransmissions and probes included)
  std::uint64_t data_segments_sent = 0;   ///< datagrams carrying payload, SYN or FIN
  std::uint64_t bytes_acked = 0;          ///< payload bytes cumulatively acknowledged
  std::uint64_t retransmissions = 0;      ///< all kinds
  std::uint64_t retransmissions_timeout = 0;
  std::uint64_t retransmissions_fast = 0;
  std::uint64_t retransmissions_after_timeout = 0;
  std::uint64_t timeouts = 0;             ///< timer expiries (SYN included)
  std::uint64_t fast_recoveries = 0;      ///< entries into NewReno fast recovery
  std::uint64_t limited_transmits = 0;    ///< new segments sent by RFC 3042 Limited Transmit
  std::uint64_t window_probes = 0;        ///< zero-window probes sent
  std::uint64_t rtt_samples = 0;
  /// Duplicate ACKs counted toward fast retransmit: ACK = SND.UNA with data
  /// outstanding, no payload, no SYN/FIN, and either an unchanged window
  /// (RFC 5681 section 2) or SACK blocks reporting new data above SND.UNA
  /// (RFC 6675 section 2 / 5, RFC 2018). Pure window updates are not counted.
  std::uint64_t dup_acks = 0;
  std::uint64_t bad_datagrams = 0;        ///< unparseable or for another connection
  std::vector<RetransmitRecord> retransmit_log;  ///< every retransmission, in order
  std::vector<RttRecord> rtt_log;         ///< every RTT sample (kept only if log_rtt_samples)
};

/// The active-open TCP sender core. Not thread-safe; one per connection.
class TcpSender {
 public:
  /// Validates the config (rto::ConfigError; std::invalid_argument for
  /// mismatched address versions or mss < 64).
  explicit TcpSender(SenderConfig config);
  ~TcpSender();
  /// Movable, not copyable.
  TcpSender(TcpSender&&) noexcept;
  TcpSender& operator=(TcpSender&&) noexcept;

  /// Active open at `now`: emits the SYN and arms the timer (RFC 6298 2.1: 1 s),
  /// and the connect timeout when SenderConfig::connect_timeout is set.
  void connect(rto::Instant now);
  /// Queues application bytes (copied). Sent once the connection is established,
  /// as windows allow, at the next on_tick()/on_datagram() (next_deadline()
  /// then returns the last time the core was told, i.e. "now").
  /// Ignored after close().
  void write(std::span<const std::uint8_t> data);
  /// The same, and sends what the windows allow right away at `now`.
  void write(std::span<const std::uint8_t> data, rto::Instant now);
  /// No more data: a FIN follows the last byte (RFC 9293 3.6). Sent at the
  /// next on_tick()/on_datagram(), or at once with the `now` overload.
  void close();
  void close(rto::Instant now);

  /// One IP datagram arrived from the peer at `now`. Datagrams that do not
  /// parse, fail the checksum or belong to another connection are counted
  /// (stats().bad_datagrams) and ignored.
  void on_datagram(std::span<const std::uint8_t> ip, rto::Instant now);
  /// Fires every deadline at or before `now` (retransmission, persist).
  void on_tick(rto::Instant now);

  /// Datagrams produced since the last call, in order, moved out.
  std::vector<std::vector<std::uint8_t>> take_output();
  /// The earliest time on_tick() must be called: the retransmission or persist
  /// timer's deadline, or the last time the core was given (i.e. "now") when
  /// it has something to send at once (after write()/close() without a time);
  /// nullopt when nothing is pending (Closed, finished, or idle with no timer).
  /// In SynSent it is also never later than the connect timeout's deadline.
  std::optional<rto::Instant> next_deadline() const;

  /// Current state (RFC 9293 names, plus Failed / Reset).
  SenderState state() const;
  /// Why the connection failed or was reset; None otherwise.
  FailureReason failure() const;
  /// The sender has nothing left to do (TimeWait, Failed or Reset).
  bool finished() const;
  /// All written data and the FIN are acknowledged.
  bool all_acked() const;

  /// Counters and logs since construction.
  const SenderStats& stats() const;
  /// Current RTO including backoff, microseconds (RFC 6298 2-5, via rto::RetransmissionTimer).
  std::chrono::microseconds rto() const;
  /// SRTT (RFC 6298 2.2/2.3); nullopt before the first RTT sample.
  std::optional<std::chrono::microseconds> srtt() const;
  /// RTTVAR (RFC 6298 2.2/2.3); nullopt before the first RTT sample.
  std::optional<std::chrono::microseconds> rttvar() const;
  /// Number of RTO doublings since the last fresh sample (RFC 6298 5.5).
  unsigned backoff() const;
  /// Congestion state (RFC 5681): cwnd, ssthresh, in-recovery.
  const NewReno& congestion() const;
  /// SMSS in use, bytes: min(our MSS, the peer's MSS option or 536). Data
  /// segments carry SMSS less the 12 bytes of timestamps when in use (RFC 6691).
  std::uint32_t smss() const;
  /// Absolute SND.UNA, SND.NXT, SND.WND (RFC 9293 3.3.1).
  std::uint32_t snd_una() const;
  std::uint32_t snd_nxt() const;
  std::uint32_t snd_wnd() const;
  /// Payload bytes transmitted at least once so far (from the first data
  /// byte to the highest one sent; retransmissions are not counted again).
  std::uint64_t bytes_sent() const;
  /// Keep every RTT sample in stats().rtt_log (off by default: long runs).
  void set_log_rtt_samples(bool on);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack
