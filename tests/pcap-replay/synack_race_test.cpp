// A server's SYN-ACK timer and its answer to the client's SYN sent again,
// crossing: both identical (IPv4 ID 0, one TSval) within one tick, captured
// at the client. Two transmissions, not a transmission and a capture copy,
// and the timer's first: Linux re-arms the SYN-ACK timer when it answers a
// duplicate SYN (tcp_check_req), so no expiry follows an answer that soon
// (SenderEngine::read_held_synack, second_of_held_synack; the copy test's
// Answerable). An answer alone, when the timer cannot be due, and its copy
// stay one transmission and a copy. The lab's synack-loss-recv
// (tests/captures/lab/) is the kernel's own case; here each condition is
// moved to its boundary.

#include <doctest/doctest.h>

#include <replay/analysis/thresholds.hpp>

#include "identity_capture.hpp"
#include "replay_scenario.hpp"

using identitytest::Capture;
using replay::SendKind;
using replaytest::count;
using replaytest::Profile;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

// Captured at the client (TSval 1 kHz; the server's SYN-ACKs carry ID 0, as
// Linux's do): the SYN at 0 (frame 1); the server's SYN-ACK `rtt_us` later
// (2: the round trip to the server), lost after the capture point; with
// `timer_fired`, the SYN-ACK timer's at 1000 ms + rtt_us (the first expiry;
// lost too); the client's SYN again (3) `rtt_us` + 10 us before the SYN-ACK
// at `a_us` (4: by default 1000 ms + rtt_us + 10 us, 1000.01 ms after frame
// 2); the same bytes `gap_us` later (5); the client's ACK (6) 30 us after
// frame 5.
struct Race {
  std::int64_t rtt_us = 50;        // the lab's veth
  std::int64_t a_us = 0;           // frame 4's time (0: 1000 ms + rtt_us + 10 us)
  std::int64_t gap_us = 30;
  bool timer_fired = false;       // an expiry of the SYN-ACK timer before frame 3
  bool dup_syn = true;            // frame 3 sent (the client asked again)
  bool copies_shown = false;      // frame 1 captured twice, 10 us apart (same ID: a copy)
  bool second = true;             // frame 5 in the capture
  bool ack = true;                // frame 6 in the capture
  std::int64_t t4() const { return a_us ? a_us : 1000 * ms + rtt_us + 10; }
};

Capture race(const Race& o) {
  Capture c;
  const std::vector<std::uint16_t> none;
  c.add({0, none, true, 1000, 0, wire::kSyn, 0, 100, 0, 0x100});
  if (o.copies_shown) c.add({10, none, true, 1000, 0, wire::kSyn, 0, 100, 0, 0x100});
  c.add({o.rtt_us, none, false, 70000, 1001, wire::kSyn | wire::kAck, 0, 5000, 100, 0});
  if (o.timer_fired) c.add({1000 * ms + o.rtt_us, none, false, 70000, 1001, wire::kSyn | wire::kAck, 0, 6000, 100, 0});
  const std::int64_t t4 = o.t4();
  if (o.dup_syn) c.add({t4 - o.rtt_us - 10, none, true, 1000, 0, wire::kSyn, 0, 100 + t4 / ms, 0, 0x101});
  const std::uint32_t ts4 = 5000 + static_cast<std::uint32_t>(t4 / ms);
  c.add({t4, none, false, 70000, 1001, wire::kSyn | wire::kAck, 0, ts4, 100, 0});
  if (o.second) c.add({t4 + o.gap_us, none, false, 70000, 1001, wire::kSyn | wire::kAck, 0, ts4, 100, 0});
  if (o.ack) c.add({t4 + o.gap_us + 30, none, true, 1001, 70001, wire::kAck, 0, 101 + t4 / ms, ts4, 0x102});
  return c;
}

struct Read {
  std::uint64_t copies = 0;
  std::size_t timer = 0, reply = 0, timeouts = 0, musts = 0;
  std::string frame4;  // the server's SYN-ACK after the duplicate SYN: its event
};

Read read(const Race& o, std::string_view profile = Profile::linux_kernel) {
  const std::string path = race(o).write("synack-race");
  const replay::Report r = replaytest::analyze(path, profile, /*timeline=*/true);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  REQUIRE(r.flows.size() == 1);
  const replay::SenderReport& server = r.flows[0].senders[1];
  Read out;
  out.copies = r.flows[0].capture_duplicates;
  out.timer = count(server, SendKind::syn_timeout);
  out.reply = count(server, SendKind::syn_reply);
  out.timeouts = server.timeouts.size();
  out.musts = replaytest::musts(server);
  const std::uint64_t f4 = 4 + (o.copies_shown ? 1 : 0) + (o.timer_fired ? 1 : 0) - (o.dup_syn ? 0 : 1);
  for (const auto& e : server.timeline)
    if (e.frame == f4) out.frame4 = e.event;
  return out;
}

}  // namespace

TEST_CASE("SYN-ACK race: the timer's SYN-ACK and the answer to the SYN sent again, identical, are two transmissions") {
  for (std::string_view p : {Profile::linux_kernel, Profile::rfc6298, Profile::automatic}) {
    CAPTURE(p);
    const Read r = read(Race{}, p);
    CHECK(r.copies == 0);
    CHECK(r.frame4 == "syn-rto");  // the timer's: 1000.01 ms after frame 2
    CHECK(r.timer == 1);
    CHECK(r.reply == 1);           // frame 5 answers frame 3
    CHECK(r.timeouts == 1);
    CHECK(r.musts == 0);
  }
}

TEST_CASE("SYN-ACK race: without the SYN sent again, or where the capture duplicates, the second is a copy") {
  // Nothing asked for it again: the same bytes 30 us later are the
  // datagram captured twice (kSameTsvalWindow), the first the timer's.
  Race no_syn;
  no_syn.dup_syn = false;
  const Read a = read(no_syn);
  CHECK(a.copies == 1);
  CHECK(a.frame4 == "syn-rto");
  CHECK(a.timer == 1);
  CHECK(a.reply == 0);
  // The capture showed a copy (the SYN twice with one ID): the second
  // SYN-ACK is read as a copy too, and the first answers the SYN sent again
  // (settled by the client's ACK after it).
  Race dup;
  dup.copies_shown = true;
  const Read b = read(dup);
  CHECK(b.copies == 2);
  CHECK(b.frame4 == "syn-reply");
  CHECK(b.timer == 0);
  CHECK(b.reply == 1);
}

TEST_CASE("SYN-ACK race: the timer's first only when the same SYN-ACK follows sooner than kMinTimerWait") {
  using replay::limits::kMinTimerWait;
  // On a 20 ms round trip (frame 5 well within the answer's window of the
  // SYN sent again at any gap below): kMinTimerWait - 1 us after frame 4,
  // the timer's, then the answer.
  Race near;
  near.rtt_us = 20 * ms;
  near.gap_us = kMinTimerWait.count() - 1;
  const Read a = read(near);
  CHECK(a.frame4 == "syn-rto");
  CHECK(a.reply == 1);
  // At kMinTimerWait: frame 4 answered the SYN (its timer re-armed).
  Race far = near;
  far.gap_us = kMinTimerWait.count();
  CHECK(read(far).frame4 == "syn-reply");
  // On the 50 us path the same 4.999 ms is past the answer's window of the
  // SYN sent again (a response within 2 ms, limits::kAckClockMin and the
  // capture's round trip): frame 5 answers nothing, frame 4 did.
  Race late = near;
  late.rtt_us = 50;
  CHECK(read(late).frame4 == "syn-reply");
  // Alone (the capture ends at it, or the client's ACK follows): the answer.
  Race alone;
  alone.second = false;
  const Read c = read(alone);
  CHECK(c.frame4 == "syn-reply");
  CHECK(c.timer == 0);
  alone.ack = false;
  CHECK(read(alone).frame4 == "syn-reply");
}

TEST_CASE("SYN-ACK race: only when the timer can be due, with its backoff: else the answer and a copy") {
  // Linux's profile: RTO 1 s, a 4 ms tick, 1 ms absolute tolerance. Frame
  // 2 at 50 us arms the timer; the least wait it can fire after is 1000 -
  // 4 - 1 = 995 ms: frame 4 at 50 us + 995 ms may be the timer's (then
  // frame 5, 30 us later, the answer); 1 us sooner it cannot, so frame 4
  // answers the SYN and frame 5 is the same datagram captured again.
  Race due;
  due.a_us = 50 + 995 * ms;
  const Read a = read(due);
  CHECK(a.frame4 == "syn-rto");
  CHECK(a.copies == 0);
  Race early = due;
  early.a_us -= 1;
  const Read b = read(early);
  CHECK(b.frame4 == "syn-reply");
  CHECK(b.copies == 1);
  CHECK(b.timer == 0);
  // After one expiry (the timer's SYN-ACK at 1000.05 ms re-arms it for
  // 2 s): the SYN sent again answered at 1900.06 ms, 900 ms after it, and
  // its copy 30 us later are one answer and a copy, whatever the profile:
  // no second expiry, so none "not doubled" (under RFC 6298 that reading
  // was a MUST 5.5 at 900 ms after a 1000 ms wait). The boundary, Linux's:
  // 2000 - 4 - 1 = 1995 ms after that expiry.
  for (std::string_view p : {Profile::linux_kernel, Profile::rfc6298}) {
    CAPTURE(p);
    Race backed_off;
    backed_off.timer_fired = true;
    backed_off.a_us = 1900 * ms + 60;
    const Read c = read(backed_off, p);
    CHECK(c.frame4 == "syn-reply");
    CHECK(c.copies == 1);
    CHECK(c.timer == 1);  // the expiry at 1000.05 ms
    CHECK(c.musts == 0);
  }
  Race backed_off;
  backed_off.timer_fired = true;
  backed_off.a_us = 1000 * ms + 50 + 1995 * ms;
  CHECK(read(backed_off).frame4 == "syn-rto");
  backed_off.a_us -= 1;
  CHECK(read(backed_off).frame4 == "syn-reply");
}

TEST_CASE("SYN-ACK race: sooner after the previous SYN-ACK than its timer's least wait, the first is the answer") {
  // The client's SYN again at 500 ms: frame 4, 500 ms after frame 2, is
  // sooner than the timer can fire: the answer, whatever follows, and the
  // same bytes 30 us later a copy (no expiry).
  Race soon;
  soon.a_us = 500 * ms + 60;
  const Read r = read(soon);
  CHECK(r.frame4 == "syn-reply");
  CHECK(r.timer == 0);
  CHECK(r.timeouts == 0);
  CHECK(r.copies == 1);
}
