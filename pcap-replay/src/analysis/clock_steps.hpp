#pragma once
// The steps of one input's capture clock as the model sees them. The reader
// re-bases the frames after a step back larger than limits::kClockReorderMax
// (Segment::rebase) so the model's clock is monotonic; this records where
// each re-based stretch begins on that clock, so that the model can tell an
// interval across a step (unknowable: the capture cannot say how much time
// passed) from one wholly on one side, and the report can print every time
// as the frame's own capture time again.

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include <replay/input/segment.hpp>

namespace replay {

/// Segment::time + Segment::rebase, saturated at the limits of CaptureTime
/// (a crafted file cannot make it wrap): the time the model works on.
CaptureTime model_time(const Segment& s);

/// One step of the capture clock between two segments of an input.
struct ModelStep {
  CaptureTime from;                 ///< model time where the re-based stretch after it begins
  std::chrono::nanoseconds rebase;  ///< Segment::rebase inside that stretch
  std::uint64_t frame = 0;          ///< the first segment after the step (Wireshark frame number)
  std::uint64_t prev_frame = 0;     ///< the segment before it (0: none)
  /// How much earlier `frame` is dated than `prev_frame` (their capture times).
  std::chrono::nanoseconds back{0};
};

/// The clock steps of one input file, on the model's (re-based) clock.
class ClockSteps {
 public:
  /// Segment `s` of this input, in file order, at model time `model`
  /// (model_time(s)): a Segment::rebase other than the previous one begins
  /// a new stretch 1 ns after the latest model time seen before it (the
  /// reader places the step's frame limits::kClockReorderMax + 1 ns after
  /// that, so a frame reordered after the step still lands after it).
  void observe(const Segment& s, CaptureTime model);
  /// The step of the capture clock between model times `a` and `b` (either
  /// order; the first if several), or null: an interval from one to the
  /// other is unknown. O(log steps); null at once for an input whose clock
  /// never stepped.
  const ModelStep* between(CaptureTime a, CaptureTime b) const;
  /// (Inline: an input whose clock never stepped, the common case, answers without a call.)
  bool spans(CaptureTime a, CaptureTime b) const { return !stretches_.empty() && between(a, b) != nullptr; }
  /// The frame's own capture time (Segment::time) of model time `model`.
  CaptureTime capture_time(CaptureTime model) const;
  /// True when no frame of the input was re-based.
  bool empty() const { return stretches_.empty(); }

 private:
  // A Segment::rebase other than the previous one: a new stretch (observe's
  // rare case, a call apart so that the common one stays small).
  [[gnu::noinline]] void begin_stretch(const Segment& s);

  std::vector<ModelStep> stretches_;   // ascending `from`
  std::chrono::nanoseconds rebase_{0};
  std::optional<CaptureTime> latest_;  // the latest model time observed
  CaptureTime last_capture_{};         // capture time of the last segment observed
  std::uint64_t last_frame_ = 0;
};

}  // namespace replay
