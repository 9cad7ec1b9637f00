// Attempt outcomes, the Retrier's decisions, and their names.

#include "rto/retry/retrier.hpp"

#include <array>

namespace rto {

using std::chrono::microseconds;

namespace {

// One row per RetryDecision::Reason, in declaration order: its name and a sentence.
struct ReasonText {
  RetryDecision::Reason reason;
  const char* name;
  const char* sentence;
};
constexpr std::array<ReasonText, 9> kReasons = {{
    {RetryDecision::Reason::success, "success", "the attempt succeeded"},
    {RetryDecision::Reason::transient, "transient", "a transient failure: retry after the backoff's wait"},
    {RetryDecision::Reason::retry_after, "retry_after", "a transient failure: retry after the wait the server asked for"},
    {RetryDecision::Reason::permanent, "permanent", "a permanent failure: retrying cannot help"},
    {RetryDecision::Reason::not_idempotent, "not_idempotent",
     "a transient failure, but the operation is not safe to repeat"},
    {RetryDecision::Reason::server_refused, "server_refused", "the server asked not to retry (gRPC pushback)"},
    {RetryDecision::Reason::attempts, "attempts", "the attempt limit is reached"},
    {RetryDecision::Reason::deadline, "deadline", "the next wait would end after the deadline"},
    {RetryDecision::Reason::budget, "budget", "the retry budget refused the retry"},
}};

constexpr bool rows_in_declaration_order() {
  for (std::size_t i = 0; i < kReasons.size(); ++i) {
    if (static_cast<std::size_t>(kReasons[i].reason) != i) return false;
  }
  return true;
}
static_assert(rows_in_declaration_order(), "kReasons: one row per Reason, in declaration order");

const ReasonText* find(RetryDecision::Reason r) {
  const auto i = static_cast<std::size_t>(r);
  return i < kReasons.size() ? &kReasons[i] : nullptr;
}

// parse_retry_after() keeps its seconds within what microseconds hold; other callers may not.
microseconds saturate(std::chrono::seconds s) {
  constexpr std::chrono::seconds kMax{microseconds::max().count() / 1'000'000};
  if (s < std::chrono::seconds::zero()) return microseconds{0};
  return s > kMax ? std::chrono::duration_cast<microseconds>(kMax) : std::chrono::duration_cast<microseconds>(s);
}

}  // namespace

const char* to_string(RetryDecision::Action a) {
  switch (a) {
    case RetryDecision::Action::done: return "done";
    case RetryDecision::Action::retry: return "retry";
    case RetryDecision::Action::give_up: return "give_up";
  }
  return "?";
}

const char* to_string(RetryDecision::Reason r) {
  const ReasonText* t = find(r);
  return t ? t->name : "?";
}

const char* describe(RetryDecision::Reason r) {
  const ReasonText* t = find(r);
  return t ? t->sentence : "?";
}

// ---- AttemptOutcome --------------------------------------------------------

AttemptOutcome AttemptOutcome::http(int status, std::optional<std::chrono::seconds> retry_after) {
  AttemptOutcome o;
  o.source = Source::http;
  o.http_status = status;
  if (retry_after) o.retry_after = saturate(*retry_after);
  return o;
}

AttemptOutcome AttemptOutcome::failed(TransportError e) {
  AttemptOutcome o;
  o.source = Source::transport;
  o.transport = e;
  o.timeout = e == TransportError::timeout;
  return o;
}

AttemptOutcome AttemptOutcome::grpc(GrpcStatus status, std::optional<GrpcPushback> pushback) {
  AttemptOutcome o;
  o.source = Source::grpc;
  o.grpc_status = status;
  o.timeout = status == GrpcStatus::deadline_exceeded;
  if (pushback) {
    if (pushback->retry) o.retry_after = microseconds{pushback->delay};
    else o.server_refused = true;
  }
  return o;
}

AttemptOutcome AttemptOutcome::classified(FailureClass c, std::optional<microseconds> retry_after, bool timeout) {
  AttemptOutcome o;
  o.source = Source::caller;
  o.caller_class = c;
  o.retry_after = retry_after;
  o.timeout = timeout;
  return o;
}

FailureClass AttemptOutcome::classify(GrpcStatusSet grpc_retryable) const {
  switch (source) {
    case Source::http: return classify_http_status(http_status);
    case Source::transport: return classify_transport(transport);
    case Source::grpc: return classify_grpc_status(grpc_status, grpc_retryable);
    case Source::caller: return caller_class;
  }
  return FailureClass::permanent;
}

std::optional<microseconds> AttemptOutcome::directed_wait() const {
  if (!retry_after) return std::nullopt;
  const microseconds w = *retry_after < microseconds::zero() ? microseconds{0} : *retry_after;
  switch (source) {
    case Source::http:
      // RFC 9110 10.2.3: Retry-After on a 503 says how long the service is
      // expected to be unavailable; RFC 6585 4: on a 429, how long to wait.
      if (http_status == 503 || http_status == 429) return w;
      return std::nullopt;
    case Source::grpc:
    case Source::caller: return w;
    case Source::transport: return std::nullopt;
  }
  return std::nullopt;
}

// ---- Retrier -----------------------------------------------------------------

Retrier::Retrier(const RetryPolicy& policy)
    : backoff_(policy.backoff),
      idempotency_(policy.idempotency),
      grpc_retryable_(policy.grpc_retryable),
      budget_(policy.budget) {}

Retrier::Retrier(BackoffPolicy policy, Idempotency idempotency, RetryBudget* budget)
    : Retrier(RetryPolicy{policy, idempotency, GrpcStatusSet::a6_default(), budget}) {}

void Retrier::reset() {
  backoff_.reset();
  acquired_ = 0;
}

RetryDecision Retrier::succeed() {
  ++counters_.successes;
  if (budget_) budget_->on_success(acquired_);
  acquired_ = 0;
  return {RetryDecision::Action::done, RetryDecision::Reason::success, microseconds{0}};
}

RetryDecision Retrier::give_up(RetryDecision::Reason why, bool retryable_failure) {
  ++counters_.give_ups;
  if (why == RetryDecision::Reason::budget) ++counters_.budget_refusals;
  if (retryable_failure && budget_ && why != RetryDecision::Reason::budget) budget_->on_unretried_failure();
  acquired_ = 0;
  return {RetryDecision::Action::give_up, why, microseconds{0}};
}

RetryDecision Retrier::decide(std::optional<microseconds> wait, bool server, bool timeout) {
  if (!wait) {
    return give_up(backoff_.gave_up() == GiveUp::deadline ? RetryDecision::Reason::deadline
                                                          : RetryDecision::Reason::attempts,
                   true);
  }
  if (budget_) {
    const std::uint32_t got = budget_->acquire(timeout);
    if (got == 0) return give_up(RetryDecision::Reason::budget, true);
    acquired_ = got;
  }
  ++counters_.retries;
  if (server) ++counters_.server_waits;
  return {RetryDecision::Action::retry,
          server ? RetryDecision::Reason::retry_after : RetryDecision::Reason::transient, *wait};
}

}  // namespace rto
