#include <replay/wireshark_ref.hpp>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include <fmt/format.h>

namespace replay {

namespace {
// The address of "198.18.0.1:5001" or "[fd00::1]:5001", without the port.
std::string address_text(const Endpoint& e) { return e.address.to_string(); }
}  // namespace

StreamNumbers::StreamNumbers(const Report& r) {
  if (!r.options.filter.empty()) return;
  known_ = true;
  // Flow ids follow the first segment over the files in order.
  std::vector<const FlowReport*> order;
  order.reserve(r.flows.size());
  for (const auto& f : r.flows) order.push_back(&f);
  std::sort(order.begin(), order.end(), [](const FlowReport* a, const FlowReport* b) { return a->id < b->id; });
  std::map<std::size_t, std::uint64_t> next;  // file_index -> next new stream
  struct Last {
    std::optional<std::uint32_t> isn;
    std::uint64_t stream = 0;
  };
  // (file, lower endpoint, higher endpoint) -> the latest connection on that pair.
  std::map<std::tuple<std::size_t, Endpoint, Endpoint>, Last> last;
  for (const FlowReport* f : order) {
    const auto key = std::make_tuple(f->file_index, std::min(f->client, f->server), std::max(f->client, f->server));
    auto it = last.find(key);
    if (f->syn_isn && it != last.end() && it->second.isn == f->syn_isn) {
      by_id_[f->id] = it->second.stream;  // the same SYN again: Wireshark's same stream
      continue;
    }
    const std::uint64_t n = next[f->file_index]++;
    by_id_[f->id] = n;
    last[key] = Last{f->syn_isn, n};
  }
}

std::optional<std::uint64_t> StreamNumbers::of(const FlowReport& f) const {
  if (!known_) return std::nullopt;
  const auto it = by_id_.find(f.id);
  if (it == by_id_.end()) return std::nullopt;
  return it->second;
}

std::string frame_filter(std::uint64_t frame) { return fmt::format("frame.number == {}", frame); }

std::string stream_filter(const FlowReport& f, std::optional<std::uint64_t> stream) {
  if (stream) return fmt::format("tcp.stream == {}", *stream);
  const char* ip = f.client.address.is_v6() ? "ipv6.addr" : "ip.addr";
  return fmt::format("{0} == {1} && tcp.port == {2} && {0} == {3} && tcp.port == {4}", ip, address_text(f.client),
                     f.client.port, address_text(f.server), f.server.port);
}

}  // namespace replay
