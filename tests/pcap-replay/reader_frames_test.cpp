// Capture reader: IPv6 with extension headers behind VLAN tags, NULL/LOOP
// IPv6 families, skipping and counting of non-TCP frames and non-first
// fragments, diagnostics for malformed frames and truncated files, BPF
// filters that keep Wireshark's frame numbers, standard input, open errors.
#include "reader_capture_builder.hpp"

#include <fcntl.h>

using namespace readertest;

namespace {

// IPv6 fd00::1 -> fd00::2 + HBH (8) + DST (16) + TCP (20 + 12 TS) + `payload` bytes
// (only the headers are included in the returned bytes: a 128-byte-snaplen-like cut).
Bytes ipv6_ext_tcp(std::uint32_t seq, std::size_t payload, std::uint32_t flow_label) {
  wire::TcpHeader t;
  t.src_port = 40000;
  t.dst_port = 5001;
  t.seq = seq;
  t.flags = wire::kAck;
  t.options.tsval = 77;
  t.options.tsecr = 66;
  Bytes tcp(32);
  REQUIRE(wire::ok(wire::encode_tcp(t, tcp)));
  wire::Ipv6Header h;
  h.next_header = wire::kProtoHopByHop;
  h.payload_len = static_cast<std::uint16_t>(8 + 16 + 32 + payload);
  h.flow_label = flow_label;
  h.src[0] = h.dst[0] = 0xfd;
  h.src[15] = 1;
  h.dst[15] = 2;
  Bytes b(40);
  REQUIRE(wire::ok(wire::encode_ipv6(h, b)));
  append(b, Bytes{wire::kProtoDestOpts, 0, 1, 4, 0, 0, 0, 0});
  Bytes dst(16, 0);
  dst[0] = wire::kProtoTcp;
  dst[1] = 1;
  append(b, dst);
  append(b, tcp);
  return b;
}

Bytes udp_packet() {
  Bytes b = ipv4_tcp(false, 0, 0, 0, 8);
  b[9] = wire::kProtoUdp;
  return b;
}

}  // namespace

TEST_CASE("reader: IPv6 with hop-by-hop and destination options behind 802.1ad + 802.1Q tags") {
  const Bytes ip = ipv6_ext_tcp(0xFFFFFFF0, 1428, 0xBEEF1);
  const Bytes frame = ether(0x86DD, ip, {0x88A8, 0x8100});
  // Captured: the headers only; on the wire: the whole 1428-byte payload too.
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 1, {{10, 5, frame, static_cast<std::uint32_t>(frame.size() + 1428)}}, 128),
                               "v6ext.pcap");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 1);
  const replay::Segment& s = r.segments[0];
  CHECK(to_string(s.src) == "[fd00::1]:40000");
  CHECK(to_string(s.dst) == "[fd00::2]:5001");
  CHECK(s.src.address.is_v6());
  CHECK(s.tcp.seq == 0xFFFFFFF0u);
  CHECK(s.tcp.options.tsval == 77u);
  CHECK(s.tcp.options.tsecr == 66u);
  CHECK(s.payload_len == 1428u);  // from ipv6.plen - 24 extension bytes - 32 TCP header bytes
  CHECK(s.flow_label == 0xBEEF1u);
  CHECK(ns(s) == 10'000'005'000);
  CHECK(r.diagnostics.empty());
}

TEST_CASE("reader: IPV6 (229) and NULL/LOOP with the BSD AF_INET6 values 24, 28, 30") {
  const Bytes ip = ipv6_ext_tcp(5, 0, 0);
  CHECK(read_all(write_temp(pcap_file(0xA1B2C3D4, 229, {{1, 0, ip}}), "ipv6.pcap")).segments.size() == 1);
  for (std::uint32_t af : {24u, 28u, 30u}) {
    Bytes host;
    put32le(host, af);
    append(host, ip);
    Bytes net;
    put32be(net, af);
    append(net, ip);
    const ReadResult a = read_all(write_temp(pcap_file(0xA1B2C3D4, 0, {{1, 0, host}}), "null6.pcap"));
    const ReadResult b = read_all(write_temp(pcap_file(0xA1B2C3D4, 108, {{1, 0, net}}), "loop6.pcap"));
    REQUIRE(a.segments.size() == 1);
    REQUIRE(b.segments.size() == 1);
    CHECK(a.segments[0].src.address.is_v6());
    CHECK(b.segments[0].tcp.seq == 5u);
  }
}

TEST_CASE("reader: non-IP, non-TCP and non-first fragments are counted and skipped; numbering continues") {
  Bytes frag = ipv4_tcp(false, 9, 0, wire::kAck, 40);
  frag[6] = 0x00;
  frag[7] = 0x10;  // offset 16 * 8 = 128 bytes: no TCP header in this fragment
  Bytes arp = ether(0x0806, Bytes(28, 0));
  Bytes v6frag = ipv6_ext_tcp(1, 0, 0);
  v6frag[6] = wire::kProtoFragment;  // replace the chain by a non-first fragment header
  v6frag[40] = wire::kProtoTcp;
  v6frag[41] = 0;
  v6frag[42] = 0x00;
  v6frag[43] = 0x08;  // offset 1 (8 bytes)
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 1,
                                         {{1, 0, ether(0x0800, udp_packet())},
                                          {1, 1, arp},
                                          {1, 2, ether(0x0800, frag)},
                                          {1, 3, ether(0x86DD, v6frag)},
                                          {1, 4, ether(0x0800, ipv4_tcp(false, 42, 0, wire::kSyn, 0))}}),
                               "skips.pcap");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 1);
  CHECK(r.segments[0].frame == 5);
  CHECK(r.segments[0].tcp.seq == 42u);
  CHECK(r.stats.frames == 5);
  CHECK(r.stats.non_tcp == 1);
  CHECK(r.stats.non_ip == 1);
  CHECK(r.stats.fragments_skipped == 2);
  CHECK(r.stats.tcp_segments == 1);
  CHECK(r.diagnostics.empty());
}

TEST_CASE("reader: IPv4-in-IPv6 tunnel yields the inner addresses") {
  const Bytes inner = ipv4_tcp(false, 7, 0, wire::kSyn, 0);
  wire::Ipv6Header h;
  h.next_header = wire::kProtoIpv4;
  h.payload_len = static_cast<std::uint16_t>(inner.size());
  Bytes outer(40);
  REQUIRE(wire::ok(wire::encode_ipv6(h, outer)));
  append(outer, inner);
  const ReadResult r = read_all(write_temp(pcap_file(0xA1B2C3D4, 229, {{1, 0, outer}}), "tunnel.pcap"));
  REQUIRE(r.segments.size() == 1);
  CHECK(to_string(r.segments[0].src) == "198.18.0.1:40000");
  CHECK(r.segments[0].tcp.seq == 7u);
}

TEST_CASE("reader: malformed frames get a diagnostic naming file, frame and field; the rest is read") {
  Bytes short_ip = ether(0x0800, Bytes{0x45, 0x00, 0x00});  // 3 bytes of IPv4
  Bytes bad_off = ipv4_tcp(false, 1, 0, wire::kAck, 0);
  bad_off[20 + 12] = 0x30;  // TCP data offset 3
  Bytes long_opt = ipv4_tcp(false, 1, 0, wire::kAck, 0, 5u);  // NOP NOP TS
  long_opt[20 + 20 + 3] = 40;  // TS option length 40 runs past the 32-byte header
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 1,
                                         {{1, 0, short_ip},
                                          {1, 1, ether(0x0800, bad_off)},
                                          {1, 2, ether(0x0800, long_opt)},
                                          {1, 3, Bytes{0x02, 0x00}},
                                          {1, 4, ether(0x0800, ipv4_tcp(false, 99, 0, wire::kAck, 0))}}),
                               "malformed.pcap");
  const ReadResult r = read_all(path);
  REQUIRE(r.diagnostics.size() == 4);
  CHECK(r.diagnostics[0].file == path);
  CHECK(r.diagnostics[0].frame == 1);
  CHECK(r.diagnostics[0].field == "ip.hdr_len");
  CHECK(r.diagnostics[1].frame == 2);
  CHECK(r.diagnostics[1].field == "tcp.hdr_len");
  // A bad option is flagged but the segment is kept, as Wireshark does.
  CHECK(r.diagnostics[2].frame == 3);
  CHECK(r.diagnostics[2].field == "tcp.option.len");
  CHECK(r.diagnostics[3].frame == 4);
  CHECK(r.diagnostics[3].field == "eth");
  CHECK(to_string(r.diagnostics[3]) == path + ": frame 4: eth: an Ethernet header needs 14 bytes, only 2 captured");
  REQUIRE(r.segments.size() == 2);
  CHECK(r.segments[0].frame == 3);
  CHECK(r.segments[0].tcp_options_bad);
  CHECK(r.segments[1].frame == 5);
  CHECK(r.segments[1].tcp.seq == 99u);
  CHECK(r.stats.malformed == 3);
}

TEST_CASE("reader: snaplen-cut TCP options keep the segment, flagged; payload length from ip.len") {
  Bytes syn = ipv4_tcp(false, 1, 0, wire::kSyn, 0, 5u);  // 20 IP + 32 TCP
  Bytes cut(syn.begin(), syn.begin() + 20 + 26);        // TS option cut after 4 of its 10 bytes
  const Bytes frame = ether(0x0800, cut);
  const ReadResult r = read_all(
      write_temp(pcap_file(0xA1B2C3D4, 1, {{1, 0, frame, static_cast<std::uint32_t>(frame.size() + 6)}}, 60), "snap.pcap"));
  REQUIRE(r.segments.size() == 1);
  CHECK(r.segments[0].tcp_options_cut);
  CHECK(r.segments[0].payload_len == 0u);
  CHECK_FALSE(r.segments[0].tcp.options.tsval.has_value());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].field == "tcp.options");
}

TEST_CASE("reader: a truncated last record is reported at its frame and earlier frames are kept") {
  Bytes f = pcap_file(0xA1B2C3D4, 1,
                      {{1, 0, ether(0x0800, ipv4_tcp(false, 1, 0, wire::kSyn, 0))},
                       {1, 1, ether(0x0800, ipv4_tcp(true, 1, 2, wire::kSyn | wire::kAck, 0))},
                       {1, 2, ether(0x0800, ipv4_tcp(false, 2, 2, wire::kAck, 0))}});
  f.resize(f.size() - 10);  // the third record loses its last 10 bytes
  const auto path = write_temp(f, "trunc.pcap");
  const ReadResult r = read_all(path);
  CHECK(r.segments.size() == 2);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].frame == 3);
  CHECK(r.diagnostics[0].field == "pcap");
  CHECK(r.diagnostics[0].message.find("truncated") != std::string::npos);
  CHECK(r.stats.read_error);
}

TEST_CASE("reader: a BPF filter drops frames but keeps the file's frame numbers") {
  std::vector<Record> recs;
  for (std::uint32_t i = 0; i < 6; ++i) {
    recs.push_back({1, i, ether(0x0800, ipv4_tcp(i % 2 == 1, 100 + i, 0, wire::kAck, 0))});
  }
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 1, recs), "bpf.pcap");
  const ReadResult r = read_all(path, "src host 198.18.0.2");
  REQUIRE(r.segments.size() == 3);
  CHECK(r.segments[0].frame == 2);
  CHECK(r.segments[1].frame == 4);
  CHECK(r.segments[2].frame == 6);
  CHECK(r.segments[2].tcp.seq == 105u);
  CHECK(r.stats.filtered_out == 3);
  CHECK(r.stats.frames == 6);
  const std::string e = open_error(path, "src hots 1.2.3.4");
  CHECK(e.find(path) != std::string::npos);
  CHECK(e.find("src hots 1.2.3.4") != std::string::npos);
  CHECK(e.find("does not compile") != std::string::npos);
}

TEST_CASE("reader: \"-\" reads standard input and leaves it open") {
  const auto path = write_temp(pcap_file(0xA1B23C4D, 228, {{5, 7, ipv4_tcp(false, 3, 0, wire::kSyn, 0)}}), "stdin.pcap");
  const int saved = ::dup(0);
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  ::dup2(fd, 0);
  ::close(fd);
  auto opened = replay::CaptureReader::open("-", 1);
  ::dup2(saved, 0);  // the reader holds its own duplicate
  ::close(saved);
  REQUIRE(std::holds_alternative<replay::CaptureReader>(opened));
  auto& rd = std::get<replay::CaptureReader>(opened);
  auto s = rd.next();
  REQUIRE(s.has_value());
  CHECK(s->frame == 1);
  CHECK(s->file_index == 1);
  CHECK(ns(*s) == 5'000'000'007);
  CHECK_FALSE(rd.next().has_value());
  CHECK(rd.file() == "-");
}

TEST_CASE("reader: files libpcap cannot open give an error naming the file and libpcap's reason") {
  const std::string missing = "/nonexistent/dir/none.pcap";
  const std::string e = open_error(missing);
  CHECK(e.find(missing) != std::string::npos);
  CHECK(e.find("No such file") != std::string::npos);
  const auto garbage = write_temp(Bytes(100, 0x42), "garbage.pcap");
  const std::string g = open_error(garbage);
  CHECK(g.find(garbage) != std::string::npos);
  CHECK(g.find("unknown file format") != std::string::npos);
}

TEST_CASE("segment: to_string of endpoints (RFC 5952 text for IPv6)") {
  replay::Endpoint e;
  e.address.bytes = {192, 0, 2, 1};
  e.port = 80;
  CHECK(to_string(e) == "192.0.2.1:80");
  e.address.version = 6;
  e.address.bytes = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1};
  CHECK(to_string(e) == "[2001:db8::1:0:0:1]:80");  // the first of two equal zero runs
  e.address.bytes = {};
  CHECK(to_string(e) == "[::]:80");
  e.address.bytes[15] = 1;
  CHECK(to_string(e) == "[::1]:80");
  e.address.bytes = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(to_string(e) == "[fe80::]:80");
  e.address.bytes = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
  CHECK(to_string(e) == "[2001:db8:0:1:1:1:1:1]:80");  // a single zero group is not "::"
}

TEST_CASE("reader: an IP length beyond what the frame carried is capped, with an ip.len warning") {
  // PPPoE says 2 + 40 bytes, the IPv4 header says 46 (zeek pppoe-over-qinq frame 19):
  // the 6 bytes after the PPPoE packet are Ethernet padding, so TCP length 0, not 6.
  Bytes ip = ipv4_tcp(false, 1, 1, wire::kAck, 0);  // 40 bytes
  ip[3] = 46;
  Bytes p{0x11, 0x00, 0x00, 0x07};
  put16be(p, 42);
  put16be(p, 0x0021);
  append(p, ip);
  append(p, Bytes(6, 0));
  SUBCASE("PPPoE length") {
    const ReadResult r = read_all(write_temp(pcap_file(0xA1B2C3D4, 1, {{1, 0, ether(0x8864, p, {0x8100})}}), "pppoe-len.pcap"));
    REQUIRE(r.segments.size() == 1);
    CHECK(r.segments[0].payload_len == 0u);
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].field == "ip.len");
  }
  SUBCASE("original frame length shorter than the IP total length") {
    Bytes q = ipv4_tcp(false, 1, 1, wire::kAck, 0);
    q[3] = 140;  // claims 100 bytes of payload; the frame on the wire had none
    const ReadResult r = read_all(write_temp(pcap_file(0xA1B2C3D4, 228, {{1, 0, q}}), "short-wire.pcap"));
    REQUIRE(r.segments.size() == 1);
    CHECK(r.segments[0].payload_len == 0u);
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].field == "ip.len");
  }
  SUBCASE("snaplen cut is not a short frame: the IP length stands") {
    Bytes q = ipv4_tcp(false, 1, 1, wire::kAck, 100);
    const auto orig = static_cast<std::uint32_t>(q.size());
    q.resize(40);  // headers only captured
    const ReadResult r = read_all(write_temp(pcap_file(0xA1B2C3D4, 228, {{1, 0, q, orig}}, 40), "snap-ok.pcap"));
    REQUIRE(r.segments.size() == 1);
    CHECK(r.segments[0].payload_len == 100u);
    CHECK(r.diagnostics.empty());
  }
}
