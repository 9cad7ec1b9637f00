// TCP inside tunnels: IP-in-IP, 6in4, 4in6, GRE (plain, key and
// sequence, Ethernet bridging, MPLS), ERSPAN type II and III, VXLAN, Geneve
// (with and without options), GTP-U (with and without the sequence field)
// and MPLS over Ethernet: the reader finds the innermost TCP segment. Each
// frame is built here byte by byte; the truth is twofold: the sequence
// number each frame was built with (1000 + its index) and tshark's reading
// of the same file, frame by frame (frame.number, tcp.seq_raw, tcp.srcport);
// and the virtual network of each frame (VLAN ids, VXLAN/Geneve VNI, NVGRE
// VSID; none of the path ids) against tshark's vlan.id, vxlan.vni,
// geneve.vni and gre.key.
#include "reader_capture_builder.hpp"

#include <array>
#include <sstream>

#include <replay/input/decode_frame.hpp>
#include <replay/report/wireshark_ref.hpp>

#include "common/command.hpp"

using namespace readertest;

namespace {

Bytes outer_ipv4(std::uint8_t proto, const Bytes& payload) {
  wire::Ipv4Header h;
  h.protocol = proto;
  h.src = {10, 0, 0, 1};
  h.dst = {10, 0, 0, 2};
  Bytes b(20);
  REQUIRE(wire::ok(wire::encode_ipv4(h, payload.size(), b)));
  append(b, payload);
  return b;
}

Bytes outer_ipv6(std::uint8_t next, const Bytes& payload) {
  wire::Ipv6Header h;
  h.next_header = next;
  h.payload_len = static_cast<std::uint16_t>(payload.size());
  h.src[0] = 0xfd;
  h.src[15] = 1;
  h.dst[0] = 0xfd;
  h.dst[15] = 2;
  Bytes b(40);
  REQUIRE(wire::ok(wire::encode_ipv6(h, b)));
  append(b, payload);
  return b;
}

// IPv6 + a 20-byte TCP header (fd00::11 -> fd00::12, port 40000 -> 5001).
Bytes ipv6_tcp(std::uint32_t seq) {
  wire::TcpHeader t;
  t.src_port = 40000;
  t.dst_port = 5001;
  t.seq = seq;
  t.flags = wire::kAck;
  t.window = 1000;
  Bytes tcp(20);
  REQUIRE(wire::ok(wire::encode_tcp(t, tcp)));
  wire::Ipv6Header h;
  h.payload_len = 20;
  h.src[0] = 0xfd;
  h.src[15] = 0x11;
  h.dst[0] = 0xfd;
  h.dst[15] = 0x12;
  Bytes b(40);
  REQUIRE(wire::ok(wire::encode_ipv6(h, b)));
  append(b, tcp);
  return b;
}

Bytes udp(std::uint16_t sport, std::uint16_t dport, const Bytes& payload) {
  Bytes b;
  put16be(b, sport);
  put16be(b, dport);
  put16be(b, static_cast<std::uint16_t>(8 + payload.size()));
  put16be(b, 0);  // no checksum (IPv4)
  append(b, payload);
  return b;
}

// GRE (RFC 2784/2890): flags word, protocol type, then the optional words given.
Bytes gre(std::uint16_t flags, std::uint16_t type, const std::vector<std::uint32_t>& words, const Bytes& payload) {
  Bytes b;
  put16be(b, flags);
  put16be(b, type);
  for (std::uint32_t w : words) put32be(b, w);
  append(b, payload);
  return b;
}

Bytes mpls_label(std::uint32_t label, bool bottom) {
  Bytes b;
  put32be(b, (label << 12) | (bottom ? 0x100u : 0u) | 64u);  // label, TC 0, S, TTL 64
  return b;
}

Bytes cat(Bytes a, const Bytes& b) {
  append(a, b);
  return a;
}

struct Row {
  std::uint64_t frame;
  std::uint32_t seq;
  std::uint16_t sport;
};

std::vector<Row> tshark_tcp(const std::string& path, bool& ran) {
  const std::string cmd = "tshark -n -r '" + path +
                          "' -Y tcp -T fields -E separator=/t -e frame.number -e tcp.seq_raw -e tcp.srcport 2>/dev/null";
  std::vector<Row> rows;
  FILE* p = ::popen(cmd.c_str(), "r");
  ran = p != nullptr;
  if (p == nullptr) return rows;
  char line[512];
  while (std::fgets(line, sizeof line, p) != nullptr) {
    std::istringstream in(line);
    std::string f, s, sp;
    std::getline(in, f, '\t');
    std::getline(in, s, '\t');
    std::getline(in, sp, '\t');
    if (s.empty()) continue;
    rows.push_back({std::stoull(f), static_cast<std::uint32_t>(std::stoul(s)),
                    static_cast<std::uint16_t>(std::stoul(sp))});
  }
  ::pclose(p);
  return rows;
}

bool have_tshark() { return std::system("tshark -v >/dev/null 2>&1") == 0; }

}  // namespace

TEST_CASE("tunnels: the innermost TCP of every tunnel kind, frame for frame with tshark") {
  std::vector<std::pair<std::string, Bytes>> frames;  // (kind, Ethernet frame); inner seq = 1000 + index
  auto inner = [&]() { return ipv4_tcp(false, 1000 + static_cast<std::uint32_t>(frames.size()), 0, wire::kAck, 0); };
  auto inner_eth = [&]() { return ether(0x0800, inner()); };
  frames.emplace_back("IPv4 in IPv4", ether(0x0800, outer_ipv4(4, inner())));
  frames.emplace_back("IPv4 in IPv6 (4in6)", ether(0x86DD, outer_ipv6(4, inner())));
  frames.emplace_back("IPv6 in IPv4 (6in4)",
                      ether(0x0800, outer_ipv4(41, ipv6_tcp(1000 + static_cast<std::uint32_t>(frames.size())))));
  frames.emplace_back("GRE", ether(0x0800, outer_ipv4(47, gre(0, 0x0800, {}, inner()))));
  frames.emplace_back("GRE key + sequence", ether(0x0800, outer_ipv4(47, gre(0x3000, 0x0800, {77, 5}, inner()))));
  frames.emplace_back("GRE checksum, over IPv6", ether(0x86DD, outer_ipv6(47, gre(0x8000, 0x0800, {0}, inner()))));
  frames.emplace_back("GRE Ethernet bridging", ether(0x0800, outer_ipv4(47, gre(0, 0x6558, {}, inner_eth()))));
  frames.emplace_back("GRE MPLS", ether(0x0800, outer_ipv4(47, gre(0, 0x8847, {}, cat(mpls_label(16, true), inner())))));
  // ERSPAN type II: GRE with S, 8-byte header: version 1, VLAN 0, session 7; index 0.
  frames.emplace_back("ERSPAN II", ether(0x0800, outer_ipv4(47, gre(0x1000, 0x88BE, {1},
                                                                    cat(Bytes{0x10, 0x00, 0x00, 0x07, 0, 0, 0, 0},
                                                                        inner_eth())))));
  // ERSPAN type III: version 2, session 7, timestamp, SGT 0, P 0, FT 0 (Ethernet), O 0.
  frames.emplace_back("ERSPAN III", ether(0x0800, outer_ipv4(47, gre(0x1000, 0x22EB, {2},
                                                                     cat(Bytes{0x20, 0x00, 0x00, 0x07, 0, 0, 0, 1, 0, 0, 0, 0},
                                                                         inner_eth())))));
  frames.emplace_back("ERSPAN II, VLAN-tagged inside",
                      ether(0x0800, outer_ipv4(47, gre(0x1000, 0x88BE, {3},
                                                       cat(Bytes{0x10, 0x00, 0x00, 0x07, 0, 0, 0, 0},
                                                           ether(0x0800, inner(), {0x8100}))))));
  // VXLAN: flags I, VNI 100.
  frames.emplace_back("VXLAN", ether(0x0800, outer_ipv4(17, udp(54321, 4789, cat(Bytes{0x08, 0, 0, 0, 0, 0, 100, 0},
                                                                                  inner_eth())))));
  // Geneve: version 0, no options, protocol 0x6558 (Ethernet), VNI 100.
  frames.emplace_back("Geneve", ether(0x0800, outer_ipv4(17, udp(54321, 6081, cat(Bytes{0x00, 0x00, 0x65, 0x58, 0, 0, 100, 0},
                                                                                   inner_eth())))));
  // Geneve with one 8-byte option (opt len 2 words: class 0x0102, type 3, length 1 word), IPv4 inside.
  frames.emplace_back("Geneve, option, IPv4 inside",
                      ether(0x0800, outer_ipv4(17, udp(54321, 6081, cat(Bytes{0x02, 0x00, 0x08, 0x00, 0, 0, 100, 0, 0x01,
                                                                              0x02, 0x03, 0x01, 0xAA, 0xBB, 0xCC, 0xDD},
                                                                        inner())))));
  {
    // GTP-U: version 1, PT 1, G-PDU (0xFF), length = the inner packet, TEID 1.
    const Bytes in = inner();
    Bytes h{0x30, 0xFF};
    put16be(h, static_cast<std::uint16_t>(in.size()));
    put32be(h, 1);
    frames.emplace_back("GTP-U", ether(0x0800, outer_ipv4(17, udp(2152, 2152, cat(h, in)))));
  }
  {
    // GTP-U with S: sequence 9, N-PDU 0, no extension (4 more bytes, counted in the length).
    const Bytes in = inner();
    Bytes h{0x32, 0xFF};
    put16be(h, static_cast<std::uint16_t>(in.size() + 4));
    put32be(h, 1);
    append(h, Bytes{0, 9, 0, 0});
    frames.emplace_back("GTP-U with sequence", ether(0x0800, outer_ipv4(17, udp(2152, 2152, cat(h, in)))));
  }
  frames.emplace_back("MPLS, two labels", ether(0x8847, cat(cat(mpls_label(100, false), mpls_label(200, true)), inner())));

  std::vector<Record> recs;
  for (std::size_t i = 0; i < frames.size(); ++i) recs.push_back({1, static_cast<std::uint32_t>(i), frames[i].second});
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 1, recs), "tunnels.pcap");
  const ReadResult r = read_all(path);
  CHECK(r.diagnostics.empty());
  REQUIRE(r.segments.size() == frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    CAPTURE(frames[i].first);
    CHECK(r.segments[i].frame == i + 1);
    CHECK(r.segments[i].tcp.seq == 1000 + i);
    CHECK(r.segments[i].src.port == 40000);
  }
  if (!have_tshark()) {
    if (std::getenv("CI")) FAIL("tshark is missing (CI=true)");
    MESSAGE("tshark is missing: the comparison with it is skipped");
    return;
  }
  bool ran = false;
  const auto rows = tshark_tcp(path, ran);
  REQUIRE(ran);
  REQUIRE(rows.size() == r.segments.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(frames[i].first);
    CHECK(rows[i].frame == r.segments[i].frame);
    CHECK(rows[i].seq == r.segments[i].tcp.seq);
    CHECK(rows[i].sport == r.segments[i].src.port);
  }
}

TEST_CASE("tunnels: a cut tunnel header is malformed, named by its field; plain UDP is not TCP") {
  // GRE with K and S announced but only the 4-byte base header captured.
  const Bytes cut_gre = ether(0x0800, outer_ipv4(47, Bytes{0x30, 0x00, 0x08, 0x00}));
  // VXLAN header of 4 bytes.
  const Bytes cut_vxlan = ether(0x0800, outer_ipv4(17, udp(1, 4789, Bytes{0x08, 0, 0, 0})));
  // UDP to another port.
  const Bytes plain_udp = ether(0x0800, outer_ipv4(17, udp(1, 53, Bytes{1, 2, 3, 4})));
  const ReadResult r =
      read_all(write_temp(pcap_file(0xA1B2C3D4, 1, {{1, 0, cut_gre}, {1, 1, cut_vxlan}, {1, 2, plain_udp}}), "cut.pcap"));
  CHECK(r.segments.empty());
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(r.diagnostics[0].frame == 1);
  CHECK(r.diagnostics[0].field == "gre");
  CHECK(r.diagnostics[0].message.find("12 bytes, only 4") != std::string::npos);  // 4 + key 4 + sequence 4
  CHECK(r.diagnostics[1].frame == 2);
  CHECK(r.diagnostics[1].field == "vxlan");
  CHECK(r.stats.non_tcp == 1);
  CHECK(r.stats.malformed == 2);
}

TEST_CASE("tunnels: nesting deeper than kMaxTunnelLayers is not followed") {
  Bytes p = ipv4_tcp(false, 1, 0, wire::kAck, 0);
  for (int i = 0; i < replay::kMaxTunnelLayers; ++i) p = outer_ipv4(4, p);  // 8 IPv4-in-IPv4 layers + the inner packet
  Bytes q = ipv4_tcp(false, 1, 0, wire::kAck, 0);
  for (int i = 0; i < replay::kMaxTunnelLayers - 1; ++i) q = outer_ipv4(4, q);  // 7 layers: followed
  const ReadResult r = read_all(write_temp(pcap_file(0xA1B2C3D4, 228, {{1, 0, p}, {1, 1, q}}), "deep.pcap"));
  REQUIRE(r.segments.size() == 1);
  CHECK(r.segments[0].frame == 2);
  CHECK(r.stats.non_tcp == 1);
}

namespace {
// tshark's VLAN ids, VXLAN VNIs, Geneve VNIs and GRE keys of every TCP frame
// of `path`, each field's values comma-separated as tshark prints them.
std::vector<std::array<std::string, 5>> tshark_vnet_fields(const std::string& path, bool& ran) {
  const std::string cmd = "tshark -n -r '" + path +
                          "' -Y tcp -T fields -E separator=/t -e vlan.id -e vxlan.vni -e geneve.vni -e gre.key "
                          "-e ieee8021ad.id 2>/dev/null";
  std::vector<std::array<std::string, 5>> rows;
  FILE* p = ::popen(cmd.c_str(), "r");
  ran = p != nullptr;
  if (p == nullptr) return rows;
  char line[1024];
  while (std::fgets(line, sizeof line, p) != nullptr) {
    std::string l(line);
    if (!l.empty() && l.back() == '\n') l.pop_back();
    std::istringstream in(l);
    std::array<std::string, 5> row;
    for (auto& f : row) std::getline(in, f, '\t');
    rows.push_back(row);
  }
  ::pclose(p);
  return rows;
}

// A list of ids as tshark prints a field ("100,101", "0x000009"), as numbers;
// VLAN id 0 (a priority tag: no VLAN) left out.
std::vector<std::uint32_t> ids_of(const std::string& list) {
  std::vector<std::uint32_t> out;
  std::string item;
  std::istringstream in(list);
  while (std::getline(in, item, ','))
    if (!item.empty() && std::stoul(item, nullptr, 0) != 0) out.push_back(static_cast<std::uint32_t>(std::stoul(item, nullptr, 0)));
  return out;
}
}  // namespace

TEST_CASE("tunnels: a frame's virtual network: its VLAN ids and VXLAN, Geneve and NVGRE network ids, not path ids") {
  // (kind, frame, the VirtualNetwork text expected). VLAN ids from ether():
  // 100, 101, ... per tag; the VXLAN VNI 5001 (0x001389), Geneve VNI 9,
  // NVGRE key 0x00002A07 (VSID 42, FlowID 7).
  struct Case {
    std::string kind;
    Bytes frame;
    std::string vnet;
  };
  auto inner = [] { return ipv4_tcp(false, 1000, 0, wire::kAck, 0); };
  auto inner_eth = [&] { return ether(0x0800, inner()); };
  Bytes priority_tag{0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x81, 0x00, 0xA0, 0x00, 0x08, 0x00};  // PCP 5, VID 0
  append(priority_tag, inner());
  Bytes gtp{0x30, 0xFF};
  put16be(gtp, static_cast<std::uint16_t>(inner().size()));
  put32be(gtp, 0x1234);  // TEID
  append(gtp, inner());
  const std::vector<Case> cases = {
      {"untagged", ether(0x0800, inner()), ""},
      {"802.1Q", ether(0x0800, inner(), {0x8100}), "vlan 100"},
      {"QinQ (802.1ad + 802.1Q)", ether(0x0800, inner(), {0x88A8, 0x8100}), "svlan 100/vlan 101"},
      {"two 802.1Q tags", ether(0x0800, inner(), {0x8100, 0x8100}), "vlan 100/vlan 101"},
      {"priority tag (VLAN id 0)", priority_tag, ""},
      {"VXLAN in a VLAN, a tagged frame inside",
       ether(0x0800, outer_ipv4(17, udp(54321, 4789, cat(Bytes{0x08, 0, 0, 0, 0x00, 0x13, 0x89, 0},
                                                        ether(0x0800, inner(), {0x8100})))),
             {0x8100}),
       "vlan 100/vxlan 5001/vlan 100"},
      {"Geneve", ether(0x0800, outer_ipv4(17, udp(54321, 6081, cat(Bytes{0, 0, 0x65, 0x58, 0, 0, 9, 0}, inner_eth())))),
       "geneve 9"},
      {"NVGRE", ether(0x0800, outer_ipv4(47, gre(0x2000, 0x6558, {0x00002A07}, inner_eth()))), "nvgre 42"},
      {"GRE key, IP inside (a tunnel's key, not a network)", ether(0x0800, outer_ipv4(47, gre(0x2000, 0x0800, {77}, inner()))), ""},
      {"GTP-U (a TEID per direction)", ether(0x0800, outer_ipv4(17, udp(2152, 2152, gtp))), ""},
      {"MPLS (labels per hop)", ether(0x8847, cat(cat(mpls_label(100, false), mpls_label(200, true)), inner())), ""},
      {"IPv4 in IPv4 (outer addresses: a route)", ether(0x0800, outer_ipv4(4, inner())), ""},
  };
  std::vector<Record> recs;
  for (std::size_t i = 0; i < cases.size(); ++i) recs.push_back({1, static_cast<std::uint32_t>(i), cases[i].frame});
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 1, recs), "vnets.pcap");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(cases[i].kind);
    CHECK(replay::to_string(r.segments[i].vnet) == cases[i].vnet);
  }
  if (!have_tshark()) {
    if (std::getenv("CI")) FAIL("tshark is missing (CI=true)");
    MESSAGE("tshark is missing: the comparison with it is skipped");
    return;
  }
  // tshark reads the same ids: every VLAN id but 0 (802.1ad service tags in
  // ieee8021ad.id), the VNIs, and for NVGRE the key whose upper 24 bits are
  // the VSID.
  bool ran = false;
  const auto rows = tshark_vnet_fields(path, ran);
  REQUIRE(ran);
  REQUIRE(rows.size() == r.segments.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(cases[i].kind);
    const replay::VirtualNetwork& v = r.segments[i].vnet;
    std::vector<std::uint32_t> vlans, svlans, vxlan, geneve, nvgre;
    for (std::size_t k = 0; k < v.count; ++k) {
      switch (v.kind(k)) {
        case replay::VirtualNetwork::Kind::vlan: vlans.push_back(v.id(k)); break;
        case replay::VirtualNetwork::Kind::svlan: svlans.push_back(v.id(k)); break;
        case replay::VirtualNetwork::Kind::vxlan: vxlan.push_back(v.id(k)); break;
        case replay::VirtualNetwork::Kind::geneve: geneve.push_back(v.id(k)); break;
        case replay::VirtualNetwork::Kind::nvgre: nvgre.push_back(v.id(k)); break;
      }
    }
    CHECK(vlans == ids_of(rows[i][0]));
    CHECK(svlans == ids_of(rows[i][4]));
    CHECK(vxlan == ids_of(rows[i][1]));
    CHECK(geneve == ids_of(rows[i][2]));
    if (!nvgre.empty()) CHECK(std::vector<std::uint32_t>{(nvgre.front() << 8) | 7} == ids_of(rows[i][3]));
    // The display filter the report names for this virtual network selects
    // this frame in Wireshark (so its fields are Wireshark's own).
    const std::string filter = replay::vnet_filter(v);
    CAPTURE(filter);
    const auto shown = testcommon::run_command("tshark -n -r '" + path + "' -Y 'frame.number == " +
                                               std::to_string(i + 1) + " && (" + filter +
                                               ")' -T fields -e frame.number 2>/dev/null");
    CHECK(shown.output == std::to_string(i + 1) + "\n");
  }
}
