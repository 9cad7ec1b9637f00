#pragma once
// The estimator a configuration names, for a caller that picks RFC 6298 or
// the Linux variant at run time (a command-line profile, a C handle). A
// stack that knows its variant uses rto::Estimator or rto::LinuxEstimator
// directly; both satisfy rto::RttEstimator.

#include <chrono>
#include <concepts>
#include <cstdint>
#include <optional>
#include <variant>

#include "rto/clamped_rto.hpp"
#include "rto/config.hpp"
#include "rto/estimator.hpp"
#include "rto/export.h"
#include "rto/linux_estimator.hpp"

namespace rto {

/// What every estimator offers: samples in (2.2, 2.3), the RTO before
/// backoff out, SRTT and RTTVAR to read, and the section 5 note's forget().
template <class E>
concept RttEstimator = requires(E e, const E ce, std::chrono::microseconds r) {
  { e.on_rtt_sample(r) } -> std::same_as<bool>;
  { ce.rto() } -> std::same_as<Rto>;
  { ce.srtt() } -> std::same_as<std::optional<std::chrono::microseconds>>;
  { ce.rttvar() } -> std::same_as<std::optional<std::chrono::microseconds>>;
  { ce.has_sample() } -> std::same_as<bool>;
  e.forget();
};
static_assert(RttEstimator<Estimator>);
static_assert(RttEstimator<LinuxEstimator>);

/// An Estimator or a LinuxEstimator, as Config::variant says. Each call goes
/// to the one held (one test of which); the estimators themselves never
/// branch on the variant.
class RTO_API AnyEstimator {
 public:
  /// RFC 6298 defaults (Estimator()).
  AnyEstimator() noexcept = default;
  /// Estimator(config) or LinuxEstimator(config) by config.variant; throws
  /// ConfigError for an invalid config.
  explicit AnyEstimator(const Config& config);
  /// Holds a copy of `e`.
  AnyEstimator(const Estimator& e) noexcept : v_(e) {}
  /// Holds a copy of `e`.
  AnyEstimator(const LinuxEstimator& e) noexcept : v_(e) {}

  /// Estimator::on_rtt_sample or LinuxEstimator::on_rtt_sample (every sample
  /// ending an RTT window). False: refused, nothing changed.
  [[nodiscard]] bool on_rtt_sample(std::chrono::microseconds r) {
    return std::visit([r](auto& e) { return e.on_rtt_sample(r); }, v_);
  }
  /// With SND.UNA and SND.NXT after the ACK, for the Linux variant's RTT
  /// windows (RFC 6298 has none: they are not used).
  [[nodiscard]] bool on_rtt_sample(std::chrono::microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt) {
    if (auto* lin = std::get_if<LinuxEstimator>(&v_)) return lin->on_rtt_sample(r, snd_una, snd_nxt);
    return std::get<Estimator>(v_).on_rtt_sample(r);
  }
  /// Section 5 note: clear SRTT and RTTVAR (Expiry::forget_rtt).
  void forget() noexcept {
    std::visit([](auto& e) { e.forget(); }, v_);
  }

  /// The RTO before backoff (2.1-2.5, or Linux's __tcp_set_rto).
  Rto rto() const {
    return std::visit([](const auto& e) { return e.rto(); }, v_);
  }
  /// SRTT, microseconds; nullopt before a sample.
  std::optional<std::chrono::microseconds> srtt() const {
    return std::visit([](const auto& e) { return e.srtt(); }, v_);
  }
  /// RTTVAR, microseconds (Linux: mdev/4, tcpi_rttvar); nullopt before a sample.
  std::optional<std::chrono::microseconds> rttvar() const {
    return std::visit([](const auto& e) { return e.rttvar(); }, v_);
  }
  /// Linux's rttvar_us, microseconds; nullopt before a sample and for RFC 6298.
  std::optional<std::chrono::microseconds> linux_rttvar() const {
    const auto* lin = std::get_if<LinuxEstimator>(&v_);
    return lin != nullptr ? lin->linux_rttvar() : std::nullopt;
  }
  /// True once a sample was taken and not forgotten (for 5.7's Linux rule).
  bool has_sample() const {
    return std::visit([](const auto& e) { return e.has_sample(); }, v_);
  }
  /// Which estimator is held.
  Config::Variant variant() const {
    return std::holds_alternative<LinuxEstimator>(v_) ? Config::Variant::linux_kernel : Config::Variant::rfc6298;
  }
  /// The RFC 6298 estimator, or nullptr when the Linux one is held.
  const Estimator* rfc6298() const { return std::get_if<Estimator>(&v_); }
  /// The Linux estimator, or nullptr when RFC 6298's is held.
  const LinuxEstimator* linux_kernel() const { return std::get_if<LinuxEstimator>(&v_); }

 private:
  std::variant<Estimator, LinuxEstimator> v_;
};

}  // namespace rto
