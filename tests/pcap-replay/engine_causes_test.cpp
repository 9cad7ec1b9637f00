// Why a segment was sent again (analysis/engine/causes.cpp, explain()):
// each rule that rules a cause out, and each threshold it reads, at its
// boundary. The Observation is what the sender engine sees of one repeat;
// here it is written by hand, starting from a plain RTO expiry: the head
// segment resent 1 s after the arm, 1 s after the peer's last segment, in
// the Open state, SRTT 100 ms, no SACK.

#include <doctest/doctest.h>

#include <chrono>

#include <replay/analysis/options.hpp>

#include "analysis/engine/causes.hpp"
#include "analysis/engine/sender_state.hpp"

namespace {

using replay::SendKind;
using replay::engine::Cause;
using replay::engine::explain;
using replay::engine::Observation;
using std::chrono::microseconds;
using std::chrono::milliseconds;

const replay::StackProfile& profile(std::string_view name) {
  return *replay::Options::for_profile(name).profile;
}

Observation plain_expiry() {
  const replay::Options o = replay::Options::for_profile("rfc6298");
  Observation x;
  x.is_head = true;
  x.srtt = milliseconds{100};
  x.since_arm = milliseconds{1000};
  x.since_peer = milliseconds{1000};
  x.rto_left = milliseconds{1000};
  x.tolerance = o.tolerance(milliseconds{1000});
  x.absolute_tolerance = o.absolute_tolerance;
  x.slack_percent = o.slack_percent;
  x.jitter = replay::engine::timer_jitter(o);
  x.tick = o.config.tick;
  return x;
}

SendKind kind(const Observation& x, std::string_view p = "rfc6298") { return explain(x, profile(p)).kind; }

}  // namespace

TEST_CASE("the plain expiry is the RTO's") {
  CHECK(explain(plain_expiry(), profile("rfc6298")).cause == Cause::rto_timer);
}

TEST_CASE("a repeat the capture shows acknowledged is spurious, even on a timer") {
  Observation x = plain_expiry();
  x.already_acked = true;
  CHECK(kind(x) == SendKind::spurious);
  CHECK(explain(x, profile("rfc6298")).cause == Cause::already_acked);
}

TEST_CASE("a SYN: its timer's, a copy when back to back, a SYN-ACK a reply when it answers a SYN sent again") {
  Observation x = plain_expiry();
  x.syn = true;
  x.handshake = replay::engine::Handshake::syn_sent;
  CHECK(kind(x) == SendKind::syn_timeout);
  // An old TSval does not make a SYN a network copy (a SYN's TSval may be
  // any value: RFC 7323 5.4 lets a new connection restart the clock).
  x.old_tsval = true;
  CHECK(kind(x) == SendKind::syn_timeout);
  x.old_tsval = false;
  // Within kMinTimerWait of the previous SYN: no SYN timer is that fast.
  x.back_to_back = true;
  CHECK(kind(x) == SendKind::out_of_order);
  CHECK(explain(x, profile("rfc6298")).cause == Cause::network_copy);
  x.back_to_back = false;
  // A client in SYN-SENT answers nothing: its SYN is its timer's, even
  // right after the peer's SYN.
  x.answers_dup_syn = true;
  CHECK(kind(x) == SendKind::syn_timeout);
  x.syn_ack = true;
  x.handshake = replay::engine::Handshake::syn_received;
  CHECK(kind(x) == SendKind::syn_reply);
  // The capture saw the ACK that ends SYN-RCVD, but a SYN-ACK sent again
  // shows the sender had not received it: still a reply (a server-side ACK
  // captured on its way, the lab's synack-loss at the receiver, frame 7).
  x.handshake = replay::engine::Handshake::established;
  CHECK(kind(x) == SendKind::syn_reply);
  // Not within the response window of a SYN sent again: its timer's.
  x.answers_dup_syn = false;
  CHECK(kind(x) == SendKind::syn_timeout);
}

TEST_CASE("a go-back-N burst never resends what it already resent") {
  Observation x = plain_expiry();
  x.timeouts_in_chain = 1;
  x.recovery = replay::engine::Recovery::rto;
  x.in_rto_burst = true;
  CHECK(kind(x) == SendKind::slow_start_after_rto);
  CHECK(explain(x, profile("rfc6298")).cause == Cause::rto_burst);
  x.resent_in_burst = true;
  CHECK(kind(x) == SendKind::timeout);
}

TEST_CASE("soon after a peer segment: the ACK clock, below kMinTimerWait (5 ms), at the sender only") {
  // In RTO recovery (the slow start after an expiry, which the ACK clock
  // drives), the head resent 4.999 ms after a peer segment answers it;
  // 5 ms after, it does not, and the plain expiry's timing makes it the RTO.
  Observation x = plain_expiry();
  x.recovery = replay::engine::Recovery::rto;
  x.since_peer = microseconds{4'999};
  CHECK(kind(x) == SendKind::slow_start_after_rto);
  CHECK(explain(x, profile("rfc6298")).cause == Cause::recovery);
  x.since_peer = microseconds{5'000};
  CHECK(kind(x) == SendKind::timeout);
  // Captured away from the sender (a round trip of 3 ms to it), the time
  // since the peer's segment as captured says nothing by itself: the
  // engine's ack_clocked decides (false here).
  x.since_peer = microseconds{1'000};
  x.sender_rtt = microseconds{3'000};
  CHECK(kind(x) == SendKind::timeout);
}

TEST_CASE("the ACK clock resends only after the peer showed a loss, in recovery, or with a FIN") {
  // A response in time to a peer segment (ack_clocked), the head, open
  // state: an ACK that only advanced SND.UNA asks for nothing again, so it
  // is no response; the plain expiry's timing makes it the RTO (read as a
  // fast retransmit, an early timer would pass unjudged).
  Observation x = plain_expiry();
  x.ack_clocked = true;
  CHECK(kind(x) == SendKind::timeout);
  CHECK(explain(x, profile("rfc6298")).cause == Cause::rto_timer);
  // A duplicate ACK or SACK since the last ACK of new data: a fast retransmit.
  x.loss_evidence = true;
  CHECK(kind(x) == SendKind::fast);
  CHECK(explain(x, profile("rfc6298")).cause == Cause::ack_clock);
  // Fast recovery (a partial ACK answered).
  x.loss_evidence = false;
  x.recovery = replay::engine::Recovery::fast;
  CHECK(explain(x, profile("rfc6298")).cause == Cause::ack_clock);
  // A FIN acknowledging the peer's (the application's close answering it),
  // whatever its sequence number.
  x.recovery = replay::engine::Recovery::open;
  x.answers_fin = true;
  CHECK(explain(x, profile("rfc6298")).cause == Cause::ack_clock);
  // A loss probe outstanding is no recovery: the ACK clock sends nothing
  // again for it.
  x.answers_fin = false;
  x.recovery = replay::engine::Recovery::probe_out;
  CHECK(explain(x, profile("rfc6298")).cause != Cause::ack_clock);
  // At the sender, within kMinTimerWait of the peer's segment: the same.
  Observation y = plain_expiry();
  y.since_peer = microseconds{4'999};
  CHECK(kind(y) == SendKind::timeout);
  y.loss_evidence = true;
  CHECK(explain(y, profile("rfc6298")).cause == Cause::ack_clock);
}

TEST_CASE("sooner after the arm than kMinTimerWait (5 ms): no quiet period, not a timer") {
  Observation x = plain_expiry();
  x.since_arm = microseconds{4'999};
  CHECK(kind(x) == SendKind::unclassified);
  CHECK(explain(x, profile("rfc6298")).cause == Cause::no_quiet_period);
  x.since_arm = microseconds{5'000};
  CHECK(kind(x) == SendKind::timeout);
}

TEST_CASE("RACK: within max(SRTT, 10 ms) of the peer's segment, before any expiry of the chain") {
  Observation x = plain_expiry();
  x.loss_evidence = true;
  x.srtt = milliseconds{2};
  // max(2 ms, kRackWindowFloor 10 ms) = 10 ms.
  x.since_peer = microseconds{9'999};
  CHECK(explain(x, profile("rfc6298")).cause == Cause::rack_timer);
  x.since_peer = microseconds{10'000};
  CHECK(explain(x, profile("rfc6298")).cause == Cause::rto_timer);
  // After an expiry of the chain the reordering timer is not what fires.
  x.since_peer = microseconds{9'000};
  x.timeouts_in_chain = 1;
  CHECK(explain(x, profile("rfc6298")).cause == Cause::rto_timer);
}

TEST_CASE("RTO recovery resends the rest without a timer, the head only on one") {
  Observation x = plain_expiry();
  x.recovery = replay::engine::Recovery::rto;
  x.is_head = false;
  CHECK(explain(x, profile("rfc6298")).cause == Cause::recovery);
  x.is_head = true;
  CHECK(explain(x, profile("rfc6298")).cause == Cause::rto_timer);
}

TEST_CASE("the highest segment on a timer is a probe once per ACK, never with loss evidence") {
  Observation x = plain_expiry();
  x.is_head = false;
  x.is_highest = true;
  CHECK(kind(x) == SendKind::tlp);
  x.probe_since_ack = true;
  CHECK(kind(x) == SendKind::timeout);
  // fits_probe: the Linux PTO's occasion (SACK, SRTT 10 ms: PTO 24 ms),
  // then dup ACKs or a SACK hole: RACK's business, no probe.
  const replay::Options lo = replay::Options::for_profile("linux");
  Observation p;
  p.sack_negotiated = true;
  p.is_highest = true;
  p.srtt = milliseconds{10};
  p.since_arm = p.since_new_data = milliseconds{24};
  p.absolute_tolerance = lo.absolute_tolerance;
  p.jitter = replay::engine::timer_jitter(lo);
  p.tick = lo.config.tick;
  CHECK(replay::engine::fits_probe(p, *lo.profile));
  p.loss_evidence = true;
  CHECK_FALSE(replay::engine::fits_probe(p, *lo.profile));
}

TEST_CASE("the lone segment at the PTO: a probe that may have been the RTO's expiry") {
  // Head and highest at once, at a probe's time: both readings are kept
  // (maybe_rto) for the chain judge; the highest alone is a probe only.
  const replay::Options lo = replay::Options::for_profile("linux");
  Observation p;
  p.sack_negotiated = true;
  p.is_highest = true;
  p.is_head = true;
  p.single_segment = true;
  p.srtt = milliseconds{10};
  // One segment: PTO 2 x 10 + 200 = 220 ms (on a 4 ms tick).
  p.since_arm = p.since_new_data = p.since_peer = milliseconds{220};
  p.absolute_tolerance = lo.absolute_tolerance;
  p.jitter = replay::engine::timer_jitter(lo);
  p.tick = lo.config.tick;
  const auto e = explain(p, *lo.profile);
  CHECK(e.kind == SendKind::tlp);
  CHECK(e.maybe_rto);
  p.is_head = false;
  CHECK_FALSE(explain(p, *lo.profile).maybe_rto);
}

TEST_CASE("MaybeTime: none is none; a capture time at CaptureTime::min() stays a time (1 ns later)") {
  using replay::engine::MaybeTime;
  CHECK_FALSE(MaybeTime{}.has_value());
  CHECK_FALSE(MaybeTime{std::optional<replay::CaptureTime>{}}.has_value());
  const replay::CaptureTime t{std::chrono::seconds{1'700'000'000}};
  CHECK(*MaybeTime{t} == t);
  // A pcapng if_tsoffset far below 1970 can date a frame at INT64_MIN ns.
  const MaybeTime least{replay::CaptureTime::min()};
  REQUIRE(least.has_value());
  CHECK(*least == replay::CaptureTime::min() + std::chrono::nanoseconds{1});
  CHECK(std::optional<replay::CaptureTime>(MaybeTime{std::optional{replay::CaptureTime::min()}}).has_value());
}

TEST_CASE("MaybeMicros: none is none; a duration at microseconds::min() stays a duration (1 us later)") {
  using replay::engine::MaybeMicros;
  using std::chrono::microseconds;
  CHECK_FALSE(MaybeMicros{}.has_value());
  CHECK_FALSE(MaybeMicros{std::optional<microseconds>{}}.has_value());
  CHECK(MaybeMicros{std::nullopt}.value_or(microseconds{7}) == microseconds{7});
  // 0 (a capture at the sender: no round trip) is a value, not none.
  const MaybeMicros zero{microseconds{0}};
  REQUIRE(zero.has_value());
  CHECK(zero->count() == 0);
  CHECK(std::optional<microseconds>(MaybeMicros{microseconds{23'973}}) == microseconds{23'973});
  const MaybeMicros least{microseconds::min()};
  REQUIRE(least.has_value());
  CHECK(*least == microseconds::min() + microseconds{1});
  MaybeMicros m{microseconds{5}};
  m.reset();
  CHECK_FALSE(m.has_value());
}
