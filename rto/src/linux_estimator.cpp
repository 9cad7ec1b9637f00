// rto::LinuxEstimator: the kernel's tcp_rtt_estimator() and __tcp_set_rto(),
// written from their documented behaviour. The per-sample path is inline in
// linux_estimator.hpp; here are the construction, the first sample and the
// read-outs.

#include "rto/linux_estimator.hpp"

namespace rto {

namespace {

using std::chrono::microseconds;

// A validated duration (0 .. 1 h) as 32-bit microseconds.
std::uint32_t us32(microseconds d) { return static_cast<std::uint32_t>(d.count()); }

}  // namespace

static_assert(sizeof(LinuxEstimator) == LinuxEstimator::kBytes, "LinuxEstimator layout changed: update kBytes");

LinuxEstimator::LinuxEstimator(const Config& config) : LinuxEstimator((config.validate(), config), Trusted{}) {
  if (config.variant != Config::Variant::linux_kernel)
    throw ConfigError("rto::Config.variant: not linux_kernel (rto::LinuxEstimator is the Linux variant; "
                      "RFC 6298's is rto::Estimator, either one rto::AnyEstimator)");
}

LinuxEstimator::LinuxEstimator(const Config& c, Trusted) noexcept
    : rto_min_us_(us32(std::max(c.min_rto, Rto::kMin))),
      cap_us_(us32(c.max_rto)),
      initial_us_(us32(c.initial_rto)),
      tick_us_(us32(c.tick)) {}

void LinuxEstimator::first_sample(std::int64_t r_us, std::uint32_t snd_nxt) {
  // The first sample: SRTT = R, mdev = 2R (so the RTO starts near 3R),
  // rttvar_us = mdev_max_us = max(mdev, rto_min); the window ends at SND.NXT.
  const std::int64_t r = std::min(r_us, kMaxExactSampleUs);  // the 32-bit fields' bound
  srtt8_ = static_cast<std::uint32_t>(std::max<std::int64_t>(1, r << 3));
  mdev4_ = static_cast<std::uint32_t>(r << 1);
  rttvar_ = std::max(mdev4_, rto_min_us_);
  mdev_max_ = rttvar_;
  rtt_seq_ = snd_nxt;
}

std::optional<microseconds> LinuxEstimator::srtt() const {
  if (!has_sample()) return std::nullopt;
  return microseconds{srtt8_ >> 3};
}

std::optional<microseconds> LinuxEstimator::rttvar() const {
  if (!has_sample()) return std::nullopt;
  return microseconds{mdev4_ >> 2};
}

std::optional<microseconds> LinuxEstimator::linux_rttvar() const {
  if (!has_sample()) return std::nullopt;
  return microseconds{rttvar_};
}

}  // namespace rto
