#pragma once
// Umbrella header of the retry library (librto_retry; pkg-config rto-retry,
// CMake rto::retry): backoff with jitter for clients of remote services,
// gRPC connection backoff, Retry-After and gRPC pushback, which failures to
// retry (HTTP, transport, gRPC status codes, the caller's own), retry budgets,
// and retry(callable, policy). It does not use the TCP timer (librto); it
// shares only the header-only time type rto::Instant (rto/clock.hpp).

#if __cplusplus < 202002L
#error "rto's C++ headers need C++20 or later (-std=c++20); rto-retry.pc leaves the level to you."
#endif

#include "rto/retry/backoff.hpp"      // rto::BackoffPolicy, ServerDelay, rto::Backoff, rto::ConnectionBackoff
#include "rto/retry/budget.hpp"       // rto::RetryBudget, rto::AwsRetryQuota, rto::GrpcRetryThrottle
#include "rto/retry/call.hpp"         // rto::retry(callable, policy, rng, ...), rto::RetryResult
#include "rto/retry/classify.hpp"     // rto::classify_http_status, TransportError, Idempotency
#include "rto/retry/grpc_status.hpp"  // rto::GrpcStatus, GrpcStatusSet, parse_grpc_pushback
#include "rto/retry/result.hpp"       // rto::Result<T, E>
#include "rto/retry/retrier.hpp"      // rto::Retrier, RetryPolicy, AttemptOutcome, RetryDecision, to_string
#include "rto/retry/retry_after.hpp"  // rto::parse_retry_after, parse_http_date
#include "rto/retry/uniform.hpp"      // rto::uniform_below, uniform_duration (unbiased, integer)
