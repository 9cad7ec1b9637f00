#pragma once
// A connection of one segment so far keeps that segment compactly: without
// what its connection record already holds (file, frame, time, endpoints)
// and with its SACK blocks, rare in a first segment, apart. 88 bytes (a
// 96-byte heap block) where a Segment is 168: with 2 M one-SYN connections
// (to hold in under 1 GB) every byte counts 2 MB.

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include <replay/input/segment.hpp>

namespace replay {

class FirstSegment {
 public:
  /// Keeps `s`, sent by side `dir` of its connection (0: the client).
  FirstSegment(const Segment& s, int dir);
  /// `s` again, exactly, given what the connection kept of it: its file,
  /// frame and time, the connection's client and server, and its virtual
  /// network (the connection's own: that of its first segment).
  Segment segment(std::size_t file_index, std::uint64_t frame, CaptureTime time, const Endpoint& client,
                  const Endpoint& server, const VirtualNetwork& vnet) const;
  /// The side that sent it (0: the client).
  int dir() const { return dir_; }

  /// Its sender's models wait for it (the analyzer's Live::deferred).
  bool defer = false;
  /// What a new TsClock of its sender's host read right after observing it
  /// (the analyzer's Live::first_rate), Hz.
  std::optional<double> first_rate() const;
  void set_first_rate(std::optional<double> hz);

 private:
  // (The IP fields in what would be padding: after `defer`, after the ports.)
  std::uint8_t ip_ttl_;
  // wire::TcpHeader but its SACK blocks.
  std::uint16_t src_port_, dst_port_;
  std::uint16_t ip_checksum_;
  std::uint32_t seq_, ack_;
  std::uint8_t data_offset_, flags_;
  std::uint16_t window_, checksum_, urgent_;
  std::optional<std::uint16_t> mss_;
  std::optional<std::uint8_t> window_scale_;
  bool sack_permitted_;
  std::uint8_t sack_count_;
  std::optional<std::uint32_t> tsval_, tsecr_;
  std::unique_ptr<std::array<wire::SackBlock, 4>> sack_;  // null when every block is zero
  // The rest of Segment.
  std::chrono::nanoseconds rebase_;
  std::uint32_t payload_len_, flow_label_;
  std::optional<std::uint16_t> ip_id_;
  bool tcp_options_cut_, tcp_options_bad_;
  std::int8_t dir_;
  double first_rate_;  // NaN: none
};

}  // namespace replay
