#include <replay/report/wireshark_ref.hpp>

#include <algorithm>
#include <string_view>
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
  StreamCounter counter(true);
  for (const FlowReport* f : order) by_id_[f->id] = *counter.next(*f);
}

std::optional<std::uint64_t> StreamNumbers::of(const FlowReport& f) const {
  if (!known_) return std::nullopt;
  const auto it = by_id_.find(f.id);
  if (it == by_id_.end()) return std::nullopt;
  return it->second;
}

std::string frame_filter(std::uint64_t frame) { return fmt::format("frame.number == {}", frame); }

std::string vnet_filter(const VirtualNetwork& v) {
  // None: no VLAN id but 0 (a priority tag), no service tag, no VNI.
  if (v.empty()) return "!(vlan.id > 0) && !ieee8021ad && !vxlan && !geneve";
  std::size_t vlans = 0;
  for (std::size_t i = 0; i < v.count; ++i) vlans += v.kind(i) == VirtualNetwork::Kind::vlan ? 1 : 0;
  std::string out;
  std::size_t vlan_layer = 0;
  for (std::size_t i = 0; i < v.count; ++i) {
    if (i > 0) out += " && ";
    switch (v.kind(i)) {
      case VirtualNetwork::Kind::vlan:
        // Stacked tags by their layer ("vlan.id#2": the second tag from the outside).
        ++vlan_layer;
        out += vlans > 1 ? fmt::format("vlan.id#{} == {}", vlan_layer, v.id(i)) : fmt::format("vlan.id == {}", v.id(i));
        break;
      case VirtualNetwork::Kind::svlan: out += fmt::format("ieee8021ad.id == {}", v.id(i)); break;
      case VirtualNetwork::Kind::vxlan: out += fmt::format("vxlan.vni == {}", v.id(i)); break;
      case VirtualNetwork::Kind::geneve: out += fmt::format("geneve.vni == {}", v.id(i)); break;
      case VirtualNetwork::Kind::nvgre: out += fmt::format("gre.key & 0xffffff00 == 0x{:x}", v.id(i) << 8); break;
    }
  }
  return out;
}

std::string stream_filter(const FlowReport& f, std::optional<std::uint64_t> stream) {
  if (stream && f.vnet_apart && !f.vnets.empty()) {
    // Wireshark's stream holds the frames of every virtual network: keep this one's.
    std::string nets;
    for (const VirtualNetwork& v : f.vnets) nets += (nets.empty() ? "" : " || ") + vnet_filter(v);
    return fmt::format("tcp.stream == {} && ({})", *stream, nets);
  }
  if (stream) return fmt::format("tcp.stream == {}", *stream);
  const char* ip = f.client.address.is_v6() ? "ipv6.addr" : "ip.addr";
  return fmt::format("{0} == {1} && tcp.port == {2} && {0} == {3} && tcp.port == {4}", ip, address_text(f.client),
                     f.client.port, address_text(f.server), f.server.port);
}

}  // namespace replay
