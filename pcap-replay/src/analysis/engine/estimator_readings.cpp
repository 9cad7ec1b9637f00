#include "analysis/engine/estimator_readings.hpp"

#include <algorithm>

namespace replay::engine {

using std::chrono::microseconds;

namespace {
rto::Config with_floor(rto::Config c, microseconds floor) {
  c.min_rto = floor;
  return c;
}
// The least minimum a documented setting of the profile allows (nullopt: none).
std::optional<microseconds> settable_floor(const Options& o) {
  if (o.user_min_rto) return std::nullopt;  // the user pinned it
  for (const Tunable& t : o.profile->tunables)
    if (t.kind == Tunable::Kind::min_rto) return t.lo;
  return std::nullopt;
}
Interval between(microseconds a, microseconds b) { return {std::min(a, b), std::max(a, b)}; }
}  // namespace

EstimatorReadings::EstimatorReadings(const Options& options)
    // One estimator built from the profile (its Config validated there); the
    // other readings start as copies of it (nothing to validate again).
    : est_(options.config), floorless_(est_), est_raw_(est_), floorless_raw_(est_), opt_(options) {
  // The same arithmetic without the floor: the reading 2.4 (a SHOULD) tells
  // apart from 5.3 under RFC 6298; under a profile whose floor is a setting
  // (Linux rto_min), the least RTO that setting allows.
  const auto floor = options.profile->floor == FloorMode::on_sum &&
                             options.config.variant == rto::Config::Variant::rfc6298
                         ? std::optional<microseconds>(microseconds{0})
                         : settable_floor(options);
  if (floor) {
    try {
      floorless_ = ReplayedRto(with_floor(options.config, *floor));
      floorless_raw_ = floorless_;
      floorless_on_ = true;
    } catch (const rto::ConfigError&) {
      floorless_on_ = false;  // the user's settings leave no valid floorless reading
    }
  }
}

bool EstimatorReadings::on_sample(microseconds r, microseconds raw, std::uint32_t snd_una, std::uint32_t snd_nxt) {
  if (raw_same_ && raw != r) {
    // The first corrected sample: the uncorrected estimators part from here.
    est_raw_ = est_;
    floorless_raw_ = floorless_;
    raw_same_ = false;
  }
  if (!est_.on_rtt_sample(r, snd_una, snd_nxt)) return false;
  if (floorless_on_) (void)floorless_.on_rtt_sample(r, snd_una, snd_nxt);
  if (!raw_same_) {
    (void)est_raw_.on_rtt_sample(raw, snd_una, snd_nxt);
    if (floorless_on_) (void)floorless_raw_.on_rtt_sample(raw, snd_una, snd_nxt);
  }
  fallback_in_force_ = false;
  unknown_start_ = false;
  return true;
}

void EstimatorReadings::on_handshake_complete(bool syn_timed_out) {
  if (handshake_done_) return;
  handshake_done_ = true;
  const microseconds before = est_.base_rto();
  const bool sampled = has_sample();
  // 5.7, as the profile's variant applies it (rto::RetransmissionTimer): RFC 6298
  // re-initialises a sub-3 s RTO to 3 s after a SYN timeout; Linux sets 3 s
  // whenever the handshake gave no sample.
  est_.on_handshake_complete(syn_timed_out);
  if (floorless_on_) floorless_.on_handshake_complete(syn_timed_out);
  if (!raw_same_) {
    est_raw_.on_handshake_complete(syn_timed_out);
    if (floorless_on_) floorless_raw_.on_handshake_complete(syn_timed_out);
  }
  if (est_.base_rto() != before || (est_.base_rto() == opt_.config.syn_fallback_rto && syn_timed_out)) {
    fallback_in_force_ = est_.base_rto() == opt_.config.syn_fallback_rto;
    if (sampled) before_57_ = before;
  }
}

FirstExpectation EstimatorReadings::data_expectation() const {
  FirstExpectation x;
  if (unknown_start_ && !has_sample()) {
    x.basis = Basis::none;
    return x;
  }
  x.rto = between(est_.base_rto(), raw().base_rto());
  if (fallback_in_force_) {
    x.basis = Basis::fallback_57;
    if (before_57_) x.before_57 = Interval::point(*before_57_);
    return x;
  }
  x.basis = has_sample() ? Basis::profile_rto : Basis::initial_rto;
  if (floorless_on_) {
    const Interval f = between(floorless_.base_rto(), floorless_raw().base_rto());
    if (f.lo < x.rto.lo) x.floorless = f;
  }
  return x;
}

FirstExpectation EstimatorReadings::syn_expectation() const {
  FirstExpectation x;
  x.basis = Basis::initial_rto;
  x.rto = Interval::point(opt_.config.initial_rto);
  return x;
}

}  // namespace replay::engine
