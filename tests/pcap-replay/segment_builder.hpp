#pragma once
// Hand-made segments for the analysis tests that feed an Analyzer directly
// (no capture file): one client 198.18.0.1 talking to 198.18.0.2:5001, the
// client's port naming the connection.

#include <chrono>
#include <cstdint>

#include <replay/input/segment.hpp>
#include <wire/address.hpp>

namespace replaytest {

/// The capture time `t_us` microseconds after 2023-11-14 22:13:20 UTC
/// (1 700 000 000 s since the Unix epoch), the start of every hand-made
/// connection.
inline replay::CaptureTime at_us(std::int64_t t_us) {
  return replay::CaptureTime{std::chrono::microseconds{1'700'000'000'000'000 + t_us}};
}

/// A segment of the connection 198.18.0.1:`cport` <-> 198.18.0.2:5001 at
/// at_us(`t_us`), client to server when `from_client`, with TCP `flags`
/// (wire::kSyn etc.), raw `seq` and `ack`, window 65535 and `len` payload
/// bytes (none captured). Its frame number is 0: set it when the test counts
/// frames.
inline replay::Segment segment(std::int64_t t_us, bool from_client, std::uint16_t cport, std::uint8_t flags,
                               std::uint32_t seq, std::uint32_t ack, std::uint32_t len = 0) {
  replay::Segment s;
  s.frame = 0;
  s.time = at_us(t_us);
  const replay::Endpoint client{wire::IpAddress::v4(198, 18, 0, 1), cport};
  const replay::Endpoint server{wire::IpAddress::v4(198, 18, 0, 2), 5001};
  s.src = from_client ? client : server;
  s.dst = from_client ? server : client;
  s.tcp.src_port = s.src.port;
  s.tcp.dst_port = s.dst.port;
  s.tcp.seq = seq;
  s.tcp.ack = ack;
  s.tcp.flags = flags;
  s.tcp.window = 65535;
  s.payload_len = len;
  return s;
}

}  // namespace replaytest
