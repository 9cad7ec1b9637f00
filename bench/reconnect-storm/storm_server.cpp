#include "storm_server.hpp"

#include <variant>

#include "netstack/closed_port.hpp"
#include "netstack/segment_codec.hpp"

namespace storm {

const char* to_string(OutageMode m) { return m == OutageMode::refuse ? "refuse" : "silent"; }

StormServer::StormServer(netstack::Endpoint local, OutageMode mode, rto::Instant opens_at)
    : local_(local), mode_(mode), opens_at_(opens_at) {}

void StormServer::on_datagram(std::span<const std::uint8_t> ip, rto::Instant now) {
  const auto parsed = netstack::parse_segment(ip);
  const auto* seg = std::get_if<netstack::ParsedSegment>(&parsed);
  if (seg == nullptr || !(seg->dst == local_)) return;
  if (now < opens_at_) {
    if (mode_ == OutageMode::silent) return;
    if (auto rst = netstack::closed_port_reply(ip, ip_id_++)) out_.push_back(std::move(*rst));
    return;
  }
  const Key key{seg->src.address.bytes, seg->src.port};
  auto it = receivers_.find(key);
  if (it == receivers_.end()) {
    const bool syn = seg->tcp.has(wire::kSyn) && !seg->tcp.has(wire::kAck);
    if (!syn) {  // no connection for it: a listener answers as a closed port would
      if (auto rst = netstack::closed_port_reply(ip, ip_id_++)) out_.push_back(std::move(*rst));
      return;
    }
    netstack::ReceiverConfig rc;
    rc.local = local_;
    rc.iss = 0x20000000u + static_cast<std::uint32_t>(receivers_.size()) * 0x01000193u;
    it = receivers_.emplace(key, netstack::TcpReceiver(rc)).first;
  }
  it->second.on_datagram(ip, now);
  for (auto& d : it->second.take_output()) out_.push_back(std::move(d));
}

void StormServer::on_tick(rto::Instant now) {
  for (auto& [key, r] : receivers_) {
    if (auto d = r.next_deadline(); d && *d <= now) {
      r.on_tick(now);
      for (auto& x : r.take_output()) out_.push_back(std::move(x));
    }
  }
}

std::optional<rto::Instant> StormServer::next_deadline() const {
  std::optional<rto::Instant> t;
  for (const auto& [key, r] : receivers_)
    if (auto d = r.next_deadline(); d && (!t || *d < *t)) t = d;
  return t;
}

std::vector<std::vector<std::uint8_t>> StormServer::take_output() { return std::exchange(out_, {}); }

std::size_t StormServer::established() const {
  std::size_t n = 0;
  for (const auto& [key, r] : receivers_) n += r.state() == netstack::ReceiverState::Established ? 1 : 0;
  return n;
}

}  // namespace storm
