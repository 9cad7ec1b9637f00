// Which HTTP statuses and transport errors are worth retrying; idempotent methods.

#include "rto/retry/classify.hpp"

namespace rto {

const char* to_string(FailureClass c) {
  switch (c) {
    case FailureClass::success: return "success";
    case FailureClass::transient: return "transient";
    case FailureClass::permanent: return "permanent";
  }
  return "?";
}

const char* to_string(TransportError e) {
  switch (e) {
    case TransportError::none: return "none";
    case TransportError::connection_refused: return "connection_refused";
    case TransportError::connection_reset: return "connection_reset";
    case TransportError::timeout: return "timeout";
    case TransportError::other: return "other";
  }
  return "?";
}

FailureClass classify_http_status(int status) {
  if (status >= 100 && status <= 399) return FailureClass::success;
  switch (status) {
    case 408:  // Request Timeout: the server gave up waiting for the request
    case 429:  // Too Many Requests (RFC 6585 4): come back later
    case 500:  // Internal Server Error: often a passing fault
    case 502:  // Bad Gateway: an upstream failed
    case 503:  // Service Unavailable: overload or maintenance
    case 504:  // Gateway Timeout: an upstream was slow
      return FailureClass::transient;
    default:  // other 4xx, 501, 505-511, invalid codes
      return FailureClass::permanent;
  }
}

FailureClass classify_transport(TransportError e) {
  switch (e) {
    case TransportError::none: return FailureClass::success;
    case TransportError::connection_refused:
    case TransportError::connection_reset:
    case TransportError::timeout: return FailureClass::transient;
    case TransportError::other: return FailureClass::permanent;
  }
  return FailureClass::permanent;
}

bool is_idempotent_method(std::string_view m) {
  return m == "GET" || m == "HEAD" || m == "OPTIONS" || m == "TRACE" || m == "PUT" || m == "DELETE";
}

}  // namespace rto
