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

FlowKey flow_key(std::size_t file_index, const Endpoint& a, const Endpoint& b) {
  FlowKey k;
  k.file_index = file_index;
  if (a < b) {
    k.lo = a;
    k.hi = b;
  } else {
    k.lo = b;
    k.hi = a;
  }
  return k;
}

FlowKey flow_key(const Segment& s) { return flow_key(s.file_index, s.src, s.dst); }

FlowTable::FlowTable(std::chrono::microseconds idle_split, FlowStore& store)
    : idle_split_(idle_split), store_(&store), set_(0, Hash{&store}, Eq{&store}) {}

std::optional<std::size_t> FlowTable::lookup(const Segment& s) {
  const FlowKey key = flow_key(s);
  const auto it = set_.find(key);
  if (it == set_.end()) return std::nullopt;
  FlowSlot& f = store_->slot(*it);
  const bool pure_syn = s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck);
  const bool idle = s.time - f.last_time > idle_split_;
  if (idle && f.cannot_resume() && store_->gap_known(s.file_index, f.last_time, s.time))
    return std::nullopt;  // nothing of it can still come
  if (pure_syn) {
    if (f.closed) return std::nullopt;  // port reuse after FIN/RST
    if (idle) return std::nullopt;
    if (f.has_syn_isn && f.syn_isn != s.tcp.seq && f.syn_from_lo == (s.src == key.lo)) return std::nullopt;  // new ISN
  }
  update(f, key, s);
  return *it;
}

std::optional<std::size_t> FlowTable::find(const Segment& s) const {
  const auto it = set_.find(flow_key(s));
  if (it == set_.end()) return std::nullopt;
  return *it;
}

void FlowTable::open(const Segment& s, std::size_t index) {
  const FlowKey key = flow_key(s);
  if (const auto it = set_.find(key); it != set_.end()) set_.erase(it);
  set_.insert(index);
  FlowSlot& f = store_->slot(index);
  f = FlowSlot{};
  update(f, key, s);
}

bool FlowTable::over(std::size_t index, CaptureTime now) const {
  const FlowSlot& f = store_->slot(index);
  return f.cannot_resume() && now - f.last_time > idle_split_ &&
         store_->gap_known(store_->key(index).file_index, f.last_time, now);
}

void FlowTable::retire(const FlowKey& key, std::size_t index) {
  const auto it = set_.find(key);
  if (it != set_.end() && *it == index) set_.erase(it);
}

void FlowTable::update(FlowSlot& f, const FlowKey& key, const Segment& s) {
  f.last_time = s.time;
  if (s.tcp.has(wire::kFin) || s.tcp.has(wire::kRst)) f.closed = true;
  if (s.tcp.has(wire::kRst)) f.rst = true;
  if (s.tcp.has(wire::kFin)) {
    if (s.src == key.lo)
      f.fin_from_lo = true;
    else
      f.fin_from_hi = true;
  }
  if (!s.tcp.has(wire::kSyn) || s.tcp.has(wire::kAck) || s.tcp.has(wire::kRst) || s.tcp.has(wire::kFin))
    f.syn_only = false;
  if (s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck) && !f.has_syn_isn) {
    f.syn_isn = s.tcp.seq;
    f.has_syn_isn = true;
    f.syn_from_lo = s.src == key.lo;
  }
}

}  // namespace replay
