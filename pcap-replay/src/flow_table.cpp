#include "flow_table.hpp"

namespace replay {

namespace {
// FNV-1a, 64 bit (Fowler, Noll, Vo): every byte of the key counts.
constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t mix(std::uint64_t h, std::uint64_t byte) { return (h ^ byte) * kFnvPrime; }

std::uint64_t mix_endpoint(std::uint64_t h, const Endpoint& e) {
  for (std::uint8_t b : e.addr) h = mix(h, b);
  h = mix(h, e.port & 0xff);
  h = mix(h, e.port >> 8);
  return mix(h, e.v6 ? 1 : 0);
}
}  // namespace

std::size_t FlowKeyHash::operator()(const FlowKey& k) const noexcept {
  std::uint64_t h = kFnvOffset;
  h = mix_endpoint(h, k.lo);
  h = mix_endpoint(h, k.hi);
  for (std::size_t i = 0; i < sizeof(k.file_index); ++i) h = mix(h, (k.file_index >> (8 * i)) & 0xff);
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
