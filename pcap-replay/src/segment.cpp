#include "segment.hpp"

#include <cstdio>

namespace replay {

namespace {

// RFC 5952 text form: lowercase hex, leading zeros dropped, the longest run
// (of two or more) of zero groups written "::", the first such run on a tie.
std::string ipv6_text(const std::array<std::uint8_t, 16>& a) {
  unsigned g[8];
  for (int i = 0; i < 8; ++i) g[i] = (unsigned{a[2 * i]} << 8) | a[2 * i + 1];
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) { ++i; continue; }
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) { best = i; best_len = j - i; }
    i = j;
  }
  std::string s;
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      s += "::";
      i += best_len - 1;
      continue;
    }
    if (!s.empty() && s.back() != ':') s += ':';
    std::snprintf(buf, sizeof buf, "%x", g[i]);
    s += buf;
  }
  return s;
}

}  // namespace

std::string to_string(const Endpoint& e) {
  if (e.v6) return "[" + ipv6_text(e.addr) + "]:" + std::to_string(e.port);
  return std::to_string(e.addr[0]) + "." + std::to_string(e.addr[1]) + "." + std::to_string(e.addr[2]) + "." +
         std::to_string(e.addr[3]) + ":" + std::to_string(e.port);
}

}  // namespace replay
