// Connection identity as the wire shows it (analysis/flow_table.hpp, the
// capture-copy rule of thresholds.hpp): the virtual network (VLAN) in the
// connection's key, one datagram seen on several VLANs counted once, a new
// ISN as a new connection or another host, and tcp.stream still tshark's.
// Every capture is made here frame by frame (identity_capture.hpp) with the
// arithmetic in a comment; tshark numbers the same files' streams.

#include <doctest/doctest.h>

#include <sstream>
#include <utility>

#include <replay/analysis/thresholds.hpp>
#include <replay/report/timeline_csv.hpp>
#include <replay/report/wireshark_ref.hpp>

#include "common/tools.hpp"
#include "identity_capture.hpp"
#include "replay_scenario.hpp"

using identitytest::Capture;
using identitytest::Frame;
using replaytest::Profile;
using replaytest::findings;
using replaytest::musts;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

replay::Report analyze(const Capture& c, const std::string& name, std::string_view profile = Profile::rfc6298,
                       bool timeline = false) {
  const std::string path = c.write(name);
  replay::Report r = replaytest::analyze(path, profile, timeline);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return r;
}

std::size_t all_musts(const replay::Report& r) {
  std::size_t n = 0;
  for (const auto& f : r.flows) n += musts(f.senders[0]) + musts(f.senders[1]);
  return n;
}

std::vector<std::string> vnet_names(const replay::FlowReport& f) {
  std::vector<std::string> out;
  for (const auto& v : f.vnets) out.push_back(replay::to_string(v));
  return out;
}

// Each connection's tcp.stream (ours) is what tshark gives its first frame.
void check_streams_with_tshark(const Capture& c, const std::string& name) {
  if (!testcommon::tshark_available()) return;
  const std::string path = c.write(name);
  const replay::Report r = replaytest::analyze(path, Profile::rfc6298);
  const auto ws = identitytest::tshark_streams(path);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  REQUIRE(!ws.empty());
  const replay::StreamNumbers streams(r);
  for (const auto& f : r.flows) {
    CAPTURE(f.id);
    CAPTURE(f.first_frame);
    REQUIRE(ws.count(f.first_frame));
    REQUIRE(streams.of(f).has_value());
    CHECK(*streams.of(f) == ws.at(f.first_frame));
  }
}

// The SYN (ISN 1000, TSval 100, IPv4 ID 0x1234) at 0 on VLAN 10 and the
// same datagram on VLANs 20 and 30, 50 and 100 ms later (a tap whose ports
// are merged 50 ms apart; TTL `ttl2`, `ttl3`: 64 on one segment, lower
// behind a router); the SYN-ACK (ISN 70000, TSval 5000) at 150 ms and the
// ACK at 150.01 ms on VLAN 10.
Capture syn_on_three_vlans(std::uint8_t ttl2 = 64, std::uint8_t ttl3 = 64, std::uint16_t id3 = 0x1234) {
  Capture c;
  c.add({0, {10}, true, 1000, 0, wire::kSyn, 0, 100, 0, 0x1234});
  c.add({50 * ms, {20}, true, 1000, 0, wire::kSyn, 0, 100, 0, 0x1234, ttl2});
  c.add({100 * ms, {30}, true, 1000, 0, wire::kSyn, 0, 100, 0, id3, ttl3});
  c.add({150 * ms, {10}, false, 70000, 1001, wire::kSyn | wire::kAck, 0, 5000, 100, 0x2000});
  c.add({150 * ms + 10, {10}, true, 1001, 70001, wire::kAck, 0, 150, 5000, 0x1235});
  return c;
}

}  // namespace

TEST_CASE("identity: the same SYN on three VLANs 50 ms apart is one SYN and two capture copies: no SYN expiry, no MUST") {
  // Keyed by 4-tuple alone, frames 2 and 3 were the SYN resent after 50 and
  // 50 ms: not doubled, MUST 5.5. They are one datagram (same ID 0x1234,
  // TSval 100, TCP and IP checksums): copies of frame 1, counted on its
  // connection, which was seen on the three VLANs.
  const auto r = analyze(syn_on_three_vlans(), "syn-3-vlans");
  REQUIRE(r.flows.size() == 1);
  const auto& f = r.flows[0];
  CHECK(f.capture_duplicates == 2);
  CHECK(f.duplicate_frames == std::vector<std::uint64_t>{2, 3});
  CHECK(f.duplicate_of == std::vector<std::uint64_t>{1, 1});  // each copy names the first capture
  CHECK(f.packets == 5);  // copies included
  CHECK(f.senders[0].packets == 2);  // the SYN and the ACK
  CHECK(f.senders[0].data_segments == 1);
  CHECK(f.senders[0].timeouts.empty());
  CHECK(f.senders[0].retransmissions() == 0);
  CHECK(all_musts(r) == 0);
  CHECK(vnet_names(f) == std::vector<std::string>{"vlan 10", "vlan 20", "vlan 30"});
  CHECK_FALSE(f.vnet_apart);  // one connection: Wireshark's one stream, the filter needs no VLAN
  CHECK(replay::stream_filter(f, 0) == "tcp.stream == 0");
  // Behind routers (TTL 63, 62: IP header checksums differ with the TTL): still copies.
  const auto routed = analyze(syn_on_three_vlans(63, 62), "syn-3-vlans-routed");
  REQUIRE(routed.flows.size() == 1);
  CHECK(routed.flows[0].capture_duplicates == 2);
  CHECK(all_musts(routed) == 0);
  // The third with another ID (0x1235) is the SYN sent again 100 ms after
  // the first: a retransmission (its ISN makes it this connection's on
  // VLAN 30 too), not a copy.
  const auto resent = analyze(syn_on_three_vlans(64, 64, 0x1235), "syn-3-vlans-resent");
  REQUIRE(resent.flows.size() == 1);
  CHECK(resent.flows[0].capture_duplicates == 1);
  CHECK(resent.flows[0].senders[0].retransmissions() == 1);
  check_streams_with_tshark(syn_on_three_vlans(), "syn-3-vlans-ws");
}

TEST_CASE("identity: kSameIdWindow counts from the datagram's latest capture") {
  // The SYN on VLAN 10 at 0, 20 at `second` (0: not seen there) and 30 at
  // 2 x 90 ms = 180 ms: each copy within kSameIdWindow (100 ms) of the one
  // before is a copy, though the third is 180 ms after the first.
  static_assert(replay::limits::kSameIdWindow.count() == 100'000);
  auto make = [](bool second) {
    Capture c;
    c.add({0, {10}, true, 1000, 0, wire::kSyn, 0, 100, 0, 0x1234});
    if (second) c.add({90 * ms, {20}, true, 1000, 0, wire::kSyn, 0, 100, 0, 0x1234});
    c.add({180 * ms, {30}, true, 1000, 0, wire::kSyn, 0, 100, 0, 0x1234});
    c.add({200 * ms, {10}, false, 70000, 1001, wire::kSyn | wire::kAck, 0, 5000, 100, 0});
    return c;
  };
  const auto chain = analyze(make(true), "id-chain");
  REQUIRE(chain.flows.size() == 1);
  CHECK(chain.flows[0].capture_duplicates == 2);
  CHECK(chain.flows[0].senders[0].retransmissions() == 0);
  // Without the copy at 90 ms the one at 180 ms is too far from the SYN:
  // the SYN resent (a stack that reuses its ID), on VLAN 30 by its ISN.
  const auto gap = analyze(make(false), "id-gap");
  REQUIRE(gap.flows.size() == 1);
  CHECK(gap.flows[0].capture_duplicates == 0);
  CHECK(gap.flows[0].senders[0].retransmissions() == 1);
}

namespace {
// Two connections on one 4-tuple, one on VLAN 10 (client ISN 1000, server
// 70000), one on VLAN 20 (5000, 90000), interleaved 1 ms apart: SYN,
// SYN-ACK, ACK, 100 (VLAN 10) and 200 (VLAN 20) bytes of data, their ACKs.
Capture two_vlans() {
  Capture c;
  std::uint16_t id = 1;
  for (const std::uint16_t vlan : {10, 20}) {
    const std::int64_t d = vlan == 10 ? 0 : 1 * ms;
    const std::uint32_t cisn = vlan == 10 ? 1000 : 5000, sisn = vlan == 10 ? 70000 : 90000;
    const std::uint32_t len = vlan == 10 ? 100 : 200;
    c.add({d, {vlan}, true, cisn, 0, wire::kSyn, 0, 100, 0, id++});
    c.add({10 * ms + d, {vlan}, false, sisn, cisn + 1, wire::kSyn | wire::kAck, 0, 5000, 100, id++});
    c.add({20 * ms + d, {vlan}, true, cisn + 1, sisn + 1, wire::kAck, 0, 120, 5000, id++});
    c.add({30 * ms + d, {vlan}, true, cisn + 1, sisn + 1, wire::kAck | wire::kPsh, len, 130, 5000, id++});
    c.add({40 * ms + d, {vlan}, false, sisn + 1, cisn + 1 + len, wire::kAck, 0, 5030, 130, id++});
  }
  std::stable_sort(c.frames.begin(), c.frames.end(), [](const Frame& a, const Frame& b) { return a.t_us < b.t_us; });
  return c;
}
}  // namespace

TEST_CASE("identity: the same 4-tuple on two VLANs with different traffic is two connections") {
  const auto r = analyze(two_vlans(), "two-vlans");
  REQUIRE(r.flows.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const auto& f = r.flows[i];
    CHECK(f.packets == 5);
    CHECK(f.capture_duplicates == 0);
    CHECK(f.senders[0].bytes == (i == 0 ? 100u : 200u));
    CHECK(f.senders[0].retransmissions() == 0);
    CHECK(f.senders[1].retransmissions() == 0);
    CHECK(vnet_names(f) == std::vector<std::string>{i == 0 ? "vlan 10" : "vlan 20"});
    CHECK(f.vnet_apart);
  }
  CHECK(r.flows[0].first_frame == 1);
  CHECK(r.flows[1].first_frame == 2);
  CHECK(all_musts(r) == 0);
  // Wireshark (by addresses and ports) gives the VLAN 20 SYN, another ISN,
  // a new stream: 0 and 1; each filter keeps its own VLAN's frames.
  const replay::StreamNumbers streams(r);
  CHECK(streams.of(r.flows[0]) == 0u);
  CHECK(streams.of(r.flows[1]) == 1u);
  CHECK(replay::stream_filter(r.flows[0], 0) == "tcp.stream == 0 && (vlan.id == 10)");
  CHECK(replay::stream_filter(r.flows[1], 1) == "tcp.stream == 1 && (vlan.id == 20)");
  check_streams_with_tshark(two_vlans(), "two-vlans-ws");
}

TEST_CASE("identity: each direction on its own VLAN, or one untagged, is one connection") {
  // A tap's two ports: the client's segments on VLAN 1506, the server's on
  // 1906 (or untagged). The server's first segment acknowledges the
  // client's SYN: it joins the connection.
  for (const std::vector<std::uint16_t>& server_tags : {std::vector<std::uint16_t>{1906}, std::vector<std::uint16_t>{}}) {
    Capture c;
    c.add({0, {1506}, true, 1000, 0, wire::kSyn, 0, 100, 0, 1});
    c.add({10 * ms, server_tags, false, 70000, 1001, wire::kSyn | wire::kAck, 0, 5000, 100, 0});
    c.add({20 * ms, {1506}, true, 1001, 70001, wire::kAck | wire::kPsh, 100, 120, 5000, 2});
    c.add({30 * ms, server_tags, false, 70001, 1101, wire::kAck, 0, 5020, 120, 0});
    const auto r = analyze(c, "asymmetric");
    REQUIRE(r.flows.size() == 1);
    const auto& f = r.flows[0];
    CHECK(f.packets == 4);
    CHECK(f.senders[0].peer_seen);
    // Its SYN answered 10 ms later, [1001,1101) acknowledged 10 ms later:
    // two samples, so the server's segments on the other VLAN were heard.
    CHECK(f.senders[0].samples_seq == 2);
    CHECK(vnet_names(f) == std::vector<std::string>{"vlan 1506", server_tags.empty() ? "" : "vlan 1906"});
    CHECK_FALSE(f.vnet_apart);
    CHECK(replay::stream_filter(f, 0) == "tcp.stream == 0");
  }
}

TEST_CASE("identity: a side's first segment joins from another VLAN only within kJoinAckSlack of what the peer sent") {
  // Mid-connection: the client's [1001,2001) (ack 70001) on VLAN 10, then
  // the server's first segment on VLAN 20 with ACK `ack`. It acknowledges
  // what the client sent there when 2001 - kJoinAckSlack <= ack <= 2001
  // (one connection); else it is another conversation on VLAN 20 (two).
  auto flows = [](std::uint32_t ack) {
    Capture c;
    c.add({0, {10}, true, 1001, 70001, wire::kAck | wire::kPsh, 1000, {}, 0, 1});
    c.add({10 * ms, {20}, false, 70001, ack, wire::kAck, 0, {}, 0, 0});
    return analyze(c, "join").flows.size();
  };
  constexpr std::uint32_t end = 2001, slack = replay::limits::kJoinAckSlack;
  CHECK(flows(end) == 1);
  CHECK(flows(end + 1) == 2);  // acknowledges a byte not sent
  CHECK(flows(end - slack) == 1);
  CHECK(flows(end - slack - 1) == 2);
}

namespace {
// Handshake on VLAN 10 (client IDs 0x100, 0x101; ISN 1000 / 70000; TSval
// 100 / 5000), [1001,2001) at 200 ms (TSval 200, ID 0x102, TOS 2: ECT(0)),
// then the same segment again `after_us` later with ID `id2`, TSval
// `tsval2`, TOS `tos2`, TTL `ttl2` on VLAN `vlan2`, and the ACK of it 300 ms
// after the first. `constant_id`: every client segment carries ID 0x4242 (a
// stack that does not number its datagrams). `ts`: timestamps in use.
struct Resend {
  std::int64_t after_us = 50 * ms;
  std::uint16_t id2 = 0x102;
  std::uint32_t tsval2 = 200;
  std::uint8_t tos2 = 2, ttl2 = 64;
  std::uint16_t vlan2 = 10;
  bool constant_id = false, ts = true, v6 = false, zero_ids = false;
};
Capture resend(const Resend& o) {
  Capture c;
  c.v6 = o.v6;
  auto id = [&](std::uint16_t n) -> std::uint16_t { return o.zero_ids ? 0 : o.constant_id ? 0x4242 : n; };
  auto tv = [&](std::uint32_t v) { return o.ts ? std::optional<std::uint32_t>{v} : std::nullopt; };
  c.add({0, {10}, true, 1000, 0, wire::kSyn, 0, tv(100), 0, id(0x100)});
  c.add({10 * ms, {10}, false, 70000, 1001, wire::kSyn | wire::kAck, 0, tv(5000), 100, 0});
  c.add({10 * ms + 10, {10}, true, 1001, 70001, wire::kAck, 0, tv(110), 5000, id(0x101)});
  Frame data{200 * ms, {10}, true, 1001, 70001, wire::kAck | wire::kPsh, 1000, tv(200), 5000, id(0x102)};
  data.tos = 2;
  c.add(data);
  Frame again = data;
  again.t_us = 200 * ms + o.after_us;
  again.vlans = {o.vlan2};
  again.ip_id = o.zero_ids ? 0 : o.constant_id ? 0x4242 : o.id2;
  again.tsval = tv(o.tsval2);
  again.tos = o.tos2;
  again.ttl = o.ttl2;
  c.add(again);
  c.add({500 * ms, {10}, false, 70001, 2001, wire::kAck, 0, tv(5500), o.ts ? o.tsval2 : 0, 0});
  return c;
}
std::uint64_t copies(const Resend& o) {
  const auto r = analyze(resend(o), "resend");
  REQUIRE(r.flows.size() == 1);
  const auto& f = r.flows[0];
  // A segment is either a copy or one of the client's transmissions.
  CHECK(f.capture_duplicates + f.senders[0].retransmissions() == 1);
  return f.capture_duplicates;
}
}  // namespace

TEST_CASE("identity: a real retransmission is never a capture copy") {
  Resend same;  // ID 0x102 again, TSval 200, 50 ms later: one datagram seen twice
  CHECK(copies(same) == 1);
  Resend vlan = same;
  vlan.vlan2 = 20;  // the copy on another VLAN
  CHECK(copies(vlan) == 1);
  // Same TSval (a coarse clock), new ID 0x103: the sender sent it again.
  Resend new_id = same;
  new_id.id2 = 0x103;
  CHECK(copies(new_id) == 0);
  // ID 0 (DF) on both and a new TSval 250: two transmissions.
  Resend zero = same;
  zero.zero_ids = true;
  zero.tsval2 = 250;
  CHECK(copies(zero) == 0);
  // IPv6 (no ID) with a new TSval 250: two transmissions.
  Resend v6 = zero;
  v6.zero_ids = false;
  v6.v6 = true;
  CHECK(copies(v6) == 0);
  // Same ID and TTL but another IP header checksum (the resend without
  // ECT, RFC 3168 6.1.5: TOS 0 where the original had 2): two datagrams.
  Resend ecn = same;
  ecn.tos2 = 0;
  CHECK(copies(ecn) == 0);
  // A router between the capture points (TTL 63) rewrites the checksum: a copy.
  Resend routed = same;
  routed.ttl2 = 63;
  CHECK(copies(routed) == 1);
}

TEST_CASE("identity: a capture copy is a timeline row naming the frame it copies, not a retransmission") {
  using namespace std::chrono_literals;
  using Row = std::pair<std::uint64_t, std::string_view>;
  // resend(): the client's SYN (frame 1), the SYN-ACK 10 ms later (2), the
  // client's ACK (3), its data [1,1001) at 200 ms (4: ID 0x102, TSval 200),
  // the same datagram again at 250 ms (5) and the server's ACK (6). Frame 5
  // on the client's VLAN 10 (found in its recent segments) or on VLAN 20
  // (a packet first seen on another network): a copy of frame 4.
  for (const std::uint16_t vlan2 : {std::uint16_t{10}, std::uint16_t{20}}) {
    CAPTURE(vlan2);
    Resend same;
    same.vlan2 = vlan2;
    const auto r = analyze(resend(same), "copy-row", Profile::rfc6298, /*timeline=*/true);
    REQUIRE(r.flows.size() == 1);
    const auto& f = r.flows[0];
    CHECK(f.duplicate_frames == std::vector<std::uint64_t>{5});
    CHECK(f.duplicate_of == std::vector<std::uint64_t>{4});
    const auto& client = f.senders[0];
    CHECK(client.retransmissions() == 0);
    CHECK(client.data_segments == 2);  // the SYN and the data, once
    CHECK(client.by_kind[static_cast<std::size_t>(replay::SendKind::first)] == 2);
    CHECK(client.timeouts.empty());
    // The client's rows: its sends, the server's ACKs as it saw them, and
    // the copy between the send it copies and the ACK (capture order).
    std::vector<Row> rows;
    for (const auto& e : client.timeline) rows.emplace_back(e.frame, e.event);
    const std::vector<Row> want{{1, "send"}, {2, "ack"}, {4, "send"}, {5, replay::kCaptureCopyEvent}, {6, "ack"}};
    CHECK(rows == want);
    REQUIRE(client.timeline.size() == want.size());
    const replay::TimelineEvent& copy = client.timeline[3];
    CHECK(copy.copy_of == 4);
    CHECK(copy.rel_seq == 1);  // SEQ 1001 - ISN 1000
    CHECK(copy.len == 1000);
    CHECK_FALSE(copy.sample.has_value());
    // The estimator as frame 4 left it: the SYN-ACK's sample R = 10 ms gave
    // SRTT 10 ms, RTTVAR 5 ms (2.2), RTO max(1 s, 10 + 4 x 5 ms) = 1 s (2.3, 2.4).
    CHECK(copy.srtt == std::optional<std::chrono::microseconds>{10ms});
    CHECK(copy.rttvar == std::optional<std::chrono::microseconds>{5ms});
    CHECK(copy.rto == 1s);
    CHECK(copy.backoff == 0);
    for (const auto& e : f.senders[1].timeline) CHECK(e.event != replay::kCaptureCopyEvent);
    // timeline --csv: the row, its last column the frame it copies.
    std::ostringstream os;
    replay::write_timeline_csv(os, r);
    CHECK(os.str().find("\n1,c2s,5,1700000000.250000000,0.250000000,capture-copy,1,,,10000,5000,1000000,0,4\n") !=
          std::string::npos);
  }
  // The same segment with a new ID (0x103): the sender sent it again, a
  // retransmission; no copy, no copy row.
  Resend new_id;
  new_id.id2 = 0x103;
  const auto r = analyze(resend(new_id), "copy-row-new-id", Profile::rfc6298, /*timeline=*/true);
  REQUIRE(r.flows.size() == 1);
  CHECK(r.flows[0].duplicate_frames.empty());
  CHECK(r.flows[0].senders[0].retransmissions() == 1);
  for (const auto& s : r.flows[0].senders)
    for (const auto& e : s.timeline) CHECK(e.event != replay::kCaptureCopyEvent);
}

TEST_CASE("identity: an ID names the datagram only for a sender that numbers them") {
  // The resend 80 ms later (< kSameIdWindow), no timestamps. A numbering
  // sender (0x100, 0x101, 0x102, then 0x102 again): one datagram, a copy.
  Resend numbered;
  numbered.after_us = 80 * ms;
  numbered.ts = false;
  CHECK(copies(numbered) == 1);
  // A sender whose every segment carries ID 0x4242 (its SYN and ACK
  // repeated it): the ID proves nothing, and without a TSval only a copy
  // within kNoIdWindow is one: 80 ms later it is a retransmission.
  Resend constant = numbered;
  constant.constant_id = true;
  CHECK(copies(constant) == 0);
}

TEST_CASE("identity: the capture-copy windows at their boundaries (kSameIdWindow, kSameTsvalWindow, kNoIdWindow)") {
  using replay::limits::kNoIdWindow;
  using replay::limits::kSameIdWindow;
  using replay::limits::kSameTsvalWindow;
  // The same ID 0x102 and TSval: a copy up to kSameIdWindow apart.
  Resend id;
  id.after_us = kSameIdWindow.count();
  CHECK(copies(id) == 1);
  id.after_us = kSameIdWindow.count() + 1;
  CHECK(copies(id) == 0);
  // ID 0 on both, the same TSval, nothing from the peer between: up to kSameTsvalWindow.
  Resend ts;
  ts.zero_ids = true;
  ts.after_us = kSameTsvalWindow.count();
  CHECK(copies(ts) == 1);
  ts.after_us = kSameTsvalWindow.count() + 1;
  CHECK(copies(ts) == 0);
  // IPv6, the same TSval: the same window.
  ts.zero_ids = false;
  ts.v6 = true;
  ts.after_us = kSameTsvalWindow.count();
  CHECK(copies(ts) == 1);
  ts.after_us = kSameTsvalWindow.count() + 1;
  CHECK(copies(ts) == 0);
  // ID 0, no TSval: up to kNoIdWindow.
  Resend none;
  none.zero_ids = true;
  none.ts = false;
  none.after_us = kNoIdWindow.count();
  CHECK(copies(none) == 1);
  none.after_us = kNoIdWindow.count() + 1;
  CHECK(copies(none) == 0);
}

TEST_CASE("identity: a capture copy is looked for among its direction's 8 latest segments, not further back") {
  // resend()'s handshake and data D [1001,2001) at 200 ms (ID 0x102, TSval
  // 200), then `n` new segments of the client, [1001 + 1000 k, 2001 + 1000 k)
  // at 200 + k ms (IDs 0x102 + k, TSvals 200 + k, k = 1..n), then D's
  // datagram again at 250 ms (50 ms: within kSameIdWindow) and the server's
  // ACK of everything, 2001 + 1000 n, at 300 ms. The client's ring keeps its
  // 8 latest segments (capture_copy.hpp, kRecentKept): D and the 7 after it
  // when n = 7, so its capture again is a copy; with n = 8, D has left the
  // ring and its ID is compared with nothing: a segment of the client's,
  // whose TSval 200, 8 ticks older than the 208 it sent last, makes it an
  // old copy delayed in the network (out of order), not a capture copy.
  const auto copies_after = [](std::uint16_t n) {
    Capture c;
    c.add({0, {10}, true, 1000, 0, wire::kSyn, 0, 100, 0, 0x100});
    c.add({10 * ms, {10}, false, 70000, 1001, wire::kSyn | wire::kAck, 0, 5000, 100, 0});
    c.add({10 * ms + 10, {10}, true, 1001, 70001, wire::kAck, 0, 110, 5000, 0x101});
    const Frame d{200 * ms, {10}, true, 1001, 70001, wire::kAck | wire::kPsh, 1000, 200, 5000, 0x102};
    c.add(d);
    for (std::uint16_t k = 1; k <= n; ++k)
      c.add({(200 + k) * ms, {10}, true, 1001 + 1000u * k, 70001, wire::kAck | wire::kPsh, 1000, 200u + k, 5000,
             static_cast<std::uint16_t>(0x102 + k)});
    Frame again = d;
    again.t_us = 250 * ms;
    c.add(again);
    c.add({300 * ms, {10}, false, 70001, 2001 + 1000u * n, wire::kAck, 0, 5300, 250, 0});
    const auto r = analyze(c, "recent-kept-" + std::to_string(n));
    REQUIRE(r.flows.size() == 1);
    const auto& f = r.flows[0];
    CHECK(f.capture_duplicates + f.senders[0].by_kind[static_cast<std::size_t>(replay::SendKind::out_of_order)] == 1);
    CHECK(f.senders[0].retransmissions() == 0);
    return f.capture_duplicates;
  };
  CHECK(copies_after(7) == 1);
  CHECK(copies_after(8) == 0);
}

namespace {
// One client SYN (ISN 1000, TSval 100) answered by two hosts behind
// 198.18.0.2: S1 (ISN 70000, TSval 5000 + ms) at 10 ms and S2 (ISN 90000,
// TSval `s2_ts0` + ms) at 500 ms. The client is slow to answer: each
// server resends its SYN-ACK on its own timer, 1 s then 2 s later (S1 at
// 1010 and 3010 ms, S2 at 1500 and 3500 ms: RFC 6298, initial RTO 1 s,
// doubled). The client then takes S1's: ACK 70001 at 3020 ms, 100 bytes
// at 3030 ms, acknowledged at 3040 ms. Read as one SYN-ACK chain the gaps
// would be 490, 510, 490, 1510, 490 ms: no doubling, MUST 5.5.
Capture two_servers(std::uint32_t s2_ts0) {
  Capture c;
  c.add({0, {}, true, 1000, 0, wire::kSyn, 0, 100, 0, 1});
  for (const std::int64_t t : {10, 1010, 3010})
    c.add({t * ms, {}, false, 70000, 1001, wire::kSyn | wire::kAck, 0, static_cast<std::uint32_t>(5000 + t), 100, 0});
  for (const std::int64_t t : {500, 1500, 3500})
    c.add({t * ms, {}, false, 90000, 1001, wire::kSyn | wire::kAck, 0, static_cast<std::uint32_t>(s2_ts0 + t), 100, 0});
  c.add({3020 * ms, {}, true, 1001, 70001, wire::kAck, 0, 3120, 8010, 2});
  c.add({3030 * ms, {}, true, 1001, 70001, wire::kAck | wire::kPsh, 100, 3130, 8010, 3});
  c.add({3040 * ms, {}, false, 70001, 1101, wire::kAck, 0, 8040, 3130, 0});
  std::stable_sort(c.frames.begin(), c.frames.end(), [](const Frame& a, const Frame& b) { return a.t_us < b.t_us; });
  return c;
}
}  // namespace

TEST_CASE("identity: two server hosts answering one SYN with other ISNs are two connections, no SYN-ACK chain across them") {
  // S2's TSval clock starts at 800000: at 500 ms it reads 800500 where S1's
  // read 5500, a difference no clock makes in 490 ms.
  const auto r = analyze(two_servers(800000), "two-servers");
  REQUIRE(r.flows.size() == 2);
  CHECK(all_musts(r) == 0);
  const auto& s1 = r.flows[0];
  const auto& s2 = r.flows[1];
  // Frames: 1 SYN (0 ms), 2 S1 (10), 3 S2 (500), 4 S1 (1010), 5 S2 (1500),
  // 6 S1 (3010), 7 ACK (3020), 8 data (3030), 9 S1's ACK (3040), 10 S2 (3500).
  CHECK(s1.packets == 7);  // SYN, S1's three, the client's ACK and data, S1's ACK
  // S2's connection begins with the SYN it answers (frame 1, in both), then its three.
  CHECK(s2.packets == 4);
  CHECK(s2.first_frame == 1);
  CHECK(s2.last_frame == 10);
  CHECK(s2.senders[0].packets == 1);
  CHECK(s2.senders[1].packets == 3);
  REQUIRE(s1.senders[1].timeouts.size() == 2);
  CHECK(s1.senders[1].timeouts[0].frame == 4);
  CHECK(s1.senders[1].timeouts[0].wait == replay::Interval::point(std::chrono::milliseconds{1000}));
  CHECK(s1.senders[1].timeouts[1].frame == 6);
  CHECK(s1.senders[1].timeouts[1].wait == replay::Interval::point(std::chrono::milliseconds{2000}));
  REQUIRE(s2.senders[1].timeouts.size() == 2);
  CHECK(s2.senders[1].timeouts[0].frame == 5);
  CHECK(s2.senders[1].timeouts[0].wait == replay::Interval::point(std::chrono::milliseconds{1000}));
  CHECK(s2.senders[1].timeouts[1].frame == 10);
  CHECK(s2.senders[1].timeouts[1].wait == replay::Interval::point(std::chrono::milliseconds{2000}));
  for (const auto& f : {s1, s2})
    for (const auto& t : f.senders[1].timeouts) CHECK(t.verdict == replay::Verdict::ok);
  CHECK(s1.senders[0].bytes == 100);
  REQUIRE(s2.alongside.has_value());
  CHECK(s2.alongside->flow == 1);
  CHECK(s2.alongside->server);
  CHECK(s2.alongside->isn == 90000);
  CHECK(s2.alongside->other_isn == 70000);
  CHECK(s2.alongside->syn_frame == 1);
  REQUIRE(s2.alongside->another_clock.has_value());
  CHECK(*s2.alongside->another_clock);
  CHECK_FALSE(s1.alongside.has_value());
  // Wireshark keeps S2's SYN-ACK in the stream ("reused ports"): both 0.
  const replay::StreamNumbers streams(r);
  CHECK(streams.of(s1) == 0u);
  CHECK(streams.of(s2) == 0u);
  check_streams_with_tshark(two_servers(800000), "two-servers-ws");
  // S2's TSval 5500 at 500 ms on S1's clock (5000 + ms): it could be S1's
  // host answering anew; still another ISN, so still its own connection.
  const auto same = analyze(two_servers(5000), "two-servers-same-clock");
  REQUIRE(same.flows.size() == 2);
  CHECK(all_musts(same) == 0);
  REQUIRE(same.flows[1].alongside.has_value());
  REQUIRE(same.flows[1].alongside->another_clock.has_value());
  CHECK_FALSE(*same.flows[1].alongside->another_clock);
}

namespace {
// A connection (client ISN 1000, TSval 100 + ms; server 70000, 5000 + ms),
// [1001,1101) at 30 ms acknowledged at 40 ms, then `end`: a FIN from each
// side, an RST, or nothing; then, `gap_ms` after 100 ms, a SYN from the
// client's port with ISN `isn2` and TSval `ts2`, answered 10 ms later
// (ISN 33000), then the server resends 100 bytes of the old connection
// (seq 70001) 20 ms after the SYN.
enum class End { fin, rst, none };
Capture reuse(End end, std::int64_t gap_ms, std::uint32_t isn2, std::uint32_t ts2) {
  Capture c;
  c.add({0, {}, true, 1000, 0, wire::kSyn, 0, 100, 0, 1});
  c.add({10 * ms, {}, false, 70000, 1001, wire::kSyn | wire::kAck, 0, 5010, 100, 0});
  c.add({20 * ms, {}, true, 1001, 70001, wire::kAck, 0, 120, 5010, 2});
  c.add({30 * ms, {}, true, 1001, 70001, wire::kAck | wire::kPsh, 100, 130, 5010, 3});
  c.add({40 * ms, {}, false, 70001, 1101, wire::kAck, 0, 5040, 130, 0});
  if (end == End::fin) {
    c.add({50 * ms, {}, true, 1101, 70001, wire::kAck | wire::kFin, 0, 150, 5040, 4});
    c.add({60 * ms, {}, false, 70001, 1102, wire::kAck | wire::kFin, 0, 5060, 150, 0});
    c.add({70 * ms, {}, true, 1102, 70002, wire::kAck, 0, 170, 5060, 5});
  } else if (end == End::rst) {
    c.add({50 * ms, {}, true, 1101, 70001, wire::kAck | wire::kRst, 0, {}, 0, 4});
  }
  const std::int64_t t = (100 + gap_ms) * ms;
  c.add({t, {}, true, isn2, 0, wire::kSyn, 0, ts2, 0, 6});
  c.add({t + 10 * ms, {}, false, 33000, isn2 + 1, wire::kSyn | wire::kAck, 0, 9000, ts2, 0});
  if (end == End::none)
    c.add({t + 20 * ms, {}, false, 70001, 1101, wire::kAck | wire::kPsh, 100, static_cast<std::uint32_t>(5120 + gap_ms), 130, 0});
  return c;
}
}  // namespace

TEST_CASE("identity: a SYN with a new ISN after FIN, after RST or after an idle gap is a new connection") {
  // After the FINs (frames 1-8), the SYN at frame 9 (ISN 9000) opens flow 2.
  auto fin = analyze(reuse(End::fin, 0, 9000, 300), "after-fin");
  REQUIRE(fin.flows.size() == 2);
  CHECK(fin.flows[0].last_frame == 8);
  CHECK(fin.flows[1].first_frame == 9);
  CHECK(fin.flows[1].packets == 2);
  CHECK_FALSE(fin.flows[1].alongside.has_value());
  check_streams_with_tshark(reuse(End::fin, 0, 9000, 300), "after-fin-ws");
  // After an RST (frame 6), the SYN at frame 7.
  auto rst = analyze(reuse(End::rst, 0, 9000, 300), "after-rst");
  REQUIRE(rst.flows.size() == 2);
  CHECK(rst.flows[1].first_frame == 7);
  // The same ISN again after the idle split (300 s): a new connection; the
  // same SYN within it would be a SYN in the middle of the old one.
  auto idle = analyze(reuse(End::none, 301'000, 1000, 400'000), "after-idle");
  REQUIRE(idle.flows.size() == 2);
  CHECK(idle.flows[1].first_frame == 6);
}

TEST_CASE("identity: a SYN with a new ISN while the old connection goes on: another client host (another TSval clock), else a new connection") {
  // No FIN or RST. The SYN (ISN 9000) at 100 ms, frame 6, and its SYN-ACK
  // (frame 7), then the server's resend of the old data (seq 70001, frame 8).
  // TSval 900000 at 100 ms where the client's clock read 130 at 30 ms:
  // another clock (at most 70 ms x 1 kHz + 1 = 71 ticks on): another host
  // behind 198.18.0.1; the old connection goes on and gets frame 8.
  auto other = analyze(reuse(End::none, 0, 9000, 900'000), "alongside-client");
  REQUIRE(other.flows.size() == 2);
  CHECK(other.flows[0].last_frame == 8);
  CHECK(other.flows[0].packets == 6);
  CHECK(other.flows[1].packets == 2);
  REQUIRE(other.flows[1].alongside.has_value());
  CHECK(other.flows[1].alongside->flow == 1);
  CHECK_FALSE(other.flows[1].alongside->server);
  CHECK(other.flows[1].alongside->isn == 9000);
  CHECK(other.flows[1].alongside->other_isn == 1000);
  check_streams_with_tshark(reuse(End::none, 0, 9000, 900'000), "alongside-client-ws");
  // TSval 200 at 100 ms: the client's own clock (130 + 70 = 200: at the
  // kMaxTsvalHz bound plus a tick, 201, it still is; 202 is not). Its host
  // began a new connection: the old one ends there.
  for (const std::uint32_t ts : {200u, 201u}) {
    CAPTURE(ts);
    auto same = analyze(reuse(End::none, 0, 9000, ts), "same-client");
    REQUIRE(same.flows.size() == 2);
    CHECK(same.flows[0].last_frame == 5);
    CHECK_FALSE(same.flows[1].alongside.has_value());
  }
  auto apart = analyze(reuse(End::none, 0, 9000, 202), "other-client");
  REQUIRE(apart.flows.size() == 2);
  CHECK(apart.flows[0].last_frame == 8);
  CHECK(apart.flows[1].alongside.has_value());
}

TEST_CASE("identity: a SYN after a connection seen from its middle (no SYN) is a new connection when its ISN is another") {
  // The capture begins with the client's [1001,1101) (so its ISN is 1000 as
  // Wireshark reads it) and the server's ACK; a SYN with ISN 5000 opens a
  // new connection (Wireshark: a new stream); one with ISN 1000 is the
  // connection's own.
  auto make = [](std::uint32_t isn) {
    Capture c;
    c.add({0, {}, true, 1001, 70001, wire::kAck | wire::kPsh, 100, {}, 0, 1});
    c.add({10 * ms, {}, false, 70001, 1101, wire::kAck, 0, {}, 0, 0});
    c.add({20 * ms, {}, true, isn, 0, wire::kSyn, 0, {}, 0, 2});
    return c;
  };
  CHECK(analyze(make(5000), "mid-new").flows.size() == 2);
  CHECK(analyze(make(1000), "mid-same").flows.size() == 1);
  check_streams_with_tshark(make(5000), "mid-new-ws");
  check_streams_with_tshark(make(1000), "mid-same-ws");
}
