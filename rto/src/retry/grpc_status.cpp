// gRPC status names and numbers, the A6 classification, and the pushback value.

#include "rto/retry/grpc_status.hpp"

#include <array>
#include <cstdint>
#include <limits>

namespace rto {

namespace {

// Indexed by the status number (grpc/doc/statuscodes.md).
constexpr std::array<const char*, kGrpcStatusCount> kNames = {
    "OK",        "CANCELLED",         "UNKNOWN",      "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
};

bool is_ows(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ows(s.back())) s.remove_suffix(1);
  return s;
}

// A run of 1..n ASCII digits as a number no larger than `limit`; nullopt otherwise.
std::optional<std::uint64_t> digits(std::string_view s, std::uint64_t limit) {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
    if (v > limit) return std::nullopt;
  }
  return v;
}

}  // namespace

const char* to_string(GrpcStatus s) {
  const auto i = static_cast<std::size_t>(s);
  return i < kNames.size() ? kNames[i] : "?";
}

std::optional<GrpcStatus> grpc_status_from_code(int code) {
  if (code < 0 || code >= kGrpcStatusCount) return std::nullopt;
  return static_cast<GrpcStatus>(code);
}

std::optional<GrpcStatus> parse_grpc_status(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (text == kNames[i]) return static_cast<GrpcStatus>(i);
  }
  if (auto n = digits(text, kGrpcStatusCount - 1)) return static_cast<GrpcStatus>(*n);
  return std::nullopt;
}

FailureClass classify_grpc_status(GrpcStatus s, GrpcStatusSet retryable) {
  if (s == GrpcStatus::ok) return FailureClass::success;
  return retryable.contains(s) ? FailureClass::transient : FailureClass::permanent;
}

GrpcPushback parse_grpc_pushback(std::string_view value) {
  std::string_view s = trim(value);
  const bool minus = !s.empty() && s.front() == '-';
  if (minus) s.remove_prefix(1);
  // int32: up to 2^31 - 1, or down to -2^31.
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
  const auto ms = digits(s, minus ? kMax + 1 : kMax);
  if (!ms) return GrpcPushback::stop();             // unparseable: do not retry (A6)
  if (minus && *ms != 0) return GrpcPushback::stop();  // negative: do not retry (A6)
  return GrpcPushback::after(std::chrono::milliseconds{static_cast<std::int64_t>(*ms)});
}

}  // namespace rto
