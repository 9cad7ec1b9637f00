#pragma once
// Hand-made Ethernet captures for the connection-identity tests: every frame
// spelled out (VLAN tags, IPv4 or IPv6, IPv4 ID, TTL and TOS, TCP with
// absolute sequence numbers and a TSval option), checksums filled, so two
// frames are byte-identical exactly when the test says so.

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <wire/ip.hpp>
#include <wire/tcp.hpp>

#include "common/command.hpp"
#include "common/pcap_file.hpp"

namespace identitytest {

using testcommon::Bytes;

/// One frame. Client 198.18.0.1:40000 (fd00::1), server 198.18.0.2:5001
/// (fd00::2); sequence numbers are absolute.
struct Frame {
  std::int64_t t_us = 0;               ///< since the capture's start
  std::vector<std::uint16_t> vlans;    ///< 802.1Q tags, outermost first (none: untagged)
  bool from_client = true;
  std::uint32_t seq = 0, ack = 0;
  std::uint8_t flags = wire::kAck;
  std::uint32_t len = 0;               ///< payload bytes (zeros)
  std::optional<std::uint32_t> tsval;  ///< RFC 7323 timestamps (TSecr below)
  std::uint32_t tsecr = 0;
  std::uint16_t ip_id = 0;             ///< IPv4 Identification (DF is always set)
  std::uint8_t ttl = 64;               ///< IPv4 TTL / IPv6 hop limit
  std::uint8_t tos = 0;                ///< IPv4 TOS (ECN: 2 is ECT(0))
};

/// A capture of frames, classic pcap with microsecond times, LINKTYPE_ETHERNET.
struct Capture {
  bool v6 = false;
  std::int64_t epoch_s = 1'700'000'000;
  std::vector<Frame> frames;

  Frame& add(Frame f) {
    frames.push_back(std::move(f));
    return frames.back();
  }

  Bytes ip_packet(const Frame& f) const {
    wire::TcpHeader t;
    t.src_port = f.from_client ? 40000 : 5001;
    t.dst_port = f.from_client ? 5001 : 40000;
    t.seq = f.seq;
    t.ack = f.ack;
    t.flags = f.flags;
    t.window = 65535;
    if (f.tsval) {
      t.options.tsval = *f.tsval;
      t.options.tsecr = f.tsecr;
    }
    const std::size_t tl = wire::tcp_options_len(t.options) + 20;
    Bytes tcp(tl + f.len, 0);
    REQUIRE(wire::ok(wire::encode_tcp(t, tcp)));
    if (!v6) {
      wire::Ipv4Header ip;
      ip.id = f.ip_id;
      ip.df = true;
      ip.ttl = f.ttl;
      ip.tos = f.tos;
      ip.src = {198, 18, 0, static_cast<std::uint8_t>(f.from_client ? 1 : 2)};
      ip.dst = {198, 18, 0, static_cast<std::uint8_t>(f.from_client ? 2 : 1)};
      wire::fill_tcp_checksum_v4(ip.src, ip.dst, tcp);
      Bytes b(20);
      REQUIRE(wire::ok(wire::encode_ipv4(ip, tcp.size(), b)));
      testcommon::append(b, tcp);
      return b;
    }
    wire::Ipv6Header ip;
    ip.payload_len = static_cast<std::uint16_t>(tcp.size());
    ip.hop_limit = f.ttl;
    ip.src[0] = ip.dst[0] = 0xfd;
    ip.src[15] = f.from_client ? 1 : 2;
    ip.dst[15] = f.from_client ? 2 : 1;
    wire::fill_tcp_checksum_v6(ip.src, ip.dst, tcp);
    Bytes b(40);
    REQUIRE(wire::ok(wire::encode_ipv6(ip, b)));
    testcommon::append(b, tcp);
    return b;
  }

  Bytes ethernet(const Frame& f) const {
    Bytes e{0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01};
    for (std::uint16_t vid : f.vlans) {
      testcommon::put16be(e, 0x8100);
      testcommon::put16be(e, vid);  // priority 0, DEI 0, the VLAN id
    }
    testcommon::put16be(e, v6 ? 0x86DD : 0x0800);
    testcommon::append(e, ip_packet(f));
    return e;
  }

  std::string write(const std::string& name) const {
    std::vector<testcommon::Record> recs;
    for (const Frame& f : frames)
      recs.push_back({static_cast<std::uint32_t>(epoch_s + f.t_us / 1'000'000),
                      static_cast<std::uint32_t>(f.t_us % 1'000'000), ethernet(f), 0});
    static int counter = 0;
    const auto path = std::filesystem::temp_directory_path() /
                      ("rto-identity-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-" + name +
                       ".pcap");
    const Bytes b = testcommon::pcap_file(testcommon::kPcapMagicMicros, 1, recs);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    return path.string();
  }
};

/// tshark's tcp.stream of every TCP frame of `path` (frame number -> stream);
/// empty when tshark cannot run.
inline std::map<std::uint64_t, std::uint64_t> tshark_streams(const std::string& path) {
  std::map<std::uint64_t, std::uint64_t> out;
  const auto r = testcommon::run_command("tshark -n -r '" + path + "' -Y tcp -T fields -e frame.number -e tcp.stream 2>/dev/null");
  std::istringstream in(r.output);
  std::uint64_t frame = 0, stream = 0;
  while (in >> frame >> stream) out[frame] = stream;
  return out;
}

}  // namespace identitytest
