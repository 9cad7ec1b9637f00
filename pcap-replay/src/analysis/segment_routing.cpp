// Analyzer::Impl: each segment to its connection (the flow table places it)
// and to its sender models: the path every segment takes.
#include <optional>
#include <string>

#include <fmt/format.h>

#include <replay/analysis/thresholds.hpp>

#include "analysis/analyzer_impl.hpp"

namespace replay {

void Analyzer::Impl::add_model(const Segment& s) {
  Impl& m = *this;
  if (!m.report.have_first_time || s.time < m.report.first_time) {
    m.report.first_time = s.time;
    m.report.have_first_time = true;
  }
  if (s.file_index != m.current_file) {  // a new input file: the earlier files' connections are done
    m.finish_open();
    m.current_file = s.file_index;
  }
  m.finish_quiet(s.time);
  std::size_t idx;
  const VnetId vnet = m.vnet_of(s.vnet);
  const FlowMatch where = m.table.lookup(s, vnet);
  if (where.is(FlowMatch::Place::belongs)) {
    idx = where.connection;
  } else {
    // A packet first seen on another virtual network (the copy on VLAN 20
    // of a segment seen on VLAN 10) opens nothing: it is a copy there.
    if (where.is(FlowMatch::Place::other_vnet) && m.copy_elsewhere(s, vnet)) return;
    if (m.total() >= m.options.max_flows) {
      // Of no connection: shard 1's to count and say (each shard sees it).
      if (m.options.shard_k != 1) return;
      ++m.report.dropped_segments;
      if (!m.beyond_max_flows)
        m.report.limit_hits.push_back(LimitHit{
            s.file_index, s.frame,
            fmt::format("{}: frame {}: connection {} ({} -> {}) is beyond --max-flows {}: its segments and those of "
                        "every later new connection are not analysed",
                        s.file_index < m.report.files.size() ? m.report.files[s.file_index] : std::string("?"),
                        s.frame, m.total() + 1, to_string(s.src), to_string(s.dst), m.options.max_flows)});
      m.beyond_max_flows = true;
      return;
    }
    if (where.is(FlowMatch::Place::replaces))  // split: the old one is done
      m.finish_connection(m.at(where.connection), where.connection);
    // Another server's SYN-ACK: its connection begins with the client's SYN
    // it answers (the same frame as in the other connection, not counted
    // again for lockstep), so that its SYN-ACKs are timed as a server's.
    std::optional<Segment> syn;
    if (where.is(FlowMatch::Place::alongside) && s.tcp.has(wire::kSyn) && s.tcp.has(wire::kAck))
      syn = m.answered_syn(where.connection, s);
    idx = m.open_connection(syn ? *syn : s, vnet, where, s);
    m.table.open(s, vnet, idx, where);
    if (syn) {
      m.alongside[idx].syn_frame = syn->frame;
      m.add_to(idx, *syn, /*shared=*/true);
    }
  }
  m.add_to(idx, s, /*shared=*/false);
}

std::optional<Segment> Analyzer::Impl::answered_syn(std::size_t other, const Segment& synack) {
  Connection& c = at(other);
  if (!c.open()) return std::nullopt;
  const int dir = synack.dst == c.head.client ? 0 : 1;  // the SYN's side
  const VirtualNetwork& vnet = vnets[c.slot.vnet];
  if (const FirstSegment* first = c.first()) {
    Segment a = first->segment(c.head.file_index, c.head.first_frame, c.head.first_time, c.head.client,
                               c.head.server, vnet);
    if (first->dir() == dir && a.tcp.has(wire::kSyn) && !a.tcp.has(wire::kAck) && a.tcp.seq + 1 == synack.tcp.ack)
      return a;
    return std::nullopt;
  }
  const Live& live = *c.live();
  if (dir == 0 && live.client_syn && live.client_syn->tcp.seq + 1 == synack.tcp.ack) return *live.client_syn;
  return std::nullopt;
}

void Analyzer::Impl::add_to(std::size_t idx, const Segment& s, bool shared) {
  Impl& m = *this;
  if (m.at(idx).slot.cannot_resume()) m.quiet.emplace_back(m.at(idx).slot.last_time, idx);
  Connection& c = m.at(idx);
  FlowHead& f = c.head;
  if (m.options.frames && m.options.frames->contains(s.frame)) f.has_selected_frame = true;
  if (c.finished()) {
    if (m.options.owns(idx + 1)) ++m.report.dropped_segments;
    return;
  }
  const int dir = (s.src == f.client) ? 0 : 1;
  // Its sender's models wait for the connection's second segment
  // (Live::deferred). A first segment cannot put its sender over
  // --max-outstanding (it leaves at most one segment outstanding), but with
  // --max-outstanding 0 the models exist from the first segment on.
  const bool models = m.options.model_senders && !m.profiles.empty();
  const bool defer = models && m.options.max_outstanding >= 1;
  if (!c.open() && (defer || !models)) {  // its first segment: kept as a FirstSegment
    ++f.packets;
    note_segment(f, s);
    if (!shared) m.attempts.add(s, idx, f.client, f.server, c.attempt);
    m.keep_first(c, s, dir, defer);
    return;
  }
  if (!c.live()) m.make_live(c, idx);  // (live already after its second segment: no call)
  Live& live = *c.live();
  // Past --max-outstanding the segment is not analysed (its report ends
  // before it), but routed and fed as any (Live::over_limit).
  const bool analysed = !live.over_limit;
  if (analysed)
    ++f.packets;
  else
    ++m.report.dropped_segments;
  const std::uint64_t peer_count = live.seen[1 - dir];
  ++live.seen[dir];
  RecentRing& ring = live.recent[dir];
  const std::uint32_t digest = header_digest(s);
  const Answerable second = answerable(live, s, dir);
  if (const std::optional<std::uint64_t> of = ring.take_copy(s, peer_count, digest, second)) {
    if (analysed) m.count_copy(c, s, dir, *of);
    return;
  }
  ring.push(s, peer_count, digest);
  if (dir == 0) keep_client_syn(live, s);
  if (analysed) note_segment(f, s);
  if (!shared) m.attempts.add(s, idx, f.client, f.server, c.attempt);
  // In the order of the models' shared effects (host clock, host activity):
  // per candidate the peer's model, then the sender's.
  if (live.feeds) {  // another shard's connection: its feeds, as its models
    live.feeds->side[1 - dir].on_peer(s);
    live.feeds->side[dir].on_send(s, live.feeds->context(dir));
    return;
  }
  if (live.candidates.empty()) return;  // connections only (flows): no sender model
  if (live.deferred >= 0) m.create_deferred(c);  // (its models wait: made now)
  const bool held = Impl::hold_for_peer(live, s, dir);
  for (std::size_t i = 0; i < live.candidates.size(); ++i) {
    Candidate& cand = live.candidates[i];
    // (Once made, a model stays: the call to make one only when missing.)
    if (!held) {
      if (!cand.model[1 - dir]) m.ensure_model(c, i, 1 - dir);
      cand.model[1 - dir]->on_peer(s);
    }
    if (!cand.model[dir]) m.ensure_model(c, i, dir);
    // (Not a copy only as its models read it: its host sees a copy, as the
    // shards that do not judge it read it.)
    cand.model[dir]->on_send(s, second == Answerable::yes ? engine::HostEffect::none : engine::HostEffect::fed);
  }
  for (int d = 0; d < 2; ++d)  // heard by every candidate's model of side d now
    if (!live.unheard[1 - d].empty() && live.candidates.front().model[d]) std::vector<Segment>().swap(live.unheard[1 - d]);
  if (live.over_limit) return;
  for (Candidate& cand : live.candidates) {
    if (cand.model[dir]->outstanding() <= m.options.max_outstanding) continue;
    m.report.limit_hits.push_back(LimitHit{
        s.file_index, s.frame,
        fmt::format("{}: frame {}: connection {}: {} -> {} has more than --max-outstanding {} unacknowledged "
                    "segments: the connection is analysed up to this frame only",
                    s.file_index < m.report.files.size() ? m.report.files[s.file_index] : std::string(), s.frame,
                    idx + 1, to_string(s.src), to_string(s.dst), m.options.max_outstanding)});
    live.over_limit = true;
    for (Candidate& each : live.candidates)
      for (auto& model : each.model)
        if (model) model->feed_only();
    break;
  }
}

Answerable Analyzer::Impl::answerable(const Live& live, const Segment& s, int dir) {
  // A SYN-ACK right after one its sender's model holds as its timer's or an
  // answer (any reading's): the answer, unless the capture has shown that
  // it duplicates datagrams.
  if (!s.tcp.has(wire::kSyn) || !s.tcp.has(wire::kAck) || live.capture_duplicates > 0) return Answerable::no;
  for (const Candidate& cand : live.candidates)
    if (cand.model[dir] && cand.model[dir]->second_of_held_synack(s)) return Answerable::yes;
  return Answerable::no;
}

void Analyzer::Impl::ensure_model(Connection& c, std::size_t i, int d) {
  Live& live = *c.live();
  Candidate& cand = live.candidates[i];
  if (cand.model[d]) return;
  // The reports the models write, with the first model: the connection's
  // (one profile), or the reading's own (--profile auto).
  if (!live.senders) live.senders = new_senders(c.head.client, c.head.server);
  if (profiles.size() > 1 && !cand.own) cand.own = new_senders(c.head.client, c.head.server);
  const Endpoint& src = (*live.senders)[d].src;
  cand.model[d] = std::make_unique<SenderModel>(*cand.options, out(c, cand, d), keep_timeline, host(src),
                                                activity_of(src), /*feed_activity=*/i == 0);
  if (live.over_limit) cand.model[d]->feed_only();
  cand.model[d]->set_clock_steps(&clock_of(c.head.file_index));
  cand.model[d]->set_recent(&live.recent[d]);
  // The first segment of the connection, if this side sent it and its
  // models waited (it comes before anything the peer sent).
  if (live.deferred == d) cand.model[d]->replay_first_send(live.unheard[d].front(), live.first_rate);
  for (const Segment& p : live.unheard[1 - d]) cand.model[d]->on_peer(p);
}


}  // namespace replay
