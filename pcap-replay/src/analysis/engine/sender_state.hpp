#pragma once
// The sender's state as the engine reconstructs it from the wire, as types:
// where its handshake stands, which recovery it is in, its sequence variables
// and its retransmission timer's arm. Each is what the sender can have known
// at that moment, read through the capture point's offset from it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include <replay/analysis/interval.hpp>
#include <replay/analysis/judgement.hpp>
#include <replay/input/segment.hpp>

namespace replay::engine {

/// Where the sender's handshake stands (RFC 9293 3.3.2, from its side).
enum class Handshake : std::uint8_t {
  none,          ///< nothing sent yet
  mid_stream,    ///< its first segment was not a SYN: the capture began after the handshake
  syn_sent,      ///< its SYN is out and not acknowledged (a client in SYN-SENT)
  syn_received,  ///< it answered the peer's SYN with a SYN-ACK not yet acknowledged (SYN-RECEIVED)
  established,   ///< its SYN (or SYN-ACK) is acknowledged
};
/// "none", "mid-stream", "syn-sent", "syn-received", "established".
std::string_view to_string(Handshake h);

/// Which loss recovery the sender is in (Linux's congestion states, RFC 6675).
enum class Recovery : std::uint8_t {
  open,       ///< no loss being repaired
  probe_out,  ///< a tail-loss probe is out and no ACK of new data came since (RFC 8985 7.3)
  fast,       ///< fast (SACK, RACK) recovery: until SND.UNA passes the recovery point
  rto,        ///< RTO recovery (Linux CA_Loss): after an expiry until SND.UNA passes the recovery point
};
/// "open", "probe-out", "fast", "rto".
std::string_view to_string(Recovery r);

/// The sequence variables (RFC 9293 3.3.1) as the capture shows them. The
/// sender's SND.NXT after a go-back-N resend is behind SND.MAX; the model
/// keeps SND.MAX, the highest sequence number sent plus its length.
struct SendSequence {
  std::uint32_t isn = 0;      ///< the initial sequence number (the SYN's, else first SEQ - 1)
  std::uint32_t snd_una = 0;  ///< SND.UNA: the oldest unacknowledged sequence number
  std::uint32_t snd_max = 0;  ///< SND.MAX: one past the highest sequence number sent
  std::uint32_t recovery_point = 0;  ///< SND.MAX when the current recovery began
};

/// A capture time or none, in 8 bytes where std::optional<CaptureTime> takes
/// 16: the engine keeps a dozen per sender on the per-segment path, and
/// every cache line of a sender's state is one more miss per segment once
/// thousands of connections interleave. CaptureTime::min() (1677) stands for
/// none; a time equal to it is stored 1 ns later.
class MaybeTime {
 public:
  constexpr MaybeTime() = default;
  constexpr MaybeTime(std::nullopt_t) {}                 // NOLINT: as std::optional
  constexpr MaybeTime(CaptureTime t) : t_(t == kNone ? kLeast : t) {}  // NOLINT
  constexpr MaybeTime(const std::optional<CaptureTime>& o) : t_(o ? MaybeTime(*o).t_ : kNone) {}  // NOLINT
  constexpr operator std::optional<CaptureTime>() const {  // NOLINT
    return has_value() ? std::optional<CaptureTime>(t_) : std::nullopt;
  }
  constexpr bool has_value() const { return t_ != kNone; }
  constexpr explicit operator bool() const { return has_value(); }
  constexpr const CaptureTime& operator*() const { return t_; }
  constexpr CaptureTime value_or(CaptureTime d) const { return has_value() ? t_ : d; }
  constexpr void reset() { t_ = kNone; }
  friend constexpr bool operator==(const MaybeTime& a, const MaybeTime& b) { return a.t_ == b.t_; }

 private:
  static constexpr CaptureTime kNone = CaptureTime::min();
  // A crafted capture can date a frame at kNone (a pcapng if_tsoffset far
  // below 1970): kept as the next nanosecond, so it stays a time.
  static constexpr CaptureTime kLeast = kNone + std::chrono::nanoseconds{1};
  CaptureTime t_ = kNone;
};

/// A duration or none, in 8 bytes where std::optional<microseconds> takes
/// 16 (as MaybeTime): microseconds::min() stands for none; a duration equal
/// to it (no round trip or holding time is) is stored 1 us later.
class MaybeMicros {
 public:
  using us = std::chrono::microseconds;
  constexpr MaybeMicros() = default;
  constexpr MaybeMicros(std::nullopt_t) {}                         // NOLINT: as std::optional
  constexpr MaybeMicros(us d) : d_(d == kNone ? kLeast : d) {}     // NOLINT
  constexpr MaybeMicros(const std::optional<us>& o) : d_(o ? MaybeMicros(*o).d_ : kNone) {}  // NOLINT
  constexpr operator std::optional<us>() const {  // NOLINT
    return has_value() ? std::optional<us>(d_) : std::nullopt;
  }
  constexpr bool has_value() const { return d_ != kNone; }
  constexpr explicit operator bool() const { return has_value(); }
  constexpr const us& operator*() const { return d_; }
  constexpr const us* operator->() const { return &d_; }
  constexpr us value_or(us d) const { return has_value() ? d_ : d; }
  constexpr void reset() { d_ = kNone; }
  friend constexpr bool operator==(const MaybeMicros& a, const MaybeMicros& b) { return a.d_ == b.d_; }

 private:
  static constexpr us kNone = us::min();
  static constexpr us kLeast = kNone + us{1};
  us d_ = kNone;
};

/// The retransmission timer's arm: what (re)started it and when. The time is
/// an interval on the capture's clock of the sender's own transmissions: an
/// arm by an ACK is read when the sender received it, up to one
/// capture-to-sender round trip after the capture saw it; a stack may also
/// have re-armed it at an event its profile does not (a head retransmission,
/// a SACK sample), so the latest reading is the latest such event.
struct TimerArm {
  TimerArm() = default;
  /// The arguments in the order the members were once declared in (the
  /// callers' order): the cause, the earliest and latest times, the TSval,
  /// the frame, the holding time.
  TimerArm(ArmCause why, CaptureTime from, CaptureTime to, std::optional<std::uint32_t> ts, std::uint64_t by_frame,
           std::int32_t held = 0)
      : earliest(from), latest(to), frame(by_frame), tsval(ts), held_us(held), cause(why) {}
  // (The members widest first: 40 bytes, so that the engine's arm, with its
  // flag, and the counters read beside it share one cache line.)
  CaptureTime earliest{};                ///< the earliest time it can have been armed
  CaptureTime latest{};                  ///< the latest
  std::uint64_t frame = 0;               ///< that transmission's frame (0: armed by the peer's segment)
  std::optional<std::uint32_t> tsval;    ///< the sender's TSval at the arm, when its transmission armed it
  /// How long the transmission at `latest` was held between the sender and
  /// the capture point (its TSval shows; SenderEngine::causal_send_time; 0
  /// for an event of the peer's): the times are the capture's, the sender
  /// armed it at sent().
  std::int32_t held_us = 0;
  ArmCause cause = ArmCause::send;       ///< the latest reading's cause
  CaptureTime sent() const { return latest - std::chrono::microseconds{held_us}; }
};
static_assert(sizeof(std::optional<TimerArm>) == 48, "the engine's arm_ and the counters beside it on one line");

/// `later - earlier` in microseconds (truncated).
inline std::chrono::microseconds since(CaptureTime later, CaptureTime earlier) {
  return std::chrono::duration_cast<std::chrono::microseconds>(later - earlier);
}

/// The wait from `arm` to a transmission captured at `t`: [t - latest, t - earliest].
Interval wait_since(const TimerArm& arm, CaptureTime t);

}  // namespace replay::engine
