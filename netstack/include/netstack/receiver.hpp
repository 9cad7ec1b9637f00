#pragma once
// The passive side of a TCP connection as a pure, event-driven core (no I/O,
// no clock), the peer of TcpSender in the simulator.
//
//  - RFC 9293: LISTEN -> SYN-RECEIVED -> ESTABLISHED, in-order delivery with
//    a reassembly queue for out-of-order segments, cumulative ACKs, receive
//    window from the free buffer space, FIN (closes its own side as soon as
//    the peer's FIN is delivered: FIN+ACK, then LAST-ACK), RST.
//  - RFC 1122 4.2.3.2 / RFC 5681 4.2: optional delayed ACKs (every second
//    full-sized segment or after `ack_delay`), immediate ACKs for
//    out-of-order segments and for segments that fill a gap.
//  - RFC 7323: timestamps, TS.Recent kept by the rules of section 4.3 and
//    echoed in TSecr; window scale.
//  - RFC 2018: SACK blocks (optional).
//  - RFC 6298 through rto/: the SYN-ACK and the FIN are retransmitted on the
//    RTO with backoff.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "netstack/address.hpp"
#include "rto/clock.hpp"
#include "rto/config.hpp"

namespace netstack {

/// Parameters of a TcpReceiver.
struct ReceiverConfig {
  Endpoint local;                 ///< the listening address and port
  std::uint32_t iss = 0x20000000; ///< our initial sequence number (fixed: reproducible runs)
  std::uint16_t mss = 1460;       ///< MSS we announce, bytes
  bool timestamps = true;         ///< answer RFC 7323 timestamps when offered
  bool sack = true;               ///< answer SACK-permitted and send SACK blocks
  std::uint8_t window_scale = 7;  ///< our shift when the peer offers scaling
  /// Receive buffer, bytes: the window is this minus unread bytes.
  std::uint32_t receive_buffer = 256 * 1024;
  /// Delivered bytes are consumed at once (the window never closes). When
  /// false the application drains them with read() and the window shrinks.
  bool consume_immediately = true;
  /// Delayed ACKs (RFC 1122 4.2.3.2): off = ACK every segment at once.
  bool delayed_ack = false;
  std::chrono::microseconds ack_delay{40'000};
  std::chrono::microseconds ts_tick{1000};  ///< TSval clock tick
  std::uint32_t ts_offset = 7;              ///< TSval at time 0
  rto::Config rto = rto::Config::rfc6298(); ///< for the SYN-ACK and FIN timer
  unsigned max_backoffs = 15;               ///< RFC 1122 R2 for the SYN-ACK/FIN
};

/// Receiver states (RFC 9293 names).
enum class ReceiverState { Listen, SynReceived, Established, LastAck, Closed, Reset, Failed };
/// The state's name ("Listen", ...).
const char* to_string(ReceiverState s);

/// Counters of a TcpReceiver.
struct ReceiverStats {
  std::uint64_t segments_received = 0;   ///< valid segments for this connection
  std::uint64_t bytes_delivered = 0;     ///< in order, each byte once
  std::uint64_t duplicate_bytes = 0;     ///< payload bytes received again
  std::uint64_t out_of_order_segments = 0;
  std::uint64_t acks_sent = 0;           ///< every segment we emit carries an ACK (SYN-ACK included)
  std::uint64_t retransmissions = 0;     ///< SYN-ACK / FIN resent (timer or duplicate SYN)
  std::uint64_t timeouts = 0;
  std::uint64_t bad_datagrams = 0;
};

/// The passive-open TCP receiver core. One connection per object.
class TcpReceiver {
 public:
  /// Listens on config.local for one connection. rto::ConfigError for a bad rto config.
  explicit TcpReceiver(ReceiverConfig config);
  ~TcpReceiver();
  /// Movable, not copyable.
  TcpReceiver(TcpReceiver&&) noexcept;
  TcpReceiver& operator=(TcpReceiver&&) noexcept;

  /// One IP datagram arrived at `now` (bad or foreign ones are counted and dropped).
  void on_datagram(std::span<const std::uint8_t> ip, rto::Instant now);
  /// Fires deadlines at or before `now` (delayed ACK, SYN-ACK/FIN retransmission).
  void on_tick(rto::Instant now);
  /// Datagrams to send, in order, moved out.
  std::vector<std::vector<std::uint8_t>> take_output();
  /// Earliest time on_tick() must be called; nullopt when none.
  std::optional<rto::Instant> next_deadline() const;

  /// Bytes delivered in order and not yet read (all of them when
  /// consume_immediately: then read() drains the record of everything received).
  std::size_t readable() const;
  /// Takes up to `max` delivered bytes. Opening the window this way sends a
  /// window update at the next on_tick()/on_datagram().
  std::vector<std::uint8_t> read(std::size_t max = SIZE_MAX);

  /// Current state (RFC 9293 names).
  ReceiverState state() const;
  /// The peer's FIN has been received and every byte before it delivered.
  bool peer_closed() const;
  /// The peer, once the SYN arrived.
  std::optional<Endpoint> peer() const;
  /// Counters since construction.
  const ReceiverStats& stats() const;
  /// The window we advertise now, bytes (unscaled value times 2^shift).
  std::uint32_t window() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack
