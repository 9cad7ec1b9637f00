#pragma once
// Retry budgets: token buckets shared by all the calls of a client that bound
// retries to a fraction of calls, so that retries cannot multiply the load on
// a service that is already failing (the AWS SDKs' retry quota, gRPC's retry
// throttling). Not thread-safe: a client shared by threads guards its budget.

#include <cstdint>

#include "rto/retry/export.h"

namespace rto {

/// What a Retrier asks of a budget. The tokens are the budget's own units.
class RTO_RETRY_API RetryBudget {
 public:
  virtual ~RetryBudget() = default;
  /// A call failed with a retryable error and the caller is about to retry it
  /// (its backoff allows one): returns the tokens taken for the retry (> 0),
  /// or 0 if the budget refuses it (the call then gives up).
  virtual std::uint32_t acquire(bool timeout) = 0;
  /// A call failed with a retryable error and is not retried for another
  /// reason (attempts or deadline used up): the budget may count it.
  virtual void on_unretried_failure() = 0;
  /// A call succeeded; `acquired` is what acquire() returned for its last
  /// retry, 0 if it succeeded at the first attempt.
  virtual void on_success(std::uint32_t acquired) = 0;
};

/// The AWS SDKs' retry quota ("standard" retry mode): a bucket of 500 tokens,
/// full at the start. A retry costs 5 tokens, a retry after a timeout 10, and
/// is refused when the bucket holds fewer than its cost. A call that succeeds
/// at its first attempt adds 1 token; a call that succeeds after retries
/// returns the cost of its last retry. The bucket never exceeds its capacity.
/// So while every call fails, 500 / 5 = 100 retries are allowed in all; a
/// healthy service refills one token per successful call.
class RTO_RETRY_API AwsRetryQuota final : public RetryBudget {
 public:
  struct Config {
    std::uint32_t capacity = 500;           ///< INITIAL_RETRY_TOKENS, also the maximum.
    std::uint32_t retry_cost = 5;           ///< RETRY_COST.
    std::uint32_t timeout_retry_cost = 10;  ///< TIMEOUT_RETRY_COST.
    std::uint32_t no_retry_increment = 1;   ///< NO_RETRY_INCREMENT.
  };
  AwsRetryQuota() : AwsRetryQuota(Config{}) {}
  explicit AwsRetryQuota(Config c) : config_(c), tokens_(c.capacity) {}

  std::uint32_t acquire(bool timeout) override {
    const std::uint32_t cost = timeout ? config_.timeout_retry_cost : config_.retry_cost;
    if (cost == 0 || tokens_ < cost) return 0;
    tokens_ -= cost;
    return cost;
  }
  void on_unretried_failure() override {}
  void on_success(std::uint32_t acquired) override {
    const std::uint32_t add = acquired != 0 ? acquired : config_.no_retry_increment;
    tokens_ = config_.capacity - tokens_ < add ? config_.capacity : tokens_ + add;
  }
  /// Tokens in the bucket now.
  std::uint32_t tokens() const { return tokens_; }
  const Config& config() const { return config_; }

 private:
  Config config_;
  std::uint32_t tokens_;
};

/// gRPC retry throttling (gRFC A6, service config "retryThrottling"):
/// token_count starts at maxTokens; every failed attempt with a retryable
/// status takes 1 token (not below 0), every successful call adds tokenRatio
/// (not above maxTokens); a retry is allowed only while, after the failure is
/// counted, token_count > maxTokens / 2. Held in thousandths of a token, as
/// tokenRatio has up to 3 decimals (gRPC: max_tokens 1..1000, ratio > 0).
class RTO_RETRY_API GrpcRetryThrottle final : public RetryBudget {
 public:
  /// max_milli_tokens = maxTokens * 1000; milli_token_ratio = tokenRatio * 1000
  /// (e.g. maxTokens 10, tokenRatio 0.1: GrpcRetryThrottle(10'000, 100)).
  GrpcRetryThrottle(std::uint32_t max_milli_tokens, std::uint32_t milli_token_ratio)
      : max_(max_milli_tokens), ratio_(milli_token_ratio), tokens_(max_milli_tokens) {}

  /// Counts the failure, then allows the retry while tokens > max / 2.
  std::uint32_t acquire(bool /*timeout*/) override {
    record_failure();
    return retry_allowed() ? 1 : 0;
  }
  void on_unretried_failure() override { record_failure(); }
  void on_success(std::uint32_t /*acquired*/) override {
    tokens_ = max_ - tokens_ < ratio_ ? max_ : tokens_ + ratio_;
  }
  /// Would a retry be allowed now (tokens > max / 2)?
  bool retry_allowed() const { return std::uint64_t{tokens_} * 2 > max_; }
  /// Thousandths of a token now.
  std::uint32_t milli_tokens() const { return tokens_; }

 private:
  void record_failure() { tokens_ = tokens_ < 1000 ? 0 : tokens_ - 1000; }
  std::uint32_t max_, ratio_, tokens_;
};

}  // namespace rto
