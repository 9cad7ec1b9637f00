#include "wire/address.hpp"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <string>

namespace wire {

IpAddress IpAddress::v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress ip;
  ip.version = 4;
  ip.bytes[0] = a;
  ip.bytes[1] = b;
  ip.bytes[2] = c;
  ip.bytes[3] = d;
  return ip;
}

IpAddress IpAddress::v6(const std::array<std::uint8_t, 16>& bytes) {
  IpAddress ip;
  ip.version = 6;
  ip.bytes = bytes;
  return ip;
}

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
  const std::string s(text);
  IpAddress ip;
  if (::inet_pton(AF_INET, s.c_str(), ip.bytes.data()) == 1) {
    ip.version = 4;
    return ip;
  }
  if (::inet_pton(AF_INET6, s.c_str(), ip.bytes.data()) == 1) {
    ip.version = 6;
    return ip;
  }
  return std::nullopt;
}

std::string IpAddress::to_string() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(is_v6() ? AF_INET6 : AF_INET, bytes.data(), text, sizeof text) == nullptr) return "?";
  return text;
}

std::string to_string(const Endpoint& e) {
  const std::string ip = e.address.to_string();
  if (ip == "?") return ip;
  const std::string port = std::to_string(e.port);
  return e.address.is_v6() ? "[" + ip + "]:" + port : ip + ":" + port;
}

}  // namespace wire
