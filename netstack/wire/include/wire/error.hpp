#pragma once
// The error and result types of the wire library. Decoders never throw and
// never read outside the span they are given: a malformed or truncated input
// yields a wire::Error whose `field` names the header field at fault, in
// Wireshark's display-filter spelling where one exists ("tcp.hdr_len",
// "ip.len", "ipv6.plen", "tcp.option.len").

#include <string>
#include <utility>
#include <variant>

namespace wire {

/// Why a decode or encode failed: the field that is wrong and a sentence about it.
struct Error {
  std::string field;    ///< e.g. "tcp.hdr_len", "tcp.option.sack"
  std::string message;  ///< e.g. "data offset 3 words is below the 5-word minimum"
};

/// A value or the Error explaining why there is none.
template <class T>
using Result = std::variant<T, Error>;

/// True when `r` holds a value.
template <class T>
constexpr bool ok(const Result<T>& r) { return std::holds_alternative<T>(r); }

/// The value of a Result that ok() said holds one (std::bad_variant_access otherwise).
template <class T>
constexpr const T& value(const Result<T>& r) { return std::get<T>(r); }
template <class T>
constexpr T& value(Result<T>& r) { return std::get<T>(r); }

/// The Error of a Result that holds one (std::bad_variant_access otherwise).
template <class T>
constexpr const Error& error(const Result<T>& r) { return std::get<Error>(r); }

}  // namespace wire
