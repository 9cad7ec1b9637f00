#include "analysis/flow_table.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include <replay/analysis/thresholds.hpp>

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

// 8 bytes as a big-endian number (so that numbers compare as the bytes do).
std::uint64_t be64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

// The side `s` comes from: 0 the lower of its two endpoints (Endpoint's
// order: address bytes, version, port; 0 when they are equal), 1 the
// higher. Two 8-byte compares for the address (no call per segment).
int side_of(const Segment& s) {
  const auto& a = s.src.address.bytes;
  const auto& b = s.dst.address.bytes;
  const std::uint64_t a0 = be64(a.data()), b0 = be64(b.data());
  if (a0 != b0) return a0 < b0 ? 0 : 1;
  const std::uint64_t a1 = be64(a.data() + 8), b1 = be64(b.data() + 8);
  if (a1 != b1) return a1 < b1 ? 0 : 1;
  if (s.src.address.version != s.dst.address.version) return s.src.address.version < s.dst.address.version ? 0 : 1;
  return s.src.port <= s.dst.port ? 0 : 1;
}
std::uint8_t bit(int side) { return static_cast<std::uint8_t>(1u << side); }
// One past the sequence space `s` occupies (SYN and FIN count one each).
std::uint32_t end_of(const Segment& s) {
  return s.tcp.seq + s.payload_len + (s.tcp.has(wire::kSyn) ? 1u : 0u) + (s.tcp.has(wire::kFin) ? 1u : 0u);
}
FlowEnds ends_of(const Segment& s) { return FlowEnds{s.file_index, &s.src, &s.dst}; }
}  // namespace

void SeqSpan::add(std::uint32_t seq, std::uint32_t seg_end) {
  if (!known) {
    lo = seq;
    end = seg_end;
    known = true;
    return;
  }
  if (static_cast<std::int32_t>(seg_end - end) > 0) end = seg_end;
  if (static_cast<std::int32_t>(seq - lo) < 0) lo = seq;
}

std::uint32_t SeqSpan::distance(std::uint32_t v) const {
  if (!known) return std::numeric_limits<std::uint32_t>::max();
  if (v - lo <= end - lo) return 0;
  return std::min(lo - v, v - end);
}

bool another_tsval_clock(CaptureTime t0, std::uint32_t v0, CaptureTime t1, std::uint32_t v1) {
  const auto ticks = static_cast<std::int32_t>(v1 - v0);
  if (ticks < 0) return true;  // a clock does not run backwards
  const auto ns = (t1 - t0).count();
  // The most ticks any clock RFC 7323 allows makes in that time, plus the
  // one a tick boundary between the two can add.
  __extension__ typedef __int128 I128;  // ns x Hz overflows 64 bits past 106 days
  const I128 most = static_cast<I128>(ns < 0 ? 0 : ns) * limits::kMaxTsvalHz / 1'000'000'000 + 1;
  return ticks > most;
}

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

bool FlowTable::on_vnet(std::size_t c, VnetId vnet) const {
  const FlowSlot& f = store_->slot(c);
  if (f.vnet == vnet) return true;
  if (!f.grouped) return false;
  const auto it = groups_.find(c);
  return it != groups_.end() && std::find(it->second.vnets.begin(), it->second.vnets.end(), vnet) != it->second.vnets.end();
}

FlowTable::Group& FlowTable::group(std::size_t c) {
  auto [it, made] = groups_.try_emplace(c);
  if (made) {
    it->second.next = c;
    store_->slot(c).grouped = true;
    for (int side = 0; side < 2; ++side) it->second.span[side] = store_->sent(c, side);
  }
  return it->second;
}

bool FlowTable::may_join(std::size_t c, const FlowSlot& f, const Segment& s, int side) {
  const bool syn = s.tcp.has(wire::kSyn), ack = s.tcp.has(wire::kAck);
  // A SYN with the connection's ISN for its side is that connection's
  // (its retransmission, seen on another virtual network), whoever sent first.
  if (syn && (f.isn_from_syn & bit(side)) && f.isn[side] == s.tcp.seq) return true;
  if (f.sent & bit(side)) return false;  // that side is bound to its own virtual networks
  if (syn && !ack) return !(f.isn_known & bit(side)) || f.isn[side] == s.tcp.seq;
  if (!ack) return true;
  // It must acknowledge what the peer sent there: a SYN-ACK its SYN exactly,
  // anything else at most the end of the peer's highest segment and no more
  // than kJoinAckSlack behind it.
  const int peer = 1 - side;
  if (syn && (f.isn_from_syn & bit(peer))) return s.tcp.ack == f.isn[peer] + 1;
  const auto g = groups_.find(c);
  const SeqSpan sent = f.grouped && g != groups_.end() ? g->second.span[peer] : store_->sent(c, peer);
  if (!sent.known) return true;
  return static_cast<std::int32_t>(s.tcp.ack - sent.end) <= 0 && sent.end - s.tcp.ack <= limits::kJoinAckSlack;
}

std::optional<std::size_t> FlowTable::choose(std::size_t head, const Segment& s, int side, VnetId vnet) {
  absl::InlinedVector<std::size_t, 4> ring;
  for (std::size_t c = head;;) {
    ring.push_back(c);
    c = groups_.at(c).next;
    if (c == head) break;
  }
  std::sort(ring.begin(), ring.end());  // oldest first: ties go to the oldest
  absl::InlinedVector<std::size_t, 4> on;
  for (std::size_t c : ring)
    if (on_vnet(c, vnet)) on.push_back(c);
  if (on.size() == 1) return on.front();
  if (on.size() > 1) {
    // Between connections on one virtual network: the one whose sent
    // sequence numbers SEQ (this side's) and ACK (the peer's) are nearest.
    const bool ack = s.tcp.has(wire::kAck);
    constexpr std::uint64_t kUnknown = std::uint64_t{1} << 32;
    std::size_t best = on.front();
    std::uint64_t best_score = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t c : on) {
      const Group& g = groups_.at(c);
      std::uint64_t score = kUnknown;
      bool any = false;
      auto take = [&](const SeqSpan& sp, std::uint32_t v) {
        if (!sp.known) return;
        const std::uint64_t d = sp.distance(v);
        score = any ? std::max(score, d) : d;
        any = true;
      };
      take(g.span[side], s.tcp.seq);
      if (ack) take(g.span[1 - side], s.tcp.ack);
      if (score < best_score) {
        best = c;
        best_score = score;
      }
    }
    return best;
  }
  for (std::size_t c : ring)
    if (may_join(c, store_->slot(c), s, side)) return c;
  return std::nullopt;
}

FlowMatch FlowTable::place(std::size_t c, FlowSlot& f, const Segment& s, int side) {
  const bool syn = s.tcp.has(wire::kSyn), ack = s.tcp.has(wire::kAck);
  const bool idle = s.time - f.last_time > idle_split_;
  FlowMatch m;
  m.connection = c;
  if (idle && f.cannot_resume() && store_->gap_known(s.file_index, f.last_time, s.time)) {
    m.place = FlowMatch::Place::replaces;  // nothing of it can still come
    return m;
  }
  if (syn) {
    const bool new_isn = (f.isn_known & bit(side)) && f.isn[side] != s.tcp.seq;
    if (!ack) {
      if (f.closed || idle) {  // port reuse after FIN/RST, or after an idle gap
        m.place = FlowMatch::Place::replaces;
        return m;
      }
      if (new_isn) {
        // Another ISN: a new connection. From another TSval clock while the
        // old one was answered and has not ended: another host behind the
        // address, and the old connection goes on; otherwise its host began
        // a new one (an attempt nothing answered is given up for it).
        const auto last = s.tcp.options.tsval ? store_->last_tsval(c, side) : std::nullopt;
        if (!f.syn_only && last && another_tsval_clock(last->first, last->second, s.time, *s.tcp.options.tsval))
          m.place = FlowMatch::Place::alongside;
        else
          m.place = FlowMatch::Place::replaces;
        return m;
      }
    } else if (new_isn && (f.isn_from_syn & bit(side))) {
      // A SYN-ACK with another ISN than an earlier SYN-ACK of this side: not
      // its retransmission (which keeps the ISN) but another answer, from
      // another host behind the address (or its host anew).
      m.place = f.closed || idle ? FlowMatch::Place::replaces : FlowMatch::Place::alongside;
      return m;
    }
  }
  update(c, f, s, side);
  m.place = FlowMatch::Place::belongs;
  return m;
}

FlowMatch FlowTable::lookup(const Segment& s, VnetId vnet) {
  std::size_t head;
  if (last_.valid && last_.file_index == s.file_index &&
      ((same_endpoint(last_.a, s.src) && same_endpoint(last_.b, s.dst)) ||
       (same_endpoint(last_.a, s.dst) && same_endpoint(last_.b, s.src)))) {
    head = last_.head;  // (set_ has not changed since: the same entry)
  } else {
    const auto it = set_.find(ends_of(s));
    if (it == set_.end()) return {};
    head = *it;
    last_ = LastEntry{true, s.file_index, s.src, s.dst, head};
  }
  const int side = side_of(s);
  FlowSlot& hf = store_->slot(head);
  std::optional<std::size_t> c;
  if (!hf.grouped) {
    if (hf.vnet == vnet) {  // the common case: one connection, one network
      FlowMatch m;
      m.connection = head;
      // No split rule looks at a segment without SYN within the idle split.
      if (!s.tcp.has(wire::kSyn) && s.time - hf.last_time <= idle_split_) {
        update(head, hf, s, side);
        m.place = FlowMatch::Place::belongs;
        return m;
      }
      return place(head, hf, s, side);
    }
    if (may_join(head, hf, s, side)) c = head;
  } else {
    c = choose(head, s, side, vnet);
  }
  if (!c) {
    FlowMatch m;
    m.place = FlowMatch::Place::other_vnet;
    return m;
  }
  FlowMatch m = place(*c, store_->slot(*c), s, side);
  if (m.is(FlowMatch::Place::belongs)) add_vnet(*c, vnet);
  return m;
}

std::vector<std::size_t> FlowTable::connections(const Segment& s) const {
  std::vector<std::size_t> out;
  const auto it = set_.find(ends_of(s));
  if (it == set_.end()) return out;
  out.push_back(*it);
  if (store_->slot(*it).grouped)
    for (std::size_t c = groups_.at(*it).next; c != *it; c = groups_.at(c).next) out.push_back(c);
  std::sort(out.begin(), out.end());
  return out;
}

void FlowTable::open(const Segment& s, VnetId vnet, std::size_t index, const FlowMatch& m) {
  store_->slot(index) = FlowSlot{};
  store_->slot(index).vnet = vnet;
  const int side = side_of(s);
  // (last_ stays valid: a new 4-tuple's entry leaves the others as they
  // were, and a connection joining a 4-tuple's ring leaves its entry.)
  const auto it = set_.find(ends_of(s));
  if (it == set_.end()) {
    set_.insert(index);
  } else {
    // Another connection of its 4-tuple goes on: `index` joins its ring.
    const std::size_t head = *it;
    group(head);
    Group& g = group(index);
    Group& h = groups_.at(head);  // (after the insertion, which may move the records)
    g.next = h.next;
    h.next = index;
    for (std::size_t c = g.next; c != index; c = groups_.at(c).next)
      if (store_->slot(c).vnet != vnet) {
        groups_.at(c).vnet_apart = true;
        groups_.at(index).vnet_apart = true;
      }
    if (m.is(FlowMatch::Place::alongside) && s.tcp.has(wire::kSyn) && s.tcp.has(wire::kAck)) {
      // Another server's answer to the same SYN: the client's side (its ISN
      // and what it sent) is the one the old connection has.
      const int peer = 1 - side;
      const FlowSlot& old = store_->slot(m.connection);
      FlowSlot& f = store_->slot(index);
      if (old.isn_known & bit(peer)) {
        f.isn[peer] = old.isn[peer];
        f.isn_known |= bit(peer);
        f.isn_from_syn |= old.isn_from_syn & bit(peer);
      }
      groups_.at(index).span[peer] = groups_.at(m.connection).span[peer];
    }
  }
  update(index, store_->slot(index), s, side);
}

void FlowTable::add_vnet(std::size_t index, VnetId vnet) {
  if (on_vnet(index, vnet)) return;
  group(index).vnets.push_back(vnet);
}

std::vector<VnetId> FlowTable::vnets(std::size_t index) const {
  std::vector<VnetId> out{store_->slot(index).vnet};
  if (store_->slot(index).grouped)
    if (const auto it = groups_.find(index); it != groups_.end())
      out.insert(out.end(), it->second.vnets.begin(), it->second.vnets.end());
  return out;
}

bool FlowTable::vnet_apart(std::size_t index) const {
  if (!store_->slot(index).grouped) return false;
  const auto it = groups_.find(index);
  return it != groups_.end() && it->second.vnet_apart;
}

bool FlowTable::over(std::size_t index, CaptureTime now) const {
  const FlowSlot& f = store_->slot(index);
  return f.cannot_resume() && now - f.last_time > idle_split_ &&
         store_->gap_known(store_->ends(index).file_index, f.last_time, now);
}

void FlowTable::retire(std::size_t index) {
  FlowSlot& f = store_->slot(index);
  std::size_t next = index;
  if (f.grouped) {
    const auto gi = groups_.find(index);
    if (gi != groups_.end()) {
      next = gi->second.next;
      if (next != index) {  // unlink it from its ring
        std::size_t p = next;
        while (groups_.at(p).next != index) p = groups_.at(p).next;
        groups_.at(p).next = next;
      }
      groups_.erase(gi);
    }
    f.grouped = false;
  }
  const auto it = set_.find(store_->ends(index));
  if (it == set_.end() || *it != index) return;
  last_.valid = false;  // set_ changes
  set_.erase(it);
  if (next != index) set_.insert(next);  // the ring's next connection holds the 4-tuple's entry
}

inline void FlowTable::update(std::size_t c, FlowSlot& f, const Segment& s, int side) {
  const std::uint8_t flags = s.tcp.flags;
  const bool syn = (flags & wire::kSyn) != 0, ack = (flags & wire::kAck) != 0;
  const std::uint8_t own = bit(side), peer_bit = bit(1 - side);
  f.last_time = s.time;
  f.sent |= own;
  if ((flags & (wire::kFin | wire::kRst)) != 0) {
    f.closed = true;
    if ((flags & wire::kRst) != 0) f.rst = true;
    if ((flags & wire::kFin) != 0) {
      if (side == 0)
        f.fin_from_lo = true;
      else
        f.fin_from_hi = true;
    }
    f.syn_only = false;
  }
  if (!syn || ack) f.syn_only = false;
  // Each side's ISN as Wireshark takes its base sequence number: its SYN's
  // SEQ, else one before its first segment's SEQ, else one before the
  // peer's first ACK. (Once both are known, only a SYN has anything to add.)
  if (syn || (f.isn_known & (own | peer_bit)) != (own | peer_bit)) {
    if (!(f.isn_known & own)) {
      f.isn[side] = syn ? s.tcp.seq : s.tcp.seq - 1;
      f.isn_known |= own;
      if (syn) f.isn_from_syn |= own;
    } else if (syn && f.isn[side] == s.tcp.seq) {
      f.isn_from_syn |= own;
    }
    if (ack && !(f.isn_known & peer_bit)) {
      f.isn[1 - side] = s.tcp.ack - 1;
      f.isn_known |= peer_bit;
    }
  }
  if (f.grouped) add_span(c, s, side);
}

void FlowTable::add_span(std::size_t c, const Segment& s, int side) {
  if (const auto it = groups_.find(c); it != groups_.end()) it->second.span[side].add(s.tcp.seq, end_of(s));
}

}  // namespace replay
