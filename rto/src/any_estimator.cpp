// rto::AnyEstimator: the estimator a Config's variant names.

#include "rto/any_estimator.hpp"

namespace rto {

namespace {

// Estimator(config) or LinuxEstimator(config); each validates (ConfigError).
std::variant<Estimator, LinuxEstimator> make(const Config& config) {
  if (config.variant == Config::Variant::linux_kernel) return LinuxEstimator(config);
  return Estimator(config);
}

}  // namespace

AnyEstimator::AnyEstimator(const Config& config) : v_(make(config)) {}

}  // namespace rto
