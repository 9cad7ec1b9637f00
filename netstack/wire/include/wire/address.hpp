#pragma once
// IPv4 / IPv6 addresses and TCP endpoints (address + port): the one
// endpoint type of the project. netstack's cores and simulator and
// pcap-replay's decoded segments both use it.

#include <array>
#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace wire {

/// An IPv4 or IPv6 address. IPv4 addresses use the first 4 bytes of `bytes`
/// (the other 12 are zero).
struct IpAddress {
  std::uint8_t version = 4;           ///< 4 or 6 (the IP version field, RFC 791 / RFC 8200)
  std::array<std::uint8_t, 16> bytes{};  ///< network byte order

  /// a.b.c.d
  static IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d);
  /// 16 bytes in network order.
  static IpAddress v6(const std::array<std::uint8_t, 16>& bytes);
  /// Parses dotted-quad IPv4 or RFC 4291 2.2 text IPv6 (inet_pton); nullopt
  /// when it is neither.
  static std::optional<IpAddress> parse(std::string_view text);
  /// Text form ("198.18.0.1", "fd00::1": RFC 5952 for IPv6, by the C
  /// library's inet_ntop); "?" when the C library cannot print it.
  std::string to_string() const;
  /// The 4 IPv4 bytes (meaningful when version == 4).
  std::array<std::uint8_t, 4> v4_bytes() const { return {bytes[0], bytes[1], bytes[2], bytes[3]}; }
  /// True for an IPv6 address.
  bool is_v6() const { return version == 6; }

  /// The version and the 16 bytes (as the defaulted comparison would; two
  /// 8-byte compares, where std::array's == calls memcmp: a replay compares
  /// addresses once or more per segment).
  friend bool operator==(const IpAddress& a, const IpAddress& b) {
    std::uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, a.bytes.data(), 8);
    std::memcpy(&a1, a.bytes.data() + 8, 8);
    std::memcpy(&b0, b.bytes.data(), 8);
    std::memcpy(&b1, b.bytes.data() + 8, 8);
    return a.version == b.version && a0 == b0 && a1 == b1;
  }
  /// Orders by the address bytes, then the version (IPv4 first when the
  /// bytes are equal), so sorted lists read in address order.
  friend std::strong_ordering operator<=>(const IpAddress& a, const IpAddress& b) {
    if (auto c = a.bytes <=> b.bytes; c != 0) return c;
    return a.version <=> b.version;
  }
};

/// One end of a TCP connection: an address and a port (host byte order).
struct Endpoint {
  IpAddress address;
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
  /// Address first, then port.
  friend std::strong_ordering operator<=>(const Endpoint&, const Endpoint&) = default;
};

/// "198.18.0.1:5001" or "[fd00::1]:5001" (RFC 5952 section 6 for IPv6 with a
/// port); "?" for an address the C library cannot print.
std::string to_string(const Endpoint& e);

}  // namespace wire
