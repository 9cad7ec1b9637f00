// A loss probe that sends new data (RFC 8985 7.3; Linux tcp_send_loss_probe)
// against an application's write: a probe sends one segment, so new data
// leaving with it (within kResponseTrain, nothing from the peer between)
// shows a write of several segments; a write some ms after a probe is the
// write's own; and a later repeat of the highest segment that is the probe
// only if that new data was a write makes it the write's (until the peer
// sends something: then the reading stands). The shape of the lab's paced uploads (4 KB every 10 ms as
// 1448 + 1448 + 1200 bytes: Nagle holds the short third segment while data
// is outstanding, and the probe is what sends it): rto-max-low's frames
// 325-327 and many-flows' 4001-4007 of a lab run (tests/capture/lab,
// 2026-12-07, not committed), whose kernel labels were send, send, tlp-new
// and send, send, tlp-new, send.

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::SendKind;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

// Handshake round trip 0.5 ms, SACK; ten writes of 1448 + 1448 + 1200
// bytes, 10 ms apart, each acknowledged 0.5 ms after its last segment
// (frames 1-43): SRTT about 0.5 ms, so Linux's PTO is 2 SRTT + 2 ms = 3 ms,
// a jiffy (4 ms) rounded up; it fires by 4 + 4 x 8/63 + 2 jiffies = 12.5 ms
// (the wheel), up to 13.5 ms with the 1 ms granularity, and not before 3
// ms. `seq` ends at the next byte to send.
Scenario paced_acked_writes(std::uint32_t& seq) {
  Scenario s;
  s.sack_permitted = true;
  s.handshake(0, 500);
  seq = 1;
  for (int k = 0; k < 10; ++k) {
    const std::int64_t t = 10 * ms + 10 * ms * k;
    s.data(t, seq, 1448);
    s.data(t + 20, seq + 1448, 1448);
    s.data(t + 40, seq + 2896, 1200);
    seq += 4096;
    s.ack(t + 540, seq);
  }
  return s;
}

// Then write W1 at 110 ms (frames 44-46), never acknowledged: the timer
// runs from its first segment (5.1).
Scenario paced_writes() {
  std::uint32_t seq = 0;
  Scenario s = paced_acked_writes(seq);
  s.data(110 * ms, seq, 1448);
  s.data(110 * ms + 20, seq + 1448, 1448);
  s.data(110 * ms + 40, seq + 2896, 1200);
  return s;
}


}  // namespace

TEST_CASE("a write of two segments 10.2 ms into a PTO is no probe; the held third segment 5.6 ms later is") {
  // W2's first two segments at 120.24 and 120.26 ms (frames 47, 48): the
  // first alone would fit the probe timer (10.2 ms after W1's last new data,
  // in [3, 13.5] ms), but the second leaves with it (20 us: within
  // kResponseTrain, 200 us): one transmission, the write's. The third (1200
  // bytes, frame 49) 5.6 ms after the second: the timer re-armed at each new
  // transmission (Linux), 5.6 ms in [3, 13.5]: the probe sends it.
  Scenario s = paced_writes();
  const std::uint32_t w2 = 1 + 11 * 4096;
  s.data(120 * ms + 240, w2, 1448);
  s.data(120 * ms + 260, w2 + 1448, 1448);
  s.data(125 * ms + 860, w2 + 2896, 1200);
  s.ack(126 * ms + 360, w2 + 4096);
  const auto r = analyze(s, "write-then-probe", Profile::linux_kernel, /*timeline=*/true);
  const auto& c = client(r);
  CHECK(event_at(c, 47) == "send");
  CHECK(event_at(c, 48) == "send");
  CHECK(event_at(c, 49) == "tlp-new");
  CHECK(count(c, SendKind::tlp_new_data) == 1);
  CHECK(musts(c) == 0);
}

TEST_CASE("a probe sends W1's held third segment at 7.5 ms; W2 2.7 ms later is the application's") {
  // W1 sends two segments (frames 44, 45 at 110.00, 110.02 ms); its third
  // (frame 46) leaves 7.48 ms after the second: the probe timer's time. W2
  // at 120.2 ms (frames 47, 48), 2.7 ms after the probe, nothing from the
  // peer between: within kMinTimerWait of it, but beyond kResponseTrain
  // (200 us): not the probe's transmission, a write of its own.
  std::uint32_t seq = 0;
  Scenario s = paced_acked_writes(seq);
  s.data(110 * ms, seq, 1448);
  s.data(110 * ms + 20, seq + 1448, 1448);
  s.data(117 * ms + 500, seq + 2896, 1200);
  seq += 4096;
  s.data(120 * ms + 200, seq, 1448);
  s.data(120 * ms + 220, seq + 1448, 1448);
  s.ack(120 * ms + 720, seq + 2896);
  const auto r = analyze(s, "probe-then-write", Profile::linux_kernel, /*timeline=*/true);
  const auto& c = client(r);
  CHECK(event_at(c, 46) == "tlp-new");
  CHECK(event_at(c, 47) == "send");
  CHECK(event_at(c, 48) == "send");
  CHECK(count(c, SendKind::tlp_new_data) == 1);
  CHECK(musts(c) == 0);
}

TEST_CASE("a new-data probe read as a write leaves the timer's arm between the two readings") {
  // W1 at 110 ms (frames 44-46), W2's two segments at 120.24 and 120.26 ms
  // (frames 47, 48; the first read as a probe, then as the write: the
  // second left with it). No probe shows later: whether the timer was
  // re-armed at 120.24 ms (a probe the capture cannot tell from the write)
  // or runs from W1's first segment (110 ms), the RTO's resend of W1's head
  // at 322 ms (frame 49) waited 322 - 120.24 = 201.76 ms or 322 - 110 = 212
  // ms: the wait is the interval between, not one of its ends.
  Scenario s = paced_writes();
  const std::uint32_t w2 = 1 + 11 * 4096;
  s.data(120 * ms + 240, w2, 1448);
  s.data(120 * ms + 260, w2 + 1448, 1448);
  s.data(322 * ms, w2 - 4096, 1448);
  s.ack(322 * ms + 500, w2 + 2896);
  const auto r = analyze(s, "write-no-probe", Profile::linux_kernel, /*timeline=*/true);
  const auto& c = client(r);
  CHECK(event_at(c, 47) == "send");
  CHECK(count(c, SendKind::tlp_new_data) == 0);
  REQUIRE(c.timeouts.size() == 1);
  CHECK(c.timeouts[0].frame == 49);
  CHECK(c.timeouts[0].wait == replay::Interval{std::chrono::microseconds{201'760}, std::chrono::microseconds{212'000}});
  // Armed by W1's send, as far as the capture shows: no probe is read.
  CHECK(c.timeouts[0].armed_by == replay::ArmCause::send);
}

namespace {

// Handshake round trip 1 ms, SACK; one 500-byte write every 10 ms from 10
// ms, each acknowledged 1 ms later, until the write at 100 ms, the last
// acknowledged (frames 4-23); then writes the peer never acknowledges at
// 110, 120 and 130 ms (frames 24-26). SRTT about 1 ms: Linux's PTO 2 SRTT +
// 2 ms = 4 ms (a jiffy), firing by 4 + 4 x 8/63 + 2 jiffies + 1 ms = 13.5
// ms, with two segments or more out: the write at 130 ms fits it, 10 ms
// after the one before; the one at 120 ms, with one segment out, would wait
// for 2 SRTT + 200 ms (TCP_RTO_MIN) and is no probe.
Scenario lone_writes() {
  Scenario s = acked_500_byte_writes();
  for (std::uint32_t k = 10; k < 13; ++k) s.data(10 * ms + 10 * ms * k, 1 + 500 * k, 500);
  return s;
}

}  // namespace

TEST_CASE("new data read as a probe is the write's when the probe is its own resend 12 ms later") {
  // The write at 130 ms (frame 26) fits the probe timer, 10 ms after the
  // one before; its own bytes are sent again at 142 ms (frame 27), the
  // highest segment, 12 ms later. Read as a probe, frame 26 leaves frame 27
  // a timer's resend of the last segment, not the earliest (5.4), 12 ms
  // into a 204 ms RTO. Read as the write it fits, frame 27 is the probe
  // (12 ms in [3, 13.5]); the head is then resent by the RTO, 204 and 408
  // ms later (frames 28, 29).
  Scenario s = lone_writes();
  s.data(142 * ms, 1 + 500 * 12, 500);
  s.data(346 * ms, 1 + 500 * 10, 500);
  s.data(754 * ms, 1 + 500 * 10, 500);
  const auto r = analyze(s, "lone-write-then-probe", Profile::linux_kernel, /*timeline=*/true);
  const auto& c = client(r);
  CHECK(event_at(c, 26) == "send");
  CHECK(event_at(c, 27) == "tlp");
  CHECK(event_at(c, 28) == "rto");
  CHECK(count(c, SendKind::tlp_new_data) == 0);
  CHECK(musts(c) == 0);
  // The same with one more write 1 ms after frame 26 (frame 27, not in its
  // train), and its bytes sent again 11 ms after it (frame 28): the probe
  // again, frame 26 the write's.
  Scenario t = lone_writes();
  t.data(131 * ms, 1 + 500 * 13, 500);
  t.data(142 * ms, 1 + 500 * 13, 500);
  t.data(346 * ms, 1 + 500 * 10, 500);
  const auto r2 = analyze(t, "lone-writes-then-probe", Profile::linux_kernel, /*timeline=*/true);
  const auto& c2 = client(r2);
  CHECK(event_at(c2, 26) == "send");
  CHECK(event_at(c2, 27) == "send");
  CHECK(event_at(c2, 28) == "tlp");
  CHECK(count(c2, SendKind::tlp_new_data) == 0);
  CHECK(musts(c2) == 0);
}

TEST_CASE("a peer segment settles a new-data probe's reading: the state it changed is not read back") {
  // Frame 26 (130 ms, two segments out) fits the probe timer: tlp-new. The
  // peer's duplicate ACK at 131 ms (frame 27: ACK 5001, SACK 6001-6501,
  // frame 26's bytes) shows a loss; frame 26's bytes are sent again at 142
  // ms (frame 28). Read with the state before frame 26 (no loss shown, no
  // probe out) frame 28 would be the probe (12 ms after frame 26, the
  // highest segment); but the duplicate ACK came between, so frame 26's
  // reading stands, and frame 28 is no probe (none is sent while a loss
  // is shown).
  Scenario s = lone_writes();
  s.ack(131 * ms, 1 + 500 * 10, {{1 + 500 * 12, 1 + 500 * 13}});
  s.data(142 * ms, 1 + 500 * 12, 500);
  const auto r = analyze(s, "probe-then-dupack", Profile::linux_kernel, /*timeline=*/true);
  const auto& c = client(r);
  CHECK(event_at(c, 26) == "tlp-new");
  CHECK(event_at(c, 28) != "tlp");
}
