#include "wireshark_ref.hpp"

#include <fmt/format.h>

namespace replay {

namespace {
// The address of "198.18.0.1:5001" or "[fd00::1]:5001", without the port.
std::string address_text(const Endpoint& e) {
  std::string s = to_string(e);
  s.erase(s.rfind(':'));
  if (e.v6 && s.size() >= 2) s = s.substr(1, s.size() - 2);
  return s;
}
}  // namespace

std::optional<std::uint64_t> tcp_stream(const Report& r, const FlowReport& f) {
  if (!r.options.filter.empty()) return std::nullopt;
  // Flow ids follow the first segment over the files in order, so the
  // connections of f's file before it are those with a smaller id.
  std::uint64_t before = 0;
  for (const auto& g : r.flows)
    if (g.file_index == f.file_index && g.id < f.id) ++before;
  return before;
}

std::string frame_filter(std::uint64_t frame) { return fmt::format("frame.number == {}", frame); }

std::string stream_filter(const Report& r, const FlowReport& f) {
  if (auto n = tcp_stream(r, f)) return fmt::format("tcp.stream == {}", *n);
  const char* ip = f.client.v6 ? "ipv6.addr" : "ip.addr";
  return fmt::format("{0} == {1} && tcp.port == {2} && {0} == {3} && tcp.port == {4}", ip, address_text(f.client),
                     f.client.port, address_text(f.server), f.server.port);
}

}  // namespace replay
