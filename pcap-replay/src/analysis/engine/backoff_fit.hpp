#pragma once
// Does a chain of observed waits show an RTO that doubles (RFC 6298 5.5),
// up to a cap (2.5)? The question as the capture lets us ask it: is there an
// RTO R at the chain's first expiry, a cap C in the range the rule allows
// and a lateness the stack's timer model allows, such that every expiry's
// wait interval meets the window an RTO of min(R * 2^d, C) fires in (d: the
// doublings before it)? R is free: 5.5 is about the doubling, not about the
// estimator (the first expiry's wait against the estimator is another rule).
// The waits are intervals, so the answer is "some point of every interval
// fits"; the constraints are linear in R and the lateness constant s, so the
// feasible set is a polygon found exactly (integer arithmetic, no rounding
// that could move a boundary).
//
// The same fit, over the waits before an expiry, predicts the window its
// wait must meet (doubled) and the one a departure would give (not doubled):
// a prediction made before the wait it judges, never fitted around it.

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>

#include <replay/analysis/interval.hpp>

#include "analysis/engine/lateness.hpp"

namespace replay::engine {

/// One expiry of a chain as the fit sees it.
struct FitWait {
  /// The observed wait, widened by the clock's granularity. Unknown (a step
  /// of the capture clock, a burst the host flushed): [0, max], no constraint.
  Interval wait;
  /// Doublings of the RTO before this expiry since the chain's first one (a
  /// linear expiry, as Linux's first SYN expiries, adds none).
  unsigned doublings = 0;
  /// This wait and the `span` - 1 before it together, widened likewise,
  /// where the frames between them were sent at moments the capture does
  /// not show (a held burst): each wait alone is loose, their sum is not.
  /// Nullopt: none (span >= 2 when set, all of it in the span of waits fitted).
  std::optional<Interval> span_sum;
  unsigned span = 0;
};

/// What the fit allows.
struct FitBounds {
  std::chrono::microseconds r_min{1};  ///< R is at least this (an RTO is positive)
  /// The caps the rule (or the profile) allows; [max, max] for none.
  Interval cap{std::chrono::microseconds::max(), std::chrono::microseconds::max()};
  /// The first expiry a cap may hold: a reading where the backoff grows
  /// before it is capped asks for 2 (one doubling first).
  std::size_t capped_from_least = 0;
};

/// The parameters that explain the chain, when some do.
struct Fit {
  Interval base;      ///< R: the RTO at the chain's first expiry
  Interval additive;  ///< s: the constant lateness (additive models; [0, 0] otherwise)
  /// The index of the first expiry held at the cap, when the fit needs one;
  /// `cap` then holds the caps that explain it.
  std::optional<std::size_t> capped_from;
  Interval cap{};
};

/// The parameters that explain every wait of `waits` under `l` and `b`, or
/// nullopt when none do. A cap is tried only for a lateness whose constant
/// is fixed (not inferred), and is used only when no uncapped fit exists.
std::optional<Fit> fit(std::span<const FitWait> waits, const TimerLateness& l, const FitBounds& b);

/// What the fit of `waits` predicts for the next expiry, which comes after
/// `doublings` doublings since the chain's first: the RTO values (plus the
/// constant lateness) and the window of waits they fire after.
struct Prediction {
  Interval rto;   ///< R * 2^d capped, plus s
  Interval fire;  ///< the waits it fires after (the lateness added)
};

/// nullopt when `waits` is empty or no fit explains it.
std::optional<Prediction> predict(std::span<const FitWait> waits, unsigned doublings, const TimerLateness& l,
                                  const FitBounds& b);

}  // namespace replay::engine
