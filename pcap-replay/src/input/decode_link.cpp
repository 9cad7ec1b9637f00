// Link-layer headers: Ethernet (+VLAN, PPPoE, MPLS), Linux cooked v1/v2,
// raw IP, BSD NULL/LOOP. Offsets from pcap-linktype(7) and the tcpdump.org
// link-layer header type pages.
#include "input/decode_link.hpp"

#include <string>

#include <wire/bytes.hpp>

namespace replay {
namespace {

// libpcap DLT_ values as pcap_datalink() reports them on Linux.
constexpr int kDltNull = 0;
constexpr int kDltEn10mb = 1;
constexpr int kDltRaw12 = 12;   // DLT_RAW on most systems
constexpr int kDltRaw14 = 14;   // DLT_RAW on OpenBSD
constexpr int kDltRaw101 = 101; // LINKTYPE_RAW, if a libpcap hands it through unmapped
constexpr int kDltLoop = 108;
constexpr int kDltLinuxSll = 113;
constexpr int kDltIpv4 = 228;
constexpr int kDltIpv6 = 229;
constexpr int kDltLinuxSll2 = 276;

constexpr std::uint16_t kEthIpv4 = 0x0800;
constexpr std::uint16_t kEthIpv6 = 0x86DD;
constexpr std::uint16_t kEthVlan = 0x8100;    // IEEE 802.1Q
constexpr std::uint16_t kEthQinQ = 0x88A8;    // IEEE 802.1ad
constexpr std::uint16_t kEthQinQOld = 0x9100; // pre-standard QinQ
constexpr std::uint16_t kEthPppoes = 0x8864;  // RFC 2516 session stage
constexpr std::uint16_t kEthMpls = 0x8847;
constexpr std::uint16_t kEthMplsMc = 0x8848;

wire::Error short_frame(const char* field, const char* what, std::size_t need, std::size_t have) {
  return wire::Error{field, std::string(what) + " needs " + std::to_string(need) + " bytes, only " +
                                std::to_string(have) + " captured"};
}

LinkPayload by_version(std::span<const std::uint8_t> frame, std::size_t off, std::uint32_t type) {
  LinkPayload p{NetProto::kOther, off, type, std::nullopt};
  if (off < frame.size()) {
    const int v = frame[off] >> 4;
    if (v == 4) p.proto = NetProto::kIpv4;
    if (v == 6) p.proto = NetProto::kIpv6;
  }
  return p;
}

// Dispatch on an ethertype at frame[off-2..off); used after Ethernet and the
// SLL headers (which carry the same protocol values, VLAN tags included).
wire::Result<LinkPayload> by_ethertype(std::span<const std::uint8_t> frame, std::uint16_t type, std::size_t off,
                                       VirtualNetwork* vnet) {
  for (int tags = 0; type == kEthVlan || type == kEthQinQ || type == kEthQinQOld; ++tags) {
    if (tags > 8) return wire::Error{"vlan", "more than 8 stacked VLAN tags"};
    if (off + 4 > frame.size()) return short_frame("vlan", "an 802.1Q tag", off + 4, frame.size());
    // TCI: priority (3 bits), DEI (1), VLAN id (12); then the inner type.
    // VLAN id 0 is a priority tag only (802.1Q: the frame is on the port's
    // own VLAN, as an untagged one): not a network of its own.
    const std::uint16_t vid = wire::load_be16(&frame[off]) & 0x0FFFu;
    if (vnet && vid != 0) vnet->push(type == kEthQinQ ? VirtualNetwork::Kind::svlan : VirtualNetwork::Kind::vlan, vid);
    type = wire::load_be16(&frame[off + 2]);
    off += 4;
  }
  switch (type) {
    case kEthIpv4: return LinkPayload{NetProto::kIpv4, off, type, std::nullopt};
    case kEthIpv6: return LinkPayload{NetProto::kIpv6, off, type, std::nullopt};
    case kEthPppoes: {
      // RFC 2516: ver/type, code, session id, length (6 bytes), then the PPP protocol (2).
      if (off + 8 > frame.size()) return short_frame("pppoes", "a PPPoE session header", off + 8, frame.size());
      const std::uint16_t ppp = wire::load_be16(&frame[off + 6]);
      const std::uint16_t plen = wire::load_be16(&frame[off + 4]);  // PPP protocol + packet
      LinkPayload p{NetProto::kOther, off + 8, ppp, std::nullopt};
      if (plen >= 2) p.declared_len = std::size_t{plen} - 2;
      if (ppp == 0x0021) p.proto = NetProto::kIpv4;
      if (ppp == 0x0057) p.proto = NetProto::kIpv6;
      return p;
    }
    case kEthMpls:
    case kEthMplsMc: {
      // RFC 3032: 4-byte label entries until the bottom-of-stack bit; then IP by its version.
      for (int labels = 0;; ++labels) {
        if (labels > 16) return wire::Error{"mpls", "more than 16 MPLS labels"};
        if (off + 4 > frame.size()) return short_frame("mpls", "an MPLS label", off + 4, frame.size());
        const bool bottom = (frame[off + 2] & 0x01) != 0;
        off += 4;
        if (bottom) break;
      }
      return by_version(frame, off, type);
    }
    default: return LinkPayload{NetProto::kOther, off, type, std::nullopt};
  }
}

wire::Result<LinkPayload> by_family(std::span<const std::uint8_t> frame) {
  if (frame.size() < 4) return short_frame("null", "the 4-byte NULL/LOOP family", 4, frame.size());
  // The family is in the capturing host's byte order (NULL) or network order
  // (LOOP), and some files mislabel one as the other: accept either.
  auto known = [](std::uint32_t f) -> NetProto {
    if (f == 2) return NetProto::kIpv4;
    if (f == 10 || f == 24 || f == 28 || f == 30) return NetProto::kIpv6;
    return NetProto::kOther;
  };
  const std::uint32_t le = wire::load_le32(frame.data());
  const std::uint32_t be = wire::load_be32(frame.data());
  if (known(le) != NetProto::kOther) return LinkPayload{known(le), 4, le, std::nullopt};
  if (known(be) != NetProto::kOther) return LinkPayload{known(be), 4, be, std::nullopt};
  return LinkPayload{NetProto::kOther, 4, le, std::nullopt};
}

}  // namespace

bool link_type_supported(int dlt) {
  switch (dlt) {
    case kDltNull: case kDltEn10mb: case kDltRaw12: case kDltRaw14: case kDltRaw101:
    case kDltLoop: case kDltLinuxSll: case kDltIpv4: case kDltIpv6: case kDltLinuxSll2:
      return true;
    default:
      return false;
  }
}

wire::Result<LinkPayload> decode_link(int dlt, std::span<const std::uint8_t> frame, VirtualNetwork* vnet) {
  switch (dlt) {
    case kDltEn10mb:
      if (frame.size() < 14) return short_frame("eth", "an Ethernet header", 14, frame.size());
      return by_ethertype(frame, wire::load_be16(&frame[12]), 14, vnet);
    case kDltLinuxSll:
      // packet type (2), ARPHRD (2), address length (2), address (8), protocol (2).
      if (frame.size() < 16) return short_frame("sll", "a Linux cooked (SLL) header", 16, frame.size());
      return by_ethertype(frame, wire::load_be16(&frame[14]), 16, vnet);
    case kDltLinuxSll2:
      // protocol (2), reserved (2), ifindex (4), ARPHRD (2), packet type (1),
      // address length (1), address (8).
      if (frame.size() < 20) return short_frame("sll", "a Linux cooked v2 (SLL2) header", 20, frame.size());
      return by_ethertype(frame, wire::load_be16(&frame[0]), 20, vnet);
    case kDltRaw12: case kDltRaw14: case kDltRaw101:
      return by_version(frame, 0, 0);
    case kDltIpv4: return LinkPayload{NetProto::kIpv4, 0, 4, std::nullopt};
    case kDltIpv6: return LinkPayload{NetProto::kIpv6, 0, 6, std::nullopt};
    case kDltNull: case kDltLoop:
      return by_family(frame);
    default:
      return wire::Error{"frame.linktype", "link type " + std::to_string(dlt) + " is not supported"};
  }
}

}  // namespace replay
