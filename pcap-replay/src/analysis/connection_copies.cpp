// Analyzer::Impl: one datagram captured more than once (on another
// interface or virtual network), and the flow table's view of the segments
// a connection keeps for it.
#include <optional>
#include <utility>

#include "analysis/analyzer_impl.hpp"

namespace replay {

SeqSpan Analyzer::Impl::sent(std::size_t index, int side) {
  const Connection& c = at(index);
  const int dir = dir_of_side(c, side);
  SeqSpan span;
  if (const FirstSegment* first = c.first()) {
    if (first->dir() == dir) {
      const Segment s = first->segment(c.head.file_index, c.head.first_frame, c.head.first_time, c.head.client,
                                       c.head.server, vnets[c.slot.vnet]);
      span.add(s.tcp.seq, RecentSegment(s, 0).end());
    }
  } else if (const Live* live = c.live()) {
    for (const RecentSegment& r : live->recent[dir].items) span.add(r.seq, r.end());
  }
  // A SYN's ISN is where what the side sent begins.
  const FlowSlot& f = c.slot;
  if (span.known && (f.isn_from_syn & (1u << side))) span.add(f.isn[side], f.isn[side] + 1);
  return span;
}

std::optional<std::pair<CaptureTime, std::uint32_t>> Analyzer::Impl::last_tsval(std::size_t index, int side) {
  const Connection& c = at(index);
  const int dir = dir_of_side(c, side);
  std::optional<std::pair<CaptureTime, std::uint32_t>> out;
  if (const FirstSegment* first = c.first()) {
    if (first->dir() == dir) {
      const Segment s = first->segment(c.head.file_index, c.head.first_frame, c.head.first_time, c.head.client,
                                       c.head.server, vnets[c.slot.vnet]);
      if (s.tcp.options.tsval) out.emplace(s.time, *s.tcp.options.tsval);
    }
  } else if (const Live* live = c.live()) {
    for (const RecentSegment& r : live->recent[dir].items)
      if (r.has_tsval() && (!out || r.time > out->first)) out.emplace(r.time, r.tsval);
  }
  return out;
}

bool Analyzer::Impl::copy_elsewhere(const Segment& s, VnetId vnet) {
  const std::uint32_t digest = header_digest(s);
  for (const std::size_t other : table.connections(s)) {
    Connection& c = at(other);
    if (!c.open()) continue;
    const int dir = s.src == c.head.client ? 0 : 1;
    std::optional<std::uint64_t> of;  // the frame it copies
    if (const FirstSegment* first = c.first()) {
      // Its one segment so far: nothing from the peer came before it.
      const Segment a = first->segment(c.head.file_index, c.head.first_frame, c.head.first_time, c.head.client,
                                       c.head.server, vnets[c.slot.vnet]);
      if (first->dir() == dir && capture_copy(RecentSegment(a, 0), a.tcp.options.sack.data(), s, 0, false))
        of = c.head.first_frame;
    } else {
      Live& live = *c.live();
      // (On another virtual network: the capture point duplicates.)
      of = live.recent[dir].take_copy(s, live.seen[1 - dir], digest, Answerable::no);
    }
    if (!of) continue;
    // Counted where the datagram was first seen (as a copy in the same
    // virtual network is), and its virtual network is now one of that
    // connection's: its next segments there are that connection's too.
    const bool was_first = c.first() != nullptr;
    make_live(c, other);
    Live& live = *c.live();
    if (was_first) live.recent[dir].take_copy(s, 0, digest, Answerable::no);  // its one kept segment: the latest capture now `s`'s
    ++c.head.packets;
    count_copy(c, s, dir, *of);
    table.add_vnet(other, vnet);
    return true;
  }
  return false;
}

void Analyzer::Impl::count_copy(Connection& c, const Segment& s, int dir, std::uint64_t of) {
  Live& live = *c.live();
  ++live.capture_duplicates;
  live.duplicate_frames.push_back(s.frame);
  live.duplicate_of.push_back(of);
  if (keep_timeline && !live.candidates.empty()) {  // a timeline to show it in
    const std::uint32_t len = s.payload_len + (s.tcp.has(wire::kSyn) ? 1u : 0u) + (s.tcp.has(wire::kFin) ? 1u : 0u);
    live.copies_seen[dir].push_back(CopySeen{s.frame, of, s.time, s.tcp.seq, len});
  }
  c.head.last_frame = s.frame;
  c.head.last_time = s.time;
}

}  // namespace replay
