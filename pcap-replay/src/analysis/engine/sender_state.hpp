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

/// A value or none, in the value's own 8 bytes where std::optional takes 16:
/// the engine keeps a dozen per sender on the per-segment path, and every
/// cache line of a sender's state is one more miss per segment once
/// thousands of connections interleave. T::min() stands for none; a value
/// equal to it is stored one Step later (it stays a value). The interface
/// is std::optional's, as far as the engine uses it.
template <class T, class Step>
class MinIsNone {
 public:
  constexpr MinIsNone() = default;
  constexpr MinIsNone(std::nullopt_t) {}                       // NOLINT: as std::optional
  constexpr MinIsNone(T v) : v_(v == kNone ? kLeast : v) {}   // NOLINT
  constexpr MinIsNone(const std::optional<T>& o) : v_(o ? MinIsNone(*o).v_ : kNone) {}  // NOLINT
  constexpr operator std::optional<T>() const {  // NOLINT
    return has_value() ? std::optional<T>(v_) : std::nullopt;
  }
  constexpr bool has_value() const { return v_ != kNone; }
  constexpr explicit operator bool() const { return has_value(); }
  constexpr const T& operator*() const { return v_; }
  constexpr const T* operator->() const { return &v_; }
  constexpr T value_or(T d) const { return has_value() ? v_ : d; }
  constexpr void reset() { v_ = kNone; }
  friend constexpr bool operator==(const MinIsNone& a, const MinIsNone& b) { return a.v_ == b.v_; }

 private:
  static constexpr T kNone = T::min();
  static constexpr T kLeast = kNone + Step{1};
  T v_ = kNone;
};

/// A capture time or none. CaptureTime::min() (1677) is none: a crafted
/// capture dated there (a pcapng if_tsoffset far below 1970) is kept 1 ns
/// later.
using MaybeTime = MinIsNone<CaptureTime, std::chrono::nanoseconds>;
/// A duration or none (a round trip, a holding time: never
/// microseconds::min(), which is none).
using MaybeMicros = MinIsNone<std::chrono::microseconds, std::chrono::microseconds>;
static_assert(sizeof(MaybeTime) == 8 && sizeof(MaybeMicros) == 8);

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
