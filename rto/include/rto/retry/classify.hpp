#pragma once
// Which failures are worth retrying: HTTP status codes (RFC 9110), failures
// below HTTP, and whether the operation may be repeated at all. gRPC status
// codes are in grpc_status.hpp; a caller's own error types are classified by
// the caller (AttemptOutcome::classified in retrier.hpp).

#include <string_view>

#include "rto/retry/export.h"

namespace rto {

/// How a result is to be treated.
enum class FailureClass {
  success,    ///< not a failure (1xx-3xx, gRPC OK).
  transient,  ///< worth retrying after a wait.
  permanent,  ///< retrying cannot help (or may do harm).
};

/// "success", "transient" or "permanent".
RTO_RETRY_API const char* to_string(FailureClass c);

/// A failure below HTTP (or of an RPC transport).
enum class TransportError {
  none,                ///< there was an HTTP response (see AttemptOutcome::http_status).
  connection_refused,  ///< connect() refused (RST to the SYN): the request never left. Transient.
  connection_reset,    ///< the connection was reset or closed mid-exchange. Transient.
  timeout,             ///< connect, read or whole-attempt timeout. Transient (and charged as one by AwsRetryQuota).
  other,               ///< TLS/certificate, DNS name not found, malformed response...: permanent.
};

/// "none", "connection_refused", "connection_reset", "timeout" or "other".
RTO_RETRY_API const char* to_string(TransportError e);

/// Classifies an HTTP status code.
///
/// Transient: 408 Request Timeout, 429 Too Many Requests (RFC 6585 4),
/// 500 Internal Server Error, 502 Bad Gateway, 503 Service Unavailable,
/// 504 Gateway Timeout. Permanent: every other 4xx (the request is wrong, and
/// will be again) and every other 5xx, notably 501 Not Implemented and 505 HTTP
/// Version Not Supported (properties of the server, not of the moment), and
/// 506-511 (configuration or authentication problems). Success: 100-399.
/// Codes outside 100-599 are permanent (not a valid response).
RTO_RETRY_API FailureClass classify_http_status(int status);

/// Classifies a transport error (see TransportError for which is which).
RTO_RETRY_API FailureClass classify_transport(TransportError e);

/// RFC 9110 9.2.2: is the request method idempotent (GET, HEAD, OPTIONS,
/// TRACE, PUT, DELETE; case-sensitive)? POST, PATCH, CONNECT and unknown
/// methods are not.
RTO_RETRY_API bool is_idempotent_method(std::string_view method);

/// Whether an operation may be repeated.
enum class Idempotency {
  idempotent,      ///< repeating it has the effect of doing it once (GET, PUT, a conditional write...).
  non_idempotent,  ///< never retried after a transient failure (the first try may have taken effect).
  marked_safe,     ///< not idempotent by nature, but the caller says a retry is safe (e.g. it carries an idempotency key).
};

}  // namespace rto
