// A loss probe whose original the capture never saw: the tail segment was
// lost before the capture point (a capture at the receiver, or beside it),
// so its first copy in the file is the probe, at SND.MAX like new data.
// Linux numbers a connection's IPv4 packets with a counter of its own (one
// per segment sent), so the probe's ID is two past the packet before it:
// one packet of the sender's is missing. The shape of a lab run's
// many-flows frame 3724 (a response's last 656 bytes, ID 0xc3fa after
// 0xc3f8, 206.6 ms after the response's first segments), labelled
// tcp_send_loss_probe by the kernel (tests/capture/lab, 2026-12-07, not
// committed). Its frame 3712 (a FIN, ID 0x1ce6 after 0x1ce4, 206.4 ms
// after the peer's FIN it answers), a probe too by the kernel's label, is
// read as new data: it acknowledges the peer's FIN first, so the unseen
// packet may as well have been the delayed ACK of it (the case of new data
// acknowledging the peer's data first, below).

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::SendKind;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

// Handshake round trip 1 ms (captured at the client), SACK; one 500-byte
// write every 10 ms from 10 ms, each acknowledged 1 ms later (frames 4-23),
// the last at 100 ms (frame 22, acknowledged by frame 23). SRTT about 1 ms:
// with one segment out Linux's PTO is 2 SRTT + 200 ms = 202 ms, 204 ms in 4
// ms jiffies, no later than the RTO (SRTT + 200 ms = 201 ms, 204 ms in
// jiffies): the probe fires in [204 - 1, 204 + 204 x 8/63 + 2 x 4 + 1] =
// [203, 238.9] ms after the last new data (the wheel's lateness, two
// jiffies, the 1 ms granularity).
Scenario acked_writes() { return acked_500_byte_writes(); }

// Numbers the client's packets 1000, 1001, ... in order, skipping `skip`
// IDs before packet index `at` (a packet of the client's the capture did
// not see).
void number_client_packets(Scenario& s, std::size_t at, std::uint16_t skip, std::uint16_t first = 1000) {
  std::uint16_t id = first;
  for (std::size_t i = 0; i < s.pkts.size(); ++i) {
    if (!s.pkts[i].from_client) continue;
    if (i == at) id = static_cast<std::uint16_t>(id + skip);
    s.ip_id[i] = id++;
  }
}

// The acknowledged writes, then [5001, 5501) at time `t` (frame 24).
Scenario tail_at(std::int64_t t, std::uint16_t skip) {
  Scenario s = acked_writes();
  s.data(t, 1 + 500 * 10, 500);
  number_client_packets(s, s.pkts.size() - 1, skip);
  return s;
}


// The sender's notes of `topic` (by default: read as an unseen packet's resend).
std::vector<replay::Judgement> unseen_notes(const replay::SenderReport& c,
                                            replay::Topic topic = replay::Topic::unseen_original) {
  std::vector<replay::Judgement> out;
  for (const auto& f : c.findings)
    if (f.topic == topic) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE("new data after one unseen packet, a PTO after the packet before it, is the probe resending it") {
  // Frame 24 at 310 ms, ID 1024 after frame 22's 1022 (the client's 23rd
  // packet, 1000 + 22, and then one skipped): the unseen packet carried
  // [5001, 5501) (the sender's next new data, frame 24's start). It left
  // with frame 22 (within kResponseTrain, 200 us: [100, 100.2] ms) or in
  // answer to the peer's ACK, frame 23 (its ACK clock's window at a capture
  // beside the sender, kAckClockMin: [101, 103] ms), so the probe may fire
  // from 100 + 203 = 303 ms to 103 + 238.9 = 341.9 ms: frame 24 is in it.
  const auto r = analyze(tail_at(310 * ms, 1), "unseen-tail", Profile::linux_kernel, /*timeline=*/true);
  const auto& c = client(r);
  CHECK(event_at(c, 24) == "tlp");
  CHECK(count(c, SendKind::tlp) == 1);
  CHECK(count(c, SendKind::first) == 11);  // the SYN and the ten writes: frame 24 is no first transmission
  const auto notes = unseen_notes(c);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].frame == 24);
  CHECK(notes[0].other_frame == 22);  // the packet after which the ID skipped
  CHECK(message(notes[0], "linux").find("skipped one packet after frame 22") != std::string::npos);
  CHECK(musts(c) == 0);
}

TEST_CASE("without an ID skipped, or with two, the same segment is new data") {
  // No packet missing (ID 1023 right after 1022): a write at 310 ms.
  const auto none = analyze(tail_at(310 * ms, 0), "no-gap", Profile::linux_kernel, true);
  CHECK(event_at(client(none), 24) == "send");
  CHECK(unseen_notes(client(none)).empty());
  // Two missing (ID 1025, kUnseenOriginalPackets = 1): which carried the
  // data, and what the other was, is open.
  const auto two = analyze(tail_at(310 * ms, 2), "two-unseen", Profile::linux_kernel, true);
  CHECK(event_at(client(two), 24) == "send");
  CHECK(unseen_notes(client(two)).empty());
}

TEST_CASE("off the probe timer's time, new data after an unseen packet is new data") {
  // The probe's time is [303, 341.9] ms (the first test's arithmetic).
  // Before it, 302.95 ms (an application's write after, say, a window
  // update the capture missed); at its start, 303 ms.
  const auto early = analyze(tail_at(302 * ms + 950, 1), "unseen-early", Profile::linux_kernel, true);
  CHECK(event_at(client(early), 24) == "send");
  const auto start = analyze(tail_at(303 * ms, 1), "unseen-start", Profile::linux_kernel, true);
  CHECK(event_at(client(start), 24) == "tlp");
  // At its end, 341.9 ms (238.9 ms after the answer's latest time, 103
  // ms); past it, 341.95 ms.
  const auto end = analyze(tail_at(341 * ms + 900, 1), "unseen-end", Profile::linux_kernel, true);
  CHECK(event_at(client(end), 24) == "tlp");
  const auto late = analyze(tail_at(341 * ms + 950, 1), "unseen-late", Profile::linux_kernel, true);
  CHECK(event_at(client(late), 24) == "send");
}

TEST_CASE("only a profile whose stack counts IDs per connection reads the skip") {
  // RFC 6298 names no stack: its IDs may come from a counter the host
  // shares (another connection's packet takes the skipped one), or be
  // random.
  const auto r = analyze(tail_at(310 * ms, 1), "unseen-rfc", Profile::rfc6298, true);
  CHECK(event_at(client(r), 24) == "send");
  CHECK(unseen_notes(client(r)).empty());
}

TEST_CASE("the counter is read after kIpIdCounterRun steps of one in a row, not fewer") {
  // The client sends every other packet (data at indexes 3, 5, ..., 21;
  // frames 4, 6, ..., 22). Its IDs jump by 100 at frame 18 (index 17: a
  // break, not a skip of one); steps of one follow to frames 20 and 22: two
  // before frame 24's skip, too few to show the counter. With the jump at
  // frame 16 (index 15), three: the counter is shown.
  Scenario two = tail_at(310 * ms, 1);
  number_client_packets(two, 17, 100);
  two.ip_id[two.pkts.size() - 1] = static_cast<std::uint16_t>(two.ip_id[21] + 2);
  const auto r2 = analyze(two, "run-2", Profile::linux_kernel, true);
  CHECK(event_at(client(r2), 24) == "send");
  Scenario three = tail_at(310 * ms, 1);
  number_client_packets(three, 15, 100);
  three.ip_id[three.pkts.size() - 1] = static_cast<std::uint16_t>(three.ip_id[21] + 2);
  const auto r3 = analyze(three, "run-3", Profile::linux_kernel, true);
  CHECK(event_at(client(r3), 24) == "tlp");
}

TEST_CASE("a step after a packet larger than any one segment shown is a GSO packet's, not a skip") {
  // Frame 22 carries 1000 bytes (two of the 500-byte segments every step of
  // one showed): sent as one packet, the stack's GSO cut it in two, whose
  // IDs are 1022 and 1023; frame 24's 1024 follows them. Read as a skip, it
  // would be the probe resending a packet the capture saw.
  Scenario s = acked_writes();
  s.pkts[21].len = 1000;           // frame 22: [4501, 5501)
  s.pkts[22].rel_ack = 1 + 5500;  // frame 23 acknowledges it
  s.data(310 * ms, 1 + 5500, 500);
  number_client_packets(s, s.pkts.size() - 1, 1);
  const auto r = analyze(s, "gso", Profile::linux_kernel, true);
  CHECK(event_at(client(r), 24) == "send");
  CHECK(unseen_notes(client(r)).empty());
}

TEST_CASE("the unseen packet may answer the peer: the probe's time counts from that answer") {
  // The peer's pure ACK at 150 ms (frame 24, a window update: nothing new
  // acknowledged, nothing outstanding); the client's next packet the
  // capture sees is [5001, 5501) at 360 ms (frame 25), its ID skipping one.
  // From frame 22 (100 ms) that is 260 ms, from the peer's ACK (frame 23,
  // 101 ms) 259 ms: past the probe's 238.9 ms. The unseen packet answered
  // the peer's newest segment, at [150, 152] ms (a capture at the sender:
  // its ACK clock's window is kAckClockMin, 2 ms): 208 to 210 ms before
  // frame 25, the probe's time.
  Scenario s = acked_writes();
  s.pkts.push_back({150 * ms, false, 1, 1 + 5000, wire::kAck, 0, {}, {}, {}});
  s.window[s.pkts.size() - 1] = 60000;
  s.data(360 * ms, 1 + 500 * 10, 500);
  number_client_packets(s, s.pkts.size() - 1, 1);
  const auto r = analyze(s, "unseen-answer", Profile::linux_kernel, true);
  const auto& c = client(r);
  CHECK(event_at(c, 25) == "tlp");
  REQUIRE(unseen_notes(c).size() == 1);
  CHECK(unseen_notes(c)[0].other_frame == 22);
}

TEST_CASE("new data acknowledging the peer's data first is new data: the unseen packet may have been that ACK") {
  // The peer sends 100 bytes at 150 ms (frame 24); [5001, 5501) at 360 ms
  // (frame 25, its ID skipping one) acknowledges them, which no packet of
  // the client's before it did. The timing fits the probe from an answer
  // to frame 24 (the test above), but the unseen packet may as well have
  // been the client's (delayed) ACK of those 100 bytes, and frame 25 the
  // application's next write (a request/response client thinking 210 ms):
  // new data.
  Scenario s = acked_writes();
  s.pkts.push_back({150 * ms, false, 1, 1 + 5000, wire::kAck | wire::kPsh, 100, {}, {}, {}});
  s.data(360 * ms, 1 + 500 * 10, 500);
  s.pkts.back().rel_ack = 101;
  number_client_packets(s, s.pkts.size() - 1, 1);
  const auto r = analyze(s, "unseen-or-ack", Profile::linux_kernel, true);
  const auto& c = client(r);
  CHECK(event_at(c, 25) == "send");
  CHECK(unseen_notes(c).empty());
  // The report names both readings: cannot tell.
  const auto both = unseen_notes(c, replay::Topic::unseen_or_ack);
  REQUIRE(both.size() == 1);
  CHECK(both[0].frame == 25);
  CHECK(both[0].other_frame == 22);
  CHECK(message(both[0], "linux").find("the capture cannot tell") != std::string::npos);
  // Off the probe's time (at 250 ms: 100 ms after the peer's data, 150 ms
  // after frame 22), no such note: new data, and nothing else to read.
  Scenario t = acked_writes();
  t.pkts.push_back({150 * ms, false, 1, 1 + 5000, wire::kAck | wire::kPsh, 100, {}, {}, {}});
  t.data(250 * ms, 1 + 500 * 10, 500);
  t.pkts.back().rel_ack = 101;
  number_client_packets(t, t.pkts.size() - 1, 1);
  const auto off = analyze(t, "unseen-or-ack-off", Profile::linux_kernel, true);
  CHECK(unseen_notes(client(off), replay::Topic::unseen_or_ack).empty());
}

TEST_CASE("a packet no larger than the peer's MSS is one segment, whatever the steps before it showed") {
  // After the acknowledged writes, the peer sends 100 bytes three times
  // (101.5, 102, 102.5 ms) and the client acknowledges each at once (pure
  // ACKs, IDs stepping by one: no payload, so they show no segment size;
  // frames 24-29); then [5001, 5501) at 103 ms (frame 30), acknowledged at
  // 104 ms (frame 31), and [5501, 6001) at 313 ms (frame 32), its ID
  // skipping one: 210 ms after frame 30, the probe's time with one segment
  // out ([203, 238.9] ms, the first test's arithmetic). Frame 30's 500 bytes are more than the
  // steps' 0, but no more than the 1000-byte MSS the SYNs offered: one
  // segment, so its step is no GSO packet's: the probe. Without an MSS
  // option nothing shows 500 bytes to be one segment: new data.
  const auto upload = [](std::optional<std::uint16_t> mss) {
    Scenario s = acked_writes();
    s.syn_mss = mss;
    for (std::uint32_t k = 0; k < 3; ++k) {
      s.pkts.push_back({101 * ms + 500 + 500 * k, false, 1 + 100 * k, 1 + 5000, wire::kAck | wire::kPsh, 100, {}, {}, {}});
      s.pkts.push_back({101 * ms + 600 + 500 * k, true, 1 + 5000, 1 + 100 * (k + 1), wire::kAck, 0, {}, {}, {}});
    }
    s.pkts.push_back({103 * ms, true, 1 + 5000, 301, wire::kAck | wire::kPsh, 500, {}, {}, {}});
    s.pkts.push_back({104 * ms, false, 301, 1 + 5500, wire::kAck, 0, {}, {}, {}});
    s.pkts.push_back({313 * ms, true, 1 + 5500, 301, wire::kAck | wire::kPsh, 500, {}, {}, {}});
    number_client_packets(s, s.pkts.size() - 1, 1);
    return s;
  };
  const auto with = analyze(upload(1000), "mss", Profile::linux_kernel, true);
  CHECK(event_at(client(with), 32) == "tlp");
  const auto without = analyze(upload(std::nullopt), "no-mss", Profile::linux_kernel, true);
  CHECK(event_at(client(without), 32) == "send");
}

TEST_CASE("the unseen packet left within kResponseTrain of the one before: the probe's latest time counts from its end") {
  // A pure ACK of the client's at 101.5 ms (frame 24, after the peer's
  // frame 23) is its packet before the skip: nothing of the peer's came
  // after it, so the unseen packet left with it, in [101.5, 101.7] ms, and
  // the probe fires by 101.7 + 238.9 = 340.6 ms. At 340.6 ms (frame 25):
  // 239.1 ms after 101.5 ms, past; 238.9 ms after 101.7 ms, within. At
  // 340.65 ms: past either.
  const auto with_ack = [](std::int64_t t) {
    Scenario s = acked_writes();
    s.pkts.push_back({101 * ms + 500, true, 1 + 5000, 1, wire::kAck, 0, {}, {}, {}});
    s.data(t, 1 + 500 * 10, 500);
    number_client_packets(s, s.pkts.size() - 1, 1);
    return s;
  };
  const auto in = analyze(with_ack(340 * ms + 600), "train-end", Profile::linux_kernel, true);
  CHECK(event_at(client(in), 25) == "tlp");
  const auto out = analyze(with_ack(340 * ms + 650), "train-past", Profile::linux_kernel, true);
  CHECK(event_at(client(out), 25) == "send");
}

TEST_CASE("new data the peer's segment clocked is new data, whatever the IDs") {
  // The peer's window update at 309.5 ms (frame 24, nothing new
  // acknowledged) and [5001, 5501) 0.5 ms later (frame 25, ID skipping
  // one), 210 ms after frame 22: the probe's time from the packet before,
  // but sent in answer to the peer (within its ACK clock's 2 ms): the
  // window it opened let the write out.
  Scenario s = acked_writes();
  s.ack(309 * ms + 500, 1 + 5000);
  s.data(310 * ms, 1 + 500 * 10, 500);
  number_client_packets(s, s.pkts.size() - 1, 1);
  const auto r = analyze(s, "clocked", Profile::linux_kernel, true);
  CHECK(event_at(client(r), 25) == "send");
  CHECK(unseen_notes(client(r)).empty());
}

TEST_CASE("with one segment out as the capture shows, the unseen packet makes two: the PTO of two") {
  // Frame 22 (100 ms) is not acknowledged (frame 23 dropped): with the
  // unseen packet two segments are out, and Linux's PTO is 2 SRTT + 2 ms =
  // 4 ms (a jiffy), firing in [4 - 1, 4 + 4 x 8/63 + 2 x 4 + 1] = [3, 13.5]
  // ms after the last new data, the unseen packet ([100, 100.2] ms). Frame
  // 23 at 110 ms is the probe, resending the highest segment, not the head.
  // Read as one segment out, the PTO would be 204 ms and 10 ms no probe's.
  Scenario s = acked_writes();
  s.pkts.pop_back();
  s.data(110 * ms, 1 + 500 * 10, 500);
  number_client_packets(s, s.pkts.size() - 1, 1);
  const auto r = analyze(s, "two-out", Profile::linux_kernel, true);
  CHECK(event_at(client(r), 23) == "tlp");
  CHECK(musts(client(r)) == 0);
}

TEST_CASE("across a step of the capture clock, the probe's time is unknown: new data") {
  // The first test's frame 24 dated 300 ms back, at 10 ms, after a packet
  // of another connection of the two hosts at 310 ms (frame 24; frame 25 is
  // the client's): the capture clock stepped back, and the reader re-bases
  // frame 25 just after 310 ms. That is about 210 ms after frame 22 on the
  // model's clock, the probe's time, but how much time passed across the
  // step the capture cannot say: no reading of the timer.
  Scenario s = tail_at(10 * ms, 1);
  Scenario other;
  other.client_port = 40001;
  std::vector<testcommon::Record> recs;
  const auto rec = [&](const Scenario& sc, const Pkt& p, std::uint16_t id) {
    recs.push_back({static_cast<std::uint32_t>(sc.epoch_s + p.t_us / 1'000'000),
                    static_cast<std::uint32_t>(p.t_us % 1'000'000), sc.packet(p, id), 0});
  };
  for (std::size_t i = 0; i + 1 < s.pkts.size(); ++i) rec(s, s.pkts[i], s.ip_id.count(i) ? s.ip_id.at(i) : 0);
  rec(other, Pkt{310 * ms, true, 1, 1, wire::kAck, 0, {}, {}, {}}, 7);
  rec(s, s.pkts.back(), s.ip_id.at(s.pkts.size() - 1));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("rto-replay-" + std::to_string(::getpid()) + "-unseen-step.pcap"))
                               .string();
  {
    const Bytes b = testcommon::pcap_file(testcommon::kPcapMagicMicros, 101, recs);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  const auto r = analyze(path, Profile::linux_kernel, true);
  std::filesystem::remove(path);
  const auto& c = client(r);
  CHECK(event_at(c, 25) == "send");
  CHECK(unseen_notes(c).empty());
}
TEST_CASE("read as the RTO's expiry, the resend waited from when the unseen packet can have left") {
  // The first test's frame 24 (310 ms), then [5001, 5501) again at 718 ms
  // (frame 25, its ID the next). The unseen packet left in [100, 103] ms
  // (with frame 22, [100, 100.2], or answering frame 23, [101, 103]: both
  // fit the probe's time), which armed the timer (5.1). Frame 24 waited
  // [207, 210] ms, within the RTO's [204, 238.9] ms as well as the probe's;
  // frame 25 waited 408 ms = 2 x 204: the doubled RTO after an expiry at
  // frame 24 (a probe there would have re-armed a 204 ms RTO, due at 514
  // ms). The chain reads frame 24 as its first expiry.
  Scenario s = tail_at(310 * ms, 1);
  s.data(718 * ms, 1 + 500 * 10, 500);
  s.ip_id[s.pkts.size() - 1] = static_cast<std::uint16_t>(s.ip_id[s.pkts.size() - 2] + 1);
  const auto r = analyze(s, "unseen-rto", Profile::linux_kernel, true);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 2);
  CHECK(c.timeouts[0].frame == 24);
  CHECK(c.timeouts[0].wait == replay::Interval{std::chrono::microseconds{207'000}, std::chrono::microseconds{210'000}});
  CHECK(c.timeouts[0].armed_by == replay::ArmCause::send);
  CHECK(point_us(c.timeouts[1].wait) == 408'000);
  CHECK(musts(c) == 0);
}

TEST_CASE("data past SND.MAX after an unseen packet is new data: the unseen one carried what lies between") {
  // [5501, 6001) at 310 ms, ID skipping one: the unseen packet carried
  // [5001, 5501), the hole before it (the sender sends new data in order);
  // frame 24 is the next new data, no resend.
  Scenario s = acked_writes();
  s.data(310 * ms, 1 + 500 * 11, 500);
  number_client_packets(s, s.pkts.size() - 1, 1);
  const auto r = analyze(s, "unseen-hole", Profile::linux_kernel, true);
  CHECK(event_at(client(r), 24) == "send");
  CHECK(unseen_notes(client(r)).empty());
}
