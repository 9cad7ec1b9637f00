// Strategy and budget definitions of backoff-sim (see strategies.hpp).

#include "strategies.hpp"

#include <algorithm>
#include <cstdint>

namespace backoff_sim {

using rto::BackoffPolicy;

const char* name(Strategy s) {
  switch (s) {
    case Strategy::none: return "none";
    case Strategy::exponential: return "exponential";
    case Strategy::equal: return "equal";
    case Strategy::full: return "full";
    case Strategy::decorrelated: return "decorrelated";
    case Strategy::grpc: return "grpc";
  }
  return "?";
}

std::vector<Strategy> brooker_strategies() {
  return {Strategy::none, Strategy::exponential, Strategy::equal, Strategy::full, Strategy::decorrelated};
}

std::optional<BackoffPolicy> policy(Strategy s, std::chrono::microseconds base, std::chrono::microseconds cap,
                                    unsigned first_exponent) {
  const auto first = std::min(cap, base * (std::int64_t{1} << first_exponent));
  switch (s) {
    case Strategy::none: return std::nullopt;
    case Strategy::exponential: return BackoffPolicy::exponential(first, cap);
    case Strategy::equal: return BackoffPolicy::equal_jitter(first, cap);
    case Strategy::full: return BackoffPolicy::full_jitter(first, cap);
    case Strategy::decorrelated: return BackoffPolicy::decorrelated_jitter(base, cap);
    case Strategy::grpc: {
      BackoffPolicy p = BackoffPolicy::grpc_connection();
      p.base = base;
      p.cap = cap;
      return p;
    }
  }
  return std::nullopt;
}

const char* name(Budget b) {
  switch (b) {
    case Budget::none: return "none";
    case Budget::aws: return "aws-quota";
    case Budget::grpc: return "grpc-throttle";
  }
  return "?";
}

std::unique_ptr<rto::RetryBudget> make_budget(Budget b) {
  switch (b) {
    case Budget::none: return nullptr;
    case Budget::aws: return std::make_unique<rto::AwsRetryQuota>();
    case Budget::grpc: return std::make_unique<rto::GrpcRetryThrottle>(10'000, 100);
  }
  return nullptr;
}

std::optional<BackoffPolicy> policy_ms(Strategy s, double base_ms, double cap_ms, unsigned first_exponent) {
  const auto us = [](double ms) { return std::chrono::microseconds{static_cast<std::int64_t>(ms * 1000)}; };
  return policy(s, us(base_ms), us(cap_ms), first_exponent);
}

}  // namespace backoff_sim
