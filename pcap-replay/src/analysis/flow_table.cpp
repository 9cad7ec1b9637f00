#include "analysis/flow_table.hpp"

namespace replay {

namespace {
// A 64-bit mix (the finaliser of MurmurHash3, Appleby): every input bit
// changes about half the output bits.
std::uint64_t fmix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

std::uint64_t word(const std::array<std::uint8_t, 16>& a, std::size_t at) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < 8; ++i) w = w << 8 | a[at + i];
  return w;
}

std::uint64_t mix_endpoint(std::uint64_t h, const Endpoint& e) {
  h = fmix(h ^ word(e.address.bytes, 0));
  h = fmix(h ^ word(e.address.bytes, 8));
  return fmix(h ^ (std::uint64_t{e.port} << 1 | (e.address.is_v6() ? 1 : 0)));
}
}  // namespace

std::size_t FlowKeyHash::operator()(const FlowKey& k) const noexcept {
  std::uint64_t h = fmix(k.file_index + 0x9e3779b97f4a7c15ull);
  h = mix_endpoint(h, k.lo);
  h = mix_endpoint(h, k.hi);
  return static_cast<std::size_t>(h);
}

FlowKey flow_key(const Segment& s) {
  FlowKey k;
  k.file_index = s.file_index;
  if (s.src < s.dst) {
    k.lo = s.src;
    k.hi = s.dst;
  } else {
    k.lo = s.dst;
    k.hi = s.src;
  }
  return k;
}

FlowSlot* FlowTable::lookup(const Segment& s) {
  const auto it = slots_.find(flow_key(s));
  if (it == slots_.end()) return nullptr;
  FlowSlot& f = it->second;
  const bool pure_syn = s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck);
  if (pure_syn) {
    if (f.closed) return nullptr;  // port reuse after FIN/RST
    if (s.time - f.last_time > idle_split_) return nullptr;
    if (f.syn_isn && *f.syn_isn != s.tcp.seq && f.syn_sender == s.src) return nullptr;  // new ISN
  }
  update(f, s);
  return &f;
}

const FlowSlot* FlowTable::find(const Segment& s) const {
  const auto it = slots_.find(flow_key(s));
  return it == slots_.end() ? nullptr : &it->second;
}

FlowSlot& FlowTable::open(const Segment& s, std::size_t index) {
  FlowSlot& f = slots_[flow_key(s)];
  f = FlowSlot{};
  f.index = index;
  update(f, s);
  return f;
}

void FlowTable::retire(const FlowKey& key, std::size_t index) {
  const auto it = slots_.find(key);
  if (it != slots_.end() && it->second.index == index) slots_.erase(it);
}

void FlowTable::update(FlowSlot& f, const Segment& s) {
  f.last_time = s.time;
  if (s.tcp.has(wire::kFin) || s.tcp.has(wire::kRst)) f.closed = true;
  if (s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck) && !f.syn_isn) {
    f.syn_isn = s.tcp.seq;
    f.syn_sender = s.src;
  }
}

}  // namespace replay
