#pragma once
// gRPC's side of retrying (gRFC A6, "gRPC Retry Design"): the status codes a
// call ends with, the retry policy's retryableStatusCodes, and the server's
// pushback (the grpc-retry-pushback-ms trailer).

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "rto/retry/classify.hpp"
#include "rto/retry/export.h"

namespace rto {

/// The status codes of gRPC (grpc/doc/statuscodes.md), with their numbers.
enum class GrpcStatus : std::uint8_t {
  ok = 0,
  cancelled = 1,
  unknown = 2,
  invalid_argument = 3,
  deadline_exceeded = 4,
  not_found = 5,
  already_exists = 6,
  permission_denied = 7,
  resource_exhausted = 8,
  failed_precondition = 9,
  aborted = 10,
  out_of_range = 11,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
  data_loss = 15,
  unauthenticated = 16,
};

/// The number of status codes (0..16).
inline constexpr int kGrpcStatusCount = 17;

/// The canonical name, as a service config spells it: "OK", "UNAVAILABLE",
/// "INVALID_ARGUMENT"...
RTO_RETRY_API const char* to_string(GrpcStatus s);

/// The status with this number (0..16), or nullopt.
RTO_RETRY_API std::optional<GrpcStatus> grpc_status_from_code(int code);

/// A status as a service config's retryableStatusCodes may give it: its
/// canonical name ("UNAVAILABLE", case-sensitive) or its number in decimal
/// ("14"). nullopt for anything else.
RTO_RETRY_API std::optional<GrpcStatus> parse_grpc_status(std::string_view text);

/// A set of status codes: a retry policy's retryableStatusCodes.
class GrpcStatusSet {
 public:
  /// The empty set.
  constexpr GrpcStatusSet() = default;
  constexpr GrpcStatusSet(std::initializer_list<GrpcStatus> codes) {
    for (GrpcStatus s : codes) insert(s);
  }
  constexpr GrpcStatusSet& insert(GrpcStatus s) {
    bits_ |= bit(s);
    return *this;
  }
  constexpr bool contains(GrpcStatus s) const { return (bits_ & bit(s)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool operator==(const GrpcStatusSet&) const = default;

  /// A6's example policy and the only code that says the request was not
  /// processed in every case: {UNAVAILABLE}. The default of RetryPolicy.
  static constexpr GrpcStatusSet a6_default() { return GrpcStatusSet{GrpcStatus::unavailable}; }

 private:
  // A number that is no gRPC code (outside 0..16, e.g. a status cast from a
  // peer's integer) has no bit: never inserted, never contained.
  static constexpr std::uint32_t bit(GrpcStatus s) {
    const auto code = static_cast<unsigned>(s);
    return code <= static_cast<unsigned>(GrpcStatus::unauthenticated) ? std::uint32_t{1} << code : 0;
  }
  std::uint32_t bits_ = 0;
};

/// Classifies a call's final status against a retry policy's
/// retryableStatusCodes (A6 "Retryable Status Codes"): OK is success, a code
/// in `retryable` transient, every other code permanent (INVALID_ARGUMENT,
/// NOT_FOUND, PERMISSION_DENIED... and, unless the caller lists them,
/// INTERNAL, ABORTED or DEADLINE_EXCEEDED, which may follow a request the
/// server processed). OK is success even if listed.
RTO_RETRY_API FailureClass classify_grpc_status(GrpcStatus s,
                                                GrpcStatusSet retryable = GrpcStatusSet::a6_default());

/// What a server's grpc-retry-pushback-ms value asks (A6 "Pushback").
struct GrpcPushback {
  /// false: the server asks the client not to retry at all.
  bool retry = false;
  /// When `retry`: wait exactly this long before the next attempt (no jitter,
  /// not capped by maxBackoff; still within the attempt limit and deadline).
  std::chrono::milliseconds delay{0};

  static constexpr GrpcPushback after(std::chrono::milliseconds d) { return GrpcPushback{true, d}; }
  static constexpr GrpcPushback stop() { return GrpcPushback{false, std::chrono::milliseconds{0}}; }
  constexpr bool operator==(const GrpcPushback&) const = default;
};

/// Parses a grpc-retry-pushback-ms value: an ASCII signed 32-bit decimal
/// integer of milliseconds (surrounding spaces and tabs ignored; leading
/// zeros accepted, though A6 asks servers not to send them). A value that is
/// negative, not such an integer (empty, "+5", "1.5", "12ms") or outside
/// int32 is, as A6 says, the server asking the client not to retry:
/// GrpcPushback::stop().
RTO_RETRY_API GrpcPushback parse_grpc_pushback(std::string_view value);

}  // namespace rto
