#pragma once
// `netstack send`: our TcpSender against the Linux kernel's TCP over a TUN
// device. Builds the namespaces (real_peer_topology.hpp),
// starts a kernel listener in the far one (real_peer_receiver.hpp), drives
// the sender with a real clock (std::chrono::steady_clock -> rto::from_steady)
// and poll(2) on the TUN fd with the sender's next deadline as timeout, drops
// what the PacketFilter says on the way out, optionally writes the traffic
// as pcap (as seen by the sender: every transmission, every ACK that
// reached it), and checks that the receiver got exactly the bytes sent.

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "netstack/packet_filter.hpp"
#include "netstack/real_peer_receiver.hpp"
#include "netstack/sender.hpp"

namespace netstack {

/// What to send and how.
struct RealPeerOptions {
  /// Send this many bytes of a fixed pattern (real_peer_pattern)...
  std::uint64_t bytes = 0;
  /// ...or the contents of this file (when not empty; takes precedence).
  std::string file;
  /// Losses on the way to the peer.
  PacketFilterConfig filter;
  /// Write the traffic to this pcap file (raw IP, µs timestamps, wall clock).
  std::string capture_path;
  /// IPv6 instead of IPv4.
  bool ipv6 = false;
  /// Existing namespace to hold the TUN device instead of a new one.
  std::string netns;
  /// The receiver copies the bytes it read to this file (not when empty).
  std::string sink_path;
  /// Give up (non-zero exit) when the transfer has not finished after this long.
  std::chrono::seconds time_limit{120};
  /// RFC 6298 timer parameters (default: the RFC's own).
  rto::Config rto = rto::Config::rfc6298();
};

/// How a run went.
struct RealPeerResult {
  bool ok = false;          ///< connection closed cleanly and the bytes match
  std::string message;      ///< one line: why not ok, or a summary
  std::uint64_t bytes_sent = 0;  ///< bytes given to the sender (--bytes N or the --file's size)
  std::uint32_t crc32_sent = 0;  ///< CRC-32 of those bytes
  /// Payload bytes actually transmitted (each once; TcpSender::bytes_sent()):
  /// less than bytes_sent when the run was interrupted or failed.
  std::uint64_t bytes_transmitted = 0;
  std::uint64_t bytes_acked = 0;  ///< payload bytes the peer acknowledged
  /// --drop-seq values that matched no segment (PacketFilter::unmatched_drop_seq).
  std::vector<std::uint32_t> unmatched_drop_seq;
  ReceivedSummary received;  ///< what the kernel receiver reported
  SenderState final_state = SenderState::Closed;
  SenderStats sender;        ///< the TcpSender's counters and retransmission log
  PacketFilterStats filter;
  std::chrono::microseconds elapsed{0};  ///< connect() to the end of the loop
  std::uint64_t captured = 0;            ///< pcap records written
  std::uint64_t wakeups = 0;             ///< returns from poll (a busy loop shows here)
  std::uint64_t tun_write_drops = 0;     ///< datagrams the kernel refused at once (ENOBUFS): losses not made by the filter
};

/// The payload of `--bytes N`: byte i is the low byte of (i * 2654435761) >> 13,
/// a pattern with no period shorter than 8 KiB, so misplaced segments show.
std::vector<std::uint8_t> real_peer_pattern(std::uint64_t n);

/// Runs one transfer end to end. Never leaves a namespace behind (RAII; the
/// CLI also turns SIGINT/SIGTERM/SIGHUP into a clean stop). Progress goes to
/// `log` as it happens: the set-up, one progress_line() per retransmission
/// (prefixed "netstack: "), and a warning for each --drop-seq that matched
/// no segment, with where segments really started. Returns the result; throws std::runtime_error /
/// std::system_error (with the step that failed) only for set-up failures:
/// not root, no /dev/net/tun, unreadable --file, unwritable --capture.
RealPeerResult run_real_peer(const RealPeerOptions& options, std::ostream& log);

}  // namespace netstack
