#pragma once
// IPv4 / IPv6 addresses and TCP endpoints (address + port) as the cores and
// the simulator use them.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netstack {

/// An IPv4 or IPv6 address. IPv4 addresses use the first 4 bytes of `bytes`.
struct IpAddress {
  std::uint8_t version = 4;           ///< 4 or 6
  std::array<std::uint8_t, 16> bytes{};

  /// a.b.c.d
  static IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d);
  /// 16 bytes in network order.
  static IpAddress v6(const std::array<std::uint8_t, 16>& bytes);
  /// Parses dotted-quad IPv4 or RFC 5952 text IPv6; nullopt when neither.
  static std::optional<IpAddress> parse(std::string_view text);
  /// Text form ("198.18.0.1", "fd00::1").
  std::string to_string() const;
  /// The 4 IPv4 bytes (meaningful when version == 4).
  std::array<std::uint8_t, 4> v4_bytes() const { return {bytes[0], bytes[1], bytes[2], bytes[3]}; }

  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

/// One end of a TCP connection.
struct Endpoint {
  IpAddress address;
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

}  // namespace netstack
