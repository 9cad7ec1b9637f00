// The text of an address and an endpoint (wire/address.hpp), checked against
// the C library's inet_ntop as the independent oracle: IPv4 is formatted by
// our own code (dotted decimal), IPv6 by inet_ntop (RFC 5952 section 4).
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include <wire/address.hpp>

namespace {
std::string ntop(int af, const std::uint8_t* bytes) {
  char text[INET6_ADDRSTRLEN] = {};
  REQUIRE(::inet_ntop(af, bytes, text, sizeof text) != nullptr);
  return text;
}
}  // namespace

TEST_CASE("IpAddress::to_string: IPv4 as inet_ntop writes it, every octet value in every position") {
  for (int pos = 0; pos < 4; ++pos) {
    for (int v = 0; v < 256; ++v) {
      std::array<std::uint8_t, 4> b{10, 0, 200, 9};
      b[static_cast<std::size_t>(pos)] = static_cast<std::uint8_t>(v);
      const wire::IpAddress ip = wire::IpAddress::v4(b[0], b[1], b[2], b[3]);
      REQUIRE(ip.to_string() == ntop(AF_INET, b.data()));
    }
  }
  CHECK(wire::IpAddress::v4(255, 255, 255, 255).to_string() == "255.255.255.255");  // the longest
  CHECK(wire::IpAddress::v4(0, 0, 0, 0).to_string() == "0.0.0.0");
}

TEST_CASE("to_string(Endpoint): address:port for IPv4, [address]:port for IPv6 (RFC 5952 section 6)") {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    wire::Endpoint e;
    e.port = static_cast<std::uint16_t>(rng());
    if (i % 2 == 0) {
      e.address = wire::IpAddress::v4(static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng()),
                                      static_cast<std::uint8_t>(rng()), static_cast<std::uint8_t>(rng()));
      REQUIRE(wire::to_string(e) == ntop(AF_INET, e.address.bytes.data()) + ":" + std::to_string(e.port));
    } else {
      std::array<std::uint8_t, 16> b{};
      for (auto& x : b) x = static_cast<std::uint8_t>(rng() % 3 == 0 ? 0 : rng());  // runs of zeros
      e.address = wire::IpAddress::v6(b);
      REQUIRE(wire::to_string(e) == "[" + ntop(AF_INET6, b.data()) + "]:" + std::to_string(e.port));
    }
  }
  wire::Endpoint max;
  max.address = wire::IpAddress::v4(198, 18, 0, 1);
  max.port = 65535;
  CHECK(wire::to_string(max) == "198.18.0.1:65535");
  max.port = 0;
  CHECK(wire::to_string(max) == "198.18.0.1:0");
}
