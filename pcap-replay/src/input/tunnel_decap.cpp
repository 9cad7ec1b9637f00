// GRE / ERSPAN / VXLAN / Geneve / GTP-U / MPLS headers: where the inner packet starts.
#include "input/tunnel_decap.hpp"

#include <string>

#include <wire/bytes.hpp>

namespace replay {
namespace {

constexpr std::uint8_t kProtoGre = 47, kProtoUdp = 17, kProtoMplsInIp = 137;
constexpr std::uint16_t kEthIpv4 = 0x0800, kEthIpv6 = 0x86DD, kEthBridge = 0x6558, kEthMpls = 0x8847,
                        kEthMplsMc = 0x8848, kEthPpp = 0x880B, kEthErspan2 = 0x88BE, kEthErspan3 = 0x22EB;
constexpr std::uint16_t kGreC = 0x8000, kGreR = 0x4000, kGreK = 0x2000, kGreS = 0x1000, kGreA = 0x0080;
constexpr int kMaxMplsLabels = 16;

wire::Error cut(const char* field, const char* what, std::size_t need, std::size_t have) {
  return wire::Error{field, std::string(what) + " needs " + std::to_string(need) + " bytes, only " +
                                std::to_string(have) + " captured"};
}

Decap by_ethertype(std::uint16_t type, std::span<const std::uint8_t> rest) {
  switch (type) {
    case kEthIpv4: case kEthIpv6: return {Inner::kIp, rest};
    case kEthBridge: return {Inner::kEthernet, rest};
    case kEthMpls: case kEthMplsMc: return {Inner::kMpls, rest};
    default: return {};
  }
}

// PPP in enhanced GRE (PPTP): optional address/control FF 03, protocol 1 or 2 bytes (RFC 1661).
Decap ppp(std::span<const std::uint8_t> b) {
  std::size_t o = 0;
  if (b.size() >= 2 && b[0] == 0xFF && b[1] == 0x03) o = 2;
  if (o >= b.size()) return {};
  std::uint16_t proto = b[o];
  if ((proto & 1) == 0) {  // two-byte protocol field (no protocol-field compression)
    if (o + 2 > b.size()) return {};
    proto = wire::load_be16(&b[o]);
    o += 2;
  } else {
    o += 1;
  }
  if (proto == 0x0021 || proto == 0x0057) return {Inner::kIp, b.subspan(o)};
  return {};
}

wire::Result<Decap> gre(std::span<const std::uint8_t> b) {
  if (b.size() < 4) return cut("gre", "a GRE header", 4, b.size());
  const std::uint16_t flags = wire::load_be16(&b[0]);
  const std::uint16_t type = wire::load_be16(&b[2]);
  const unsigned version = flags & 0x7;
  if (version > 1 || (flags & kGreR) != 0) return Decap{};  // RFC 1701 routing: not followed
  std::size_t len = 4;
  if ((flags & kGreC) != 0) len += 4;
  const std::size_t key_at = len;  // the key follows the checksum word, when present
  if ((flags & kGreK) != 0) len += 4;
  if ((flags & kGreS) != 0) len += 4;
  if (version == 1 && (flags & kGreA) != 0) len += 4;
  if (b.size() < len) return cut("gre", "a GRE header with its optional fields", len, b.size());
  auto rest = b.subspan(len);
  if (version == 1) return type == kEthPpp ? ppp(rest) : Decap{};
  if (type == kEthErspan2) {
    if ((flags & kGreS) == 0) return Decap{Inner::kEthernet, rest};  // type I: no ERSPAN header
    if (rest.size() < 8) return cut("erspan", "an ERSPAN type II header", 8, rest.size());
    return Decap{Inner::kEthernet, rest.subspan(8)};
  }
  if (type == kEthErspan3) {
    if (rest.size() < 12) return cut("erspan", "an ERSPAN type III header", 12, rest.size());
    const bool o_bit = (rest[11] & 0x01) != 0;
    const unsigned frame_type = (rest[10] >> 2) & 0x1F;  // FT: bits after SGT and P
    const std::size_t hl = o_bit ? 20 : 12;
    if (rest.size() < hl) return cut("erspan", "an ERSPAN type III header with its platform subheader", hl, rest.size());
    if (frame_type == 0) return Decap{Inner::kEthernet, rest.subspan(hl)};
    if (frame_type == 2) return Decap{Inner::kIp, rest.subspan(hl)};
    return Decap{};
  }
  Decap d = by_ethertype(type, rest);
  // NVGRE (RFC 7637): Ethernet in GRE with a key whose upper 24 bits are the
  // virtual subnet (VSID), the lower 8 a per-flow entropy byte (FlowID, not
  // the network). The key of a GRE tunnel carrying IP names the tunnel, not
  // a network (VirtualNetwork), and is not kept.
  if (type == kEthBridge && (flags & kGreK) != 0) {
    d.vnet_kind = VirtualNetwork::Kind::nvgre;
    d.vnet_id = wire::load_be32(&b[key_at]) >> 8;
  }
  return d;
}

wire::Result<Decap> vxlan(std::span<const std::uint8_t> b) {
  if (b.size() < 8) return cut("vxlan", "a VXLAN header", 8, b.size());
  if ((b[0] & 0x08) == 0) return Decap{};  // the I flag (valid VNI) must be set
  Decap d{Inner::kEthernet, b.subspan(8)};
  d.vnet_kind = VirtualNetwork::Kind::vxlan;  // the VNI: bytes 4-6 (RFC 7348 5)
  d.vnet_id = wire::load_be32(&b[4]) >> 8;
  return d;
}

wire::Result<Decap> geneve(std::span<const std::uint8_t> b) {
  if (b.size() < 8) return cut("geneve", "a Geneve header", 8, b.size());
  if ((b[0] >> 6) != 0) return Decap{};  // version 0 only
  const std::size_t len = 8 + std::size_t{b[0] & 0x3Fu} * 4;
  if (b.size() < len) return cut("geneve", "a Geneve header with its options", len, b.size());
  Decap d = by_ethertype(wire::load_be16(&b[2]), b.subspan(len));
  d.vnet_kind = VirtualNetwork::Kind::geneve;  // the VNI: bytes 4-6 (RFC 8926 3.4)
  d.vnet_id = wire::load_be32(&b[4]) >> 8;
  return d;
}

wire::Result<Decap> gtpu(std::span<const std::uint8_t> b) {
  if (b.size() < 8) return cut("gtp", "a GTP-U header", 8, b.size());
  const std::uint8_t flags = b[0];
  if ((flags >> 5) != 1 || (flags & 0x10) == 0 || b[1] != 0xFF) return Decap{};  // version 1, GTP, G-PDU
  std::size_t off = 8;
  if ((flags & 0x07) != 0) {  // E, S or PN: sequence (2), N-PDU (1), next extension type (1)
    if (b.size() < 12) return cut("gtp", "a GTP-U header with its optional fields", 12, b.size());
    std::uint8_t next = b[11];
    off = 12;
    for (int n = 0; next != 0; ++n) {
      if (n > 16 || off >= b.size()) return cut("gtp", "a GTP-U extension header", off + 1, b.size());
      const std::size_t elen = std::size_t{b[off]} * 4;  // in 4-byte units, length and next type included
      if (elen == 0 || off + elen > b.size()) return cut("gtp", "a GTP-U extension header", off + elen + 4, b.size());
      next = b[off + elen - 1];
      off += elen;
    }
  }
  return Decap{Inner::kIp, b.subspan(off)};
}

}  // namespace

wire::Result<Decap> skip_mpls(std::span<const std::uint8_t> b) {
  std::size_t off = 0;
  for (int labels = 0;; ++labels) {
    if (labels >= kMaxMplsLabels) return wire::Error{"mpls", "more than 16 MPLS labels"};
    if (off + 4 > b.size()) return cut("mpls", "an MPLS label", off + 4, b.size());
    const bool bottom = (b[off + 2] & 0x01) != 0;
    off += 4;
    if (bottom) break;
  }
  if (off >= b.size()) return Decap{};
  const int v = b[off] >> 4;
  if (v == 4 || v == 6) return Decap{Inner::kIp, b.subspan(off)};
  if (v == 0 && off + 4 <= b.size()) return Decap{Inner::kEthernet, b.subspan(off + 4)};
  return Decap{};
}

wire::Result<Decap> decapsulate(std::uint8_t protocol, std::span<const std::uint8_t> l4) {
  if (protocol == kProtoGre) return gre(l4);
  if (protocol == kProtoMplsInIp) return Decap{Inner::kMpls, l4};
  if (protocol != kProtoUdp) return Decap{};
  if (l4.size() < 8) return Decap{};  // a cut UDP header: plain "not TCP", as before
  const std::uint16_t sport = wire::load_be16(&l4[0]), dport = wire::load_be16(&l4[2]);
  const std::uint16_t ulen = wire::load_be16(&l4[4]);
  auto payload = l4.subspan(8);
  if (ulen >= 8 && ulen - 8u < payload.size()) payload = payload.first(ulen - 8u);
  if (dport == kVxlanPort) return vxlan(payload);
  if (dport == kGenevePort) return geneve(payload);
  if (dport == kGtpuPort || sport == kGtpuPort) return gtpu(payload);
  return Decap{};
}

}  // namespace replay
