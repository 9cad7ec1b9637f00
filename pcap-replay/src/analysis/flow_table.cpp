#include "analysis/flow_table.hpp"

#include <cstring>

namespace replay {

namespace {
// One 64 x 64 -> 128-bit multiply folded to 64 bits (the mixing step of
// wyhash-style hashes): every input bit reaches about half the output bits.
std::uint64_t fold(std::uint64_t a, std::uint64_t b) {
  __extension__ typedef unsigned __int128 U128;
  const U128 m = static_cast<U128>(a) * b;
  return static_cast<std::uint64_t>(m) ^ static_cast<std::uint64_t>(m >> 64);
}

// Odd constants with well-spread bits (the first four from wyhash's secret,
// the last the 64-bit golden ratio).
constexpr std::uint64_t kK0 = 0xa0761d6478bd642full, kK1 = 0xe7037ed1a0b428dbull, kK2 = 0x8ebc6af09c88c6e3ull,
                        kK3 = 0x589965cc75374cc3ull, kK4 = 0x9e3779b97f4a7c15ull;

std::uint64_t endpoint_hash(const Endpoint& e) {
  std::uint64_t w0 = 0, w1 = 0;
  std::memcpy(&w0, e.address.bytes.data(), 8);
  std::memcpy(&w1, e.address.bytes.data() + 8, 8);
  const std::uint64_t w2 = std::uint64_t{e.port} | std::uint64_t{e.address.version} << 16;
  return fold(w0 ^ kK0, w1 ^ kK1) ^ fold(w2 ^ kK2, kK3);
}

bool same_endpoint(const Endpoint& x, const Endpoint& y) {
  return x.port == y.port && x.address.version == y.address.version &&
         std::memcmp(x.address.bytes.data(), y.address.bytes.data(), x.address.bytes.size()) == 0;
}

// Whether `s` comes from the lower of its two endpoints (Endpoint's order;
// both when they are equal).
bool from_lo(const Segment& s) { return s.src <= s.dst; }
}  // namespace

std::uint64_t flow_hash(const FlowEnds& e) {
  // The sum is the same in either order; the fold mixes it with the file.
  return fold(endpoint_hash(*e.a) + endpoint_hash(*e.b) + kK4, e.file_index ^ kK0);
}

bool same_flow(const FlowEnds& x, const FlowEnds& y) {
  if (x.file_index != y.file_index) return false;
  return (same_endpoint(*x.a, *y.a) && same_endpoint(*x.b, *y.b)) ||
         (same_endpoint(*x.a, *y.b) && same_endpoint(*x.b, *y.a));
}

FlowTable::FlowTable(std::chrono::microseconds idle_split, FlowStore& store)
    : idle_split_(idle_split), store_(&store), set_(0, Hash{&store}, Eq{&store}) {}

namespace {
FlowEnds ends_of(const Segment& s) { return FlowEnds{s.file_index, &s.src, &s.dst}; }
}  // namespace

std::optional<std::size_t> FlowTable::lookup(const Segment& s) {
  const auto it = set_.find(ends_of(s));
  if (it == set_.end()) return std::nullopt;
  FlowSlot& f = store_->slot(*it);
  const bool pure_syn = s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck);
  const bool idle = s.time - f.last_time > idle_split_;
  if (idle && f.cannot_resume() && store_->gap_known(s.file_index, f.last_time, s.time))
    return std::nullopt;  // nothing of it can still come
  if (pure_syn) {
    if (f.closed) return std::nullopt;  // port reuse after FIN/RST
    if (idle) return std::nullopt;
    if (f.has_syn_isn && f.syn_isn != s.tcp.seq && f.syn_from_lo == from_lo(s)) return std::nullopt;  // new ISN
  }
  update(f, s);
  return *it;
}

std::optional<std::size_t> FlowTable::find(const Segment& s) const {
  const auto it = set_.find(ends_of(s));
  if (it == set_.end()) return std::nullopt;
  return *it;
}

void FlowTable::open(const Segment& s, std::size_t index) {
  if (const auto it = set_.find(ends_of(s)); it != set_.end()) set_.erase(it);
  set_.insert(index);
  FlowSlot& f = store_->slot(index);
  f = FlowSlot{};
  update(f, s);
}

bool FlowTable::over(std::size_t index, CaptureTime now) const {
  const FlowSlot& f = store_->slot(index);
  return f.cannot_resume() && now - f.last_time > idle_split_ &&
         store_->gap_known(store_->ends(index).file_index, f.last_time, now);
}

void FlowTable::retire(std::size_t index) {
  const auto it = set_.find(store_->ends(index));
  if (it != set_.end() && *it == index) set_.erase(it);
}

void FlowTable::update(FlowSlot& f, const Segment& s) {
  f.last_time = s.time;
  if (s.tcp.has(wire::kFin) || s.tcp.has(wire::kRst)) f.closed = true;
  if (s.tcp.has(wire::kRst)) f.rst = true;
  if (s.tcp.has(wire::kFin)) {
    if (from_lo(s))
      f.fin_from_lo = true;
    else
      f.fin_from_hi = true;
  }
  if (!s.tcp.has(wire::kSyn) || s.tcp.has(wire::kAck) || s.tcp.has(wire::kRst) || s.tcp.has(wire::kFin))
    f.syn_only = false;
  if (s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck) && !f.has_syn_isn) {
    f.syn_isn = s.tcp.seq;
    f.has_syn_isn = true;
    f.syn_from_lo = from_lo(s);
  }
}

}  // namespace replay
