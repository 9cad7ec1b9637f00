#include "wire/address.hpp"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <charconv>
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
  if (!is_v6()) {
    // Dotted decimal, as inet_ntop writes it (a report prints several
    // endpoints per connection: inet_ntop's sprintf was most of the cost of
    // a report of many short connections).
    char text[16];  // "255.255.255.255"
    char* p = text;
    for (int i = 0; i < 4; ++i) {
      if (i > 0) *p++ = '.';
      p = std::to_chars(p, text + sizeof text, bytes[static_cast<std::size_t>(i)]).ptr;
    }
    return std::string(text, p);
  }
  char text[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(AF_INET6, bytes.data(), text, sizeof text) == nullptr) return "?";
  return text;
}

std::string to_string(const Endpoint& e) {
  std::string out = e.address.to_string();
  if (out == "?") return out;
  char port[6];  // "65535"
  char* end = std::to_chars(port, port + sizeof port, e.port).ptr;
  if (e.address.is_v6()) {
    out.insert(out.begin(), '[');
    out += ']';
  }
  out += ':';
  out.append(port, static_cast<std::size_t>(end - port));
  return out;
}

}  // namespace wire
