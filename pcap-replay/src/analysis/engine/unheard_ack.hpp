#pragma once
// What the engine holds about its peer's ACKs of new data until the sender
// shows it received them: the RTT sample each gave (taken when the sender
// must have processed the ACK; Karn voids it if the sender resent the data
// first), and the sender's timer and recovery state before each (restored
// when the sender resends what the ACK acknowledged: the ACK was lost after
// the capture point). Both are written by every ACK of new data, so their
// layout is part of the engine's per-segment cost (AckSlot0).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/judgement.hpp>
#include <replay/input/segment.hpp>

#include "analysis/engine/sender_state.hpp"

namespace replay::engine {

/// An RTT sample from an ACK the sender may not have received yet: taken
/// once it must have (`until`), voided if it resent the data first (Karn).
struct PendingSample {
  std::chrono::microseconds r;  // corrected for the capture point by correction_us
  CaptureTime until;
  std::uint32_t row_after = 0;  // its timeline row + 1 (0: none): event()
  std::int32_t correction_us = 0;  // the capture-to-sender round trip added to r (as the ACK came)
  std::uint32_t ack, snd_una, snd_nxt;
  SampleKind kind;
  bool at_sender = false;  // the capture is at the sender: it took the sample at the ACK's own time
  /// Its timeline row, to clear if refused.
  std::optional<std::size_t> event() const {
    return row_after == 0 ? std::nullopt : std::optional<std::size_t>(row_after - 1);
  }
  /// (A row past 2^32 - 2 is not kept: the sample then clears no row.)
  void set_event(std::size_t row) { row_after = row < UINT32_MAX ? static_cast<std::uint32_t>(row + 1) : 0; }
  std::chrono::microseconds correction() const { return std::chrono::microseconds{correction_us}; }
};

/// The sender's timer and recovery state, as a value: saved before each
/// ACK of new data, for when the sender shows it never received that ACK
/// (it resends what the ACK acknowledged), and restored then.
struct TimerState {
  std::optional<TimerArm> arm;
  unsigned timeouts_since_ack = 0;
  unsigned dupacks = 0;
  Recovery recovery = Recovery::open;
  bool probe_since_ack = false;
  bool sack_evidence = false;
  std::uint32_t recovery_point = 0, fast_recovery_point = 0;
};

/// The state before an ACK of new data the sender may not have received:
/// a TimerState and the ACK, flat, so that slot 0 and the pending sample's
/// slot 0 (both written by each ACK of new data) fill two cache lines, and
/// what the next segments read (the ACK's time, range and TSval) is on the
/// first, beside the pending sample (AckSlot0).
struct BeforeAck {
  CaptureTime time{};                // the ACK's capture time
  std::uint32_t una = 0, ack = 0;    // SND.UNA as the sender knew it before the ACK; the ACK
  std::uint32_t tsval_bits = 0;      // the ACK's TSval (kHasTsval): a TSecr of the sender's past it shows it arrived
  std::uint8_t present = 0;          // kHasTsval | kArmed | kArmTsval | kProbeSinceAck | kSackEvidence
  ArmCause arm_cause = ArmCause::send;
  Recovery recovery = Recovery::open;
  std::uint64_t frame = 0;           // the ACK's frame
  std::uint64_t acked_segments = 0;  // acked_segments_ before the ACK
  CaptureTime arm_earliest{}, arm_latest{};
  std::uint64_t arm_frame = 0;
  std::uint32_t arm_tsval = 0;
  unsigned timeouts_since_ack = 0, dupacks = 0;
  std::uint32_t recovery_point = 0, fast_recovery_point = 0;
  std::int32_t arm_held_us = 0;      // the arm's TimerArm::held_us

  static constexpr std::uint8_t kHasTsval = 1, kArmed = 2, kArmTsval = 4, kProbeSinceAck = 8, kSackEvidence = 16;
  BeforeAck() = default;
  BeforeAck(const TimerState& before, std::uint64_t ack_frame, CaptureTime ack_time, std::uint32_t snd_una,
            std::uint32_t ack_seq, std::optional<std::uint32_t> ack_tsval, std::uint64_t acked);
  std::optional<std::uint32_t> tsval() const {
    return (present & kHasTsval) != 0 ? std::optional<std::uint32_t>(tsval_bits) : std::nullopt;
  }
  TimerState state() const;
};

/// Slot 0 of the pending samples and of the states before ACKs, the slots
/// every ACK of new data writes when the rings are empty (as they are
/// again after each segment that shows the ACK heard): two lines.
struct alignas(64) AckSlot0 {
  PendingSample pending;
  BeforeAck before;
};
static_assert(sizeof(PendingSample) == 40 && sizeof(AckSlot0) == 128);
static_assert(offsetof(AckSlot0, before) + offsetof(BeforeAck, frame) == 64,
              "the ACK's time, range and TSval beside the pending sample, on the first line");

}  // namespace replay::engine
