// VirtualNetwork's text, as the report and the JSON print it.
#include <replay/input/segment.hpp>

namespace replay {

std::string to_string(const VirtualNetwork& v) {
  std::string out;
  for (std::size_t i = 0; i < v.count; ++i) {
    if (i > 0) out += '/';
    switch (v.kind(i)) {
      case VirtualNetwork::Kind::vlan: out += "vlan "; break;
      case VirtualNetwork::Kind::svlan: out += "svlan "; break;
      case VirtualNetwork::Kind::vxlan: out += "vxlan "; break;
      case VirtualNetwork::Kind::geneve: out += "geneve "; break;
      case VirtualNetwork::Kind::nvgre: out += "nvgre "; break;
    }
    out += std::to_string(v.id(i));
  }
  return out;
}

}  // namespace replay
