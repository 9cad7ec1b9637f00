#pragma once
// Test helpers for the capture-reader tests: build pcap / pcapng files and
// link-layer frames by hand (so the bytes under test are spelled out here,
// not produced by the code under test), write them to temp files, read them
// back through replay::CaptureReader, and locate ../shared.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <wire/ip.hpp>
#include <wire/tcp.hpp>

#include <replay/input/capture_reader.hpp>
#include "common/paths.hpp"
#include "common/pcap_file.hpp"

namespace readertest {

using testcommon::Bytes;

using testcommon::append;
using testcommon::pcap_file;
using testcommon::put16be;
using testcommon::put16le;
using testcommon::put32be;
using testcommon::put32le;
using testcommon::Record;

/// One pcapng Enhanced Packet Block's content: a 64-bit timestamp in its
/// interface's if_tsresol units.
struct NgPacket {
  std::uint64_t ts = 0;
  Bytes data;
  std::uint32_t interface = 0;  ///< index of the IDB it was captured on
  std::uint32_t orig_len = 0;   ///< original length on the wire; 0 = data.size()
};

/// A little-endian pcapng file: SHB, one IDB (with an if_tsresol option when
/// given), then one EPB per packet (pcapng spec, draft-ietf-opsawg-pcapng).
inline Bytes pcapng_file(std::uint16_t linktype, const std::vector<std::optional<std::uint8_t>>& interfaces,
                         const std::vector<NgPacket>& pkts) {
  Bytes f;
  // Section Header Block: type, length 28, byte-order magic, version 1.0, section length -1, length.
  put32le(f, 0x0A0D0D0A);
  put32le(f, 28);
  put32le(f, 0x1A2B3C4D);
  put16le(f, 1);
  put16le(f, 0);
  put32le(f, 0xFFFFFFFF);
  put32le(f, 0xFFFFFFFF);
  put32le(f, 28);
  // One Interface Description Block per interface.
  for (const std::optional<std::uint8_t>& tsresol : interfaces) {
    Bytes idb;
    put16le(idb, linktype);
    put16le(idb, 0);       // reserved
    put32le(idb, 262144);  // snaplen
    if (tsresol) {
      put16le(idb, 9);  // if_tsresol
      put16le(idb, 1);
      idb.push_back(*tsresol);
      idb.push_back(0); idb.push_back(0); idb.push_back(0);  // pad to 32 bits
      put16le(idb, 0);  // opt_endofopt
      put16le(idb, 0);
    }
    put32le(f, 1);
    put32le(f, static_cast<std::uint32_t>(12 + idb.size()));
    append(f, idb);
    put32le(f, static_cast<std::uint32_t>(12 + idb.size()));
  }
  for (const NgPacket& p : pkts) {
    const std::size_t padded = (p.data.size() + 3) / 4 * 4;
    const auto len = static_cast<std::uint32_t>(32 + padded);
    put32le(f, 6);  // EPB
    put32le(f, len);
    put32le(f, p.interface);
    put32le(f, static_cast<std::uint32_t>(p.ts >> 32));
    put32le(f, static_cast<std::uint32_t>(p.ts));
    put32le(f, static_cast<std::uint32_t>(p.data.size()));
    put32le(f, p.orig_len != 0 ? p.orig_len : static_cast<std::uint32_t>(p.data.size()));
    append(f, p.data);
    f.resize(f.size() + (padded - p.data.size()), 0);
    put32le(f, len);
  }
  return f;
}

/// Removes the temp files written by write_temp when the test binary exits.
struct TempFiles {
  std::vector<std::filesystem::path> paths;
  ~TempFiles() {
    std::error_code ec;
    for (const auto& p : paths) std::filesystem::remove(p, ec);
  }
};
inline TempFiles& temp_files() {
  static TempFiles t;
  return t;
}

/// Writes `bytes` to a fresh file in the temp directory (removed at exit); returns its path.
inline std::string write_temp(const Bytes& bytes, const std::string& name) {
  static int counter = 0;
  const auto path = std::filesystem::temp_directory_path() /
                    ("rto-reader-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-" + name);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  temp_files().paths.push_back(path);
  return path.string();
}

/// An IPv4 + TCP packet 198.18.0.1:40000 -> 198.18.0.2:5001 (or reversed),
/// with payload_len zero bytes of data, checksums filled.
inline Bytes ipv4_tcp(bool reverse, std::uint32_t seq, std::uint32_t ack, std::uint8_t flags,
                      std::size_t payload_len, std::optional<std::uint32_t> tsval = std::nullopt) {
  wire::TcpHeader t;
  t.src_port = reverse ? 5001 : 40000;
  t.dst_port = reverse ? 40000 : 5001;
  t.seq = seq;
  t.ack = ack;
  t.flags = flags;
  t.window = 1000;
  if (tsval) {
    t.options.tsval = *tsval;
    t.options.tsecr = 0;
  }
  wire::Ipv4Header ip;
  ip.src = {198, 18, 0, static_cast<std::uint8_t>(reverse ? 2 : 1)};
  ip.dst = {198, 18, 0, static_cast<std::uint8_t>(reverse ? 1 : 2)};
  Bytes b(20 + 60 + payload_len, 0);
  const std::size_t tl = wire::tcp_options_len(t.options) + 20;
  auto iph = wire::encode_ipv4(ip, tl + payload_len, b);
  REQUIRE(wire::ok(iph));
  auto th = wire::encode_tcp(t, std::span(b).subspan(20));
  REQUIRE(wire::ok(th));
  b.resize(20 + tl + payload_len);
  wire::fill_tcp_checksum_v4(ip.src, ip.dst, std::span(b).subspan(20));
  return b;
}

/// Ethernet II frame carrying `payload` with ethertype `type`, after the given
/// VLAN tags (each a TPID: 0x8100 or 0x88A8), VLAN ids 100, 101, ...
inline Bytes ether(std::uint16_t type, const Bytes& payload, const std::vector<std::uint16_t>& tags = {}) {
  Bytes f{0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01};
  std::uint16_t vid = 100;
  for (std::uint16_t tpid : tags) {
    put16be(f, tpid);
    put16be(f, vid++);
  }
  put16be(f, type);
  append(f, payload);
  return f;
}

/// Linux cooked v1 (LINUX_SLL, 16 bytes): packet type, ARPHRD 1, address length 6, address, protocol.
inline Bytes sll(std::uint16_t proto, const Bytes& payload) {
  Bytes f;
  put16be(f, 4);  // sent by us
  put16be(f, 1);  // ARPHRD_ETHER
  put16be(f, 6);
  append(f, Bytes{0x02, 0, 0, 0, 0, 0x01, 0, 0});
  put16be(f, proto);
  append(f, payload);
  return f;
}

/// Linux cooked v2 (LINUX_SLL2, 20 bytes): protocol, reserved, ifindex, ARPHRD, packet type, addr len, addr.
inline Bytes sll2(std::uint16_t proto, const Bytes& payload) {
  Bytes f;
  put16be(f, proto);
  put16be(f, 0);
  put32be(f, 2);  // ifindex
  put16be(f, 1);  // ARPHRD_ETHER
  f.push_back(4); // outgoing
  f.push_back(6);
  append(f, Bytes{0x02, 0, 0, 0, 0, 0x01, 0, 0});
  append(f, payload);
  return f;
}

/// Everything a reader yields for one file.
struct ReadResult {
  std::vector<replay::Segment> segments;
  std::vector<replay::Diagnostic> diagnostics;
  replay::CaptureStats stats;
};

/// Opens and reads `path` to the end; fails the test when it cannot be opened.
inline ReadResult read_all(const std::string& path, const std::string& bpf = "") {
  auto r = replay::CaptureReader::open(path, 3, bpf);
  if (auto* e = std::get_if<std::string>(&r)) {
    FAIL("cannot open " << path << ": " << *e);
  }
  auto& rd = std::get<replay::CaptureReader>(r);
  ReadResult out;
  while (auto s = rd.next()) out.segments.push_back(*s);
  out.diagnostics = rd.diagnostics();
  out.stats = rd.stats();
  return out;
}

/// The open() error for `path` (empty when it opened).
inline std::string open_error(const std::string& path, const std::string& bpf = "") {
  auto r = replay::CaptureReader::open(path, 0, bpf);
  if (auto* e = std::get_if<std::string>(&r)) return *e;
  return "";
}

using testcommon::shared_dir;

/// Nanoseconds since the epoch of a segment.
inline std::int64_t ns(const replay::Segment& s) { return s.time.time_since_epoch().count(); }

}  // namespace readertest
