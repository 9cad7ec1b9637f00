#include <replay/segment.hpp>

#include <arpa/inet.h>
#include <sys/socket.h>

namespace replay {

std::string to_string(const Endpoint& e) {
  // The C library's printer: RFC 5952 text for IPv6 (lowercase, the longest
  // zero run as "::"), dotted quad for IPv4.
  char text[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(e.v6 ? AF_INET6 : AF_INET, e.addr.data(), text, sizeof text) == nullptr) return "?";
  const std::string port = std::to_string(e.port);
  return e.v6 ? "[" + std::string(text) + "]:" + port : std::string(text) + ":" + port;
}

}  // namespace replay
