// The sender's state before an ACK of new data, as the engine keeps it
// (analysis/engine/unheard_ack.hpp): packed beside the pending sample so that
// each ACK writes two cache lines, and restored whole when the sender shows
// it never received the ACK. Each field must come back as it went in; a
// flag read from the wrong bit, or a field dropped, changes the restored
// timer (its arm's window and TSval, the recovery it was in).

#include <doctest/doctest.h>

#include <chrono>
#include <optional>

#include "analysis/engine/unheard_ack.hpp"

namespace {

using namespace replay;
using namespace replay::engine;
using std::chrono::nanoseconds;

CaptureTime at(std::int64_t ns) { return CaptureTime{nanoseconds{ns}}; }

void check_state(const TimerState& in, const BeforeAck& b);

// The state and the ACK's own fields, with the ACK's TSval absent and
// present (a value unlike the arm's, so that one read for the other fails).
void check_round_trip(const TimerState& in) {
  for (const std::optional<std::uint32_t> ack_tsval : {std::optional<std::uint32_t>{}, std::optional<std::uint32_t>{0x12345678u}}) {
    const BeforeAck b{in, 77, at(5'000), 1000, 2448, ack_tsval, 9};
    CHECK(b.tsval() == ack_tsval);
    CHECK(b.frame == 77);
    CHECK(b.time == at(5'000));
    CHECK(b.una == 1000);
    CHECK(b.ack == 2448);
    CHECK(b.acked_segments == 9);
    check_state(in, b);
  }
}

void check_state(const TimerState& in, const BeforeAck& b) {
  const TimerState out = b.state();
  REQUIRE(out.arm.has_value() == in.arm.has_value());
  if (in.arm) {
    CHECK(out.arm->cause == in.arm->cause);
    CHECK(out.arm->earliest == in.arm->earliest);
    CHECK(out.arm->latest == in.arm->latest);
    CHECK(out.arm->tsval == in.arm->tsval);
    CHECK(out.arm->frame == in.arm->frame);
  }
  CHECK(out.timeouts_since_ack == in.timeouts_since_ack);
  CHECK(out.dupacks == in.dupacks);
  CHECK(out.recovery == in.recovery);
  CHECK(out.probe_since_ack == in.probe_since_ack);
  CHECK(out.sack_evidence == in.sack_evidence);
  CHECK(out.recovery_point == in.recovery_point);
  CHECK(out.fast_recovery_point == in.fast_recovery_point);
}

}  // namespace

TEST_CASE("unheard ACK: the state before it comes back field by field, each flag on its own") {
  // Every field away from its default, then each boolean and the arm's
  // TSval alone: a flag on the wrong bit, or one field restored from
  // another (the arm's latest from its earliest), fails one of these.
  TimerState full;
  full.arm = TimerArm{ArmCause::head_retransmit, at(1'000'000), at(1'250'000), 0xfffffff0u, 4242};
  full.timeouts_since_ack = 3;
  full.dupacks = 2;
  full.recovery = Recovery::rto;
  full.probe_since_ack = true;
  full.sack_evidence = true;
  full.recovery_point = 0x80000001u;
  full.fast_recovery_point = 0x7fffffffu;
  check_round_trip(full);

  TimerState probe_only;
  probe_only.probe_since_ack = true;
  probe_only.recovery = Recovery::probe_out;
  check_round_trip(probe_only);

  TimerState sack_only;
  sack_only.sack_evidence = true;
  sack_only.recovery = Recovery::fast;
  check_round_trip(sack_only);

  TimerState arm_without_tsval;
  arm_without_tsval.arm = TimerArm{ArmCause::ack, at(7), at(9), std::nullopt, 0};
  check_round_trip(arm_without_tsval);

  TimerState arm_tsval_zero;  // a TSval of 0 is a TSval
  arm_tsval_zero.arm = TimerArm{ArmCause::send, at(7), at(7), 0u, 1};
  check_round_trip(arm_tsval_zero);

  check_round_trip(TimerState{});  // stopped timer
}

TEST_CASE("unheard ACK: the ACK's own fields, its TSval present or not") {
  const BeforeAck with{TimerState{}, 12, at(3'000), 100, 200, 0u, 5};
  CHECK(with.frame == 12);
  CHECK(with.time == at(3'000));
  CHECK(with.una == 100);
  CHECK(with.ack == 200);
  REQUIRE(with.tsval().has_value());
  CHECK(*with.tsval() == 0u);
  CHECK(with.acked_segments == 5);
  const BeforeAck without{TimerState{}, 12, at(3'000), 100, 200, std::nullopt, 5};
  CHECK_FALSE(without.tsval().has_value());
}

TEST_CASE("pending sample: its timeline row, row 0 included, or none") {
  PendingSample p{std::chrono::microseconds{10}, at(0), 0, 0, 1, 2, 3, SampleKind::seq};
  CHECK_FALSE(p.event().has_value());
  p.set_event(0);
  REQUIRE(p.event().has_value());
  CHECK(*p.event() == 0);
  p.set_event(41);
  CHECK(*p.event() == 41);
}
