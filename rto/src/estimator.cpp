// rto::Estimator: RFC 6298 section 2. The per-sample path is inline in
// estimator.hpp; here are the construction from a Config and the read-outs.

#include "rto/estimator.hpp"

namespace rto {

namespace {

using std::chrono::microseconds;

// Divides a non-negative fixed-point value by 2^shift, rounding to nearest.
constexpr std::int64_t shr_round(std::int64_t v, int shift) {
  return (v + (std::int64_t{1} << (shift - 1))) >> shift;
}

// A validated duration (0 .. 1 h) as 32-bit microseconds.
std::uint32_t us32(microseconds d) { return static_cast<std::uint32_t>(d.count()); }

}  // namespace

static_assert(sizeof(Estimator) == Estimator::kBytes, "Estimator layout changed: update kBytes");

Estimator::Estimator(const Config& config) : Estimator((config.validate(), config), Trusted{}) {
  if (config.variant != Config::Variant::rfc6298)
    throw ConfigError("rto::Config.variant: not rfc6298 (rto::Estimator is RFC 6298's; "
                      "the Linux variant is rto::LinuxEstimator, either one rto::AnyEstimator)");
}

Estimator::Estimator(const Config& c, Trusted) noexcept
    : floor_us_(us32(std::max(c.min_rto, Rto::kMin))),
      cap_us_(us32(c.max_rto)),
      initial_us_(us32(c.initial_rto)),
      g_us_(us32(c.granularity)),
      tick_us_(us32(c.tick)) {}

std::optional<microseconds> Estimator::srtt() const {
  if (!has_sample()) return std::nullopt;
  return microseconds{shr_round(srtt_, kFracBits)};
}

std::optional<microseconds> Estimator::rttvar() const {
  if (!has_sample()) return std::nullopt;
  return microseconds{shr_round(rttvar_, kFracBits)};
}

}  // namespace rto
