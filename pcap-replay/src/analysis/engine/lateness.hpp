#pragma once
// How late a stack's retransmission timer fires after the RTO it was armed
// with. Timers never fire early (an expiry before the RTO is a departure,
// 5.3/5.6), but they fire late, and how late decides whether a chain of waits
// shows a doubled RTO (5.5): a timer wheel is late by up to a fraction of the
// timeout (Linux: one bucket, at most 1/8 of it), FreeBSD and Darwin add a
// constant slop to every arm (200 ms), and a stack nobody named is read from
// its own waits (either, whichever its chain supports).

#include <chrono>
#include <optional>
#include <vector>

#include <replay/analysis/interval.hpp>
#include <replay/analysis/judgement.hpp>
#include <replay/analysis/options.hpp>

namespace replay::engine {

/// One lateness model: an RTO of x fires after a wait in
/// [x + s, x + fraction * x + absolute + s], s a constant in `additive`.
struct TimerLateness {
  Reading reading = Reading::proportional_lateness;  ///< which of the two kinds
  Ratio fraction{0, 1};                 ///< up to this fraction of the RTO late ...
  std::chrono::microseconds absolute{0};  ///< ... plus this (a timer tick)
  /// The constant added to every arm (additive_lateness; [0, 0] otherwise).
  /// Unbounded above when it is read from the chain (`inferred`).
  Interval additive{};
  /// The constant is not the profile's but read from the chain's waits: it
  /// is relied on only once limits::kInferredAdditiveWaits waits pin it.
  bool inferred = false;
  /// The constant is at most this share of R, the RTO at the chain's first
  /// expiry (limits::kMaxSlopOfBase): the reading of an inferred constant
  /// beyond limits::kMaxInferredSlop. Nullopt: no such bound.
  std::optional<Ratio> at_most_of_base;
};

/// The waits after which a timer armed with an RTO of `rto` may fire under `l`.
Interval fire_window(const TimerLateness& l, std::chrono::microseconds rto);

/// How late the profile's timers fire on their own clock, without any
/// constant added at the arm: the wheel's rounding (Linux), the tick of a
/// slop-adding stack, or --slack. The probe timer's lateness, and the
/// proportional part of every model below.
TimerLateness timer_jitter(const Options& o);

/// The lateness models the profile of `o` allows for a data chain (`syn`
/// false) or a SYN chain, the profile's own first: Linux's timer wheel;
/// FreeBSD's and Darwin's 200 ms slop (data only: their SYN schedule is the
/// bare table); a proportional lateness of --slack for Windows; and for RFC
/// 6298 as written (a stack the profile does not name) either a
/// proportional lateness of --slack or, for data, a constant inferred from
/// the chain: up to limits::kMaxInferredSlop, or beyond it up to
/// limits::kMaxSlopOfBase of the chain's first RTO.
std::vector<TimerLateness> lateness_models(const Options& o, bool syn);

}  // namespace replay::engine
