#include "flow_table.hpp"

namespace replay {

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

std::optional<std::size_t> FlowTable::find(const Segment& s) const {
  const auto it = slots_.find(flow_key(s));
  if (it == slots_.end()) return std::nullopt;
  const FlowSlot& f = it->second;
  const bool pure_syn = s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck);
  if (pure_syn) {
    if (f.closed) return std::nullopt;  // port reuse after FIN/RST
    if (s.time - f.last_time > idle_split_) return std::nullopt;
    if (f.syn_isn && *f.syn_isn != s.tcp.seq && f.syn_sender == s.src) return std::nullopt;  // new ISN
  }
  return f.index;
}

void FlowTable::open(const Segment& s, std::size_t index) {
  FlowSlot f;
  f.index = index;
  f.last_time = s.time;
  slots_[flow_key(s)] = f;
}

void FlowTable::update(const Segment& s) {
  auto it = slots_.find(flow_key(s));
  if (it == slots_.end()) return;
  FlowSlot& f = it->second;
  f.last_time = s.time;
  if (s.tcp.has(wire::kFin) || s.tcp.has(wire::kRst)) f.closed = true;
  if (s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck) && !f.syn_isn) {
    f.syn_isn = s.tcp.seq;
    f.syn_sender = s.src;
  }
}

}  // namespace replay
