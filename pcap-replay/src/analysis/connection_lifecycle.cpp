// Analyzer::Impl: a connection's life, from the segment that opens it to the
// report it leaves when it is finished.
#include <algorithm>
#include <string_view>
#include <utility>

#include <replay/analysis/thresholds.hpp>

#include "analysis/analyzer_impl.hpp"
#include "analysis/inference.hpp"
#include "analysis/reading_score.hpp"

namespace replay {

// The senders' reports of a connection between `client` and `server`, empty.
std::unique_ptr<std::array<SenderReport, 2>> new_senders(const Endpoint& client, const Endpoint& server) {
  auto a = std::make_unique<std::array<SenderReport, 2>>();
  (*a)[0].src = client;
  (*a)[0].dst = server;
  (*a)[1].src = server;
  (*a)[1].dst = client;
  return a;
}

namespace {

// Side `dir`'s timeline with a row for each of its copies (capture order),
// before the first row of a later frame: event kCaptureCopyEvent, the frame
// it copies, its SEQ relative as `model` numbers the side's, and the
// estimator state of the row before it (a copy changes nothing; before any
// row, the RTO of 2.1, `initial_rto`).
void merge_copy_rows(std::vector<TimelineEvent>& timeline, const std::vector<CopySeen>& copies,
                     const SenderModel& model, std::chrono::microseconds initial_rto) {
  if (copies.empty()) return;
  std::vector<TimelineEvent> merged;
  merged.reserve(timeline.size() + copies.size());
  std::size_t i = 0;
  for (const CopySeen& c : copies) {
    while (i < timeline.size() && timeline[i].frame < c.frame) merged.push_back(std::move(timeline[i++]));
    TimelineEvent e;
    e.frame = c.frame;
    e.time = c.time;
    e.event = kCaptureCopyEvent;
    e.rel_seq = model.rel(c.seq);
    e.len = c.len;
    e.copy_of = c.of;
    e.rto = initial_rto;
    if (!merged.empty()) {
      const TimelineEvent& before = merged.back();
      e.srtt = before.srtt;
      e.rttvar = before.rttvar;
      e.rto = before.rto;
      e.backoff = before.backoff;
    }
    merged.push_back(e);
  }
  for (; i < timeline.size(); ++i) merged.push_back(std::move(timeline[i]));
  timeline = std::move(merged);
}

}  // namespace

std::size_t Analyzer::Impl::open_connection(const Segment& s, VnetId vnet, const FlowMatch& where,
                                            const Segment& opener) {
  Impl& m = *this;
  Connection c;
  FlowHead& f = c.head;
  f.file_index = static_cast<std::uint32_t>(s.file_index);
  c.slot.vnet = vnet;  // (the table's open() sets it again)
  // The client sent the SYN; a lone SYN-ACK names it as destination.
  const bool synack = s.tcp.has(wire::kSyn) && s.tcp.has(wire::kAck);
  f.client = synack ? s.dst : s.src;
  f.server = synack ? s.src : s.dst;
  f.first_frame = s.frame;
  f.first_time = s.time;
  if (s.tcp.has(wire::kSyn) && !s.tcp.has(wire::kAck)) {  // Wireshark's tcp.stream test
    f.syn_isn = s.tcp.seq;
  }
  const std::size_t idx = m.total();
  m.conns.push_back(std::move(c));
  if (where.is(FlowMatch::Place::alongside)) {
    // Another host behind one of the addresses began it while the other
    // connection goes on: the report says which, with the two ISNs and
    // whether the TSval shows another clock.
    const std::size_t other = where.connection;
    const int side = opener.src <= opener.dst ? 0 : 1;  // the table's side of the new host
    AlongsideOf a;
    a.flow = other + 1;
    a.server = opener.tcp.has(wire::kAck);
    a.isn = opener.tcp.seq;
    a.other_isn = m.at(other).slot.isn[side];
    if (opener.tcp.options.tsval)
      if (const auto last = last_tsval(other, side))
        a.another_clock = another_tsval_clock(last->first, last->second, opener.time, *opener.tcp.options.tsval);
    m.alongside[idx] = a;
  }
  return idx;
}

void Analyzer::Impl::keep_first(Connection& c, const Segment& s, int dir, bool defer) {
  auto f = std::make_unique<FirstSegment>(s, dir);
  f->defer = defer;
  c.state = std::move(f);
  if (defer) defer_first_send(c, s, dir);
}

void Analyzer::Impl::make_live(Connection& c, std::size_t idx) {
  if (c.live()) return;
  auto made = std::make_unique<Live>();
  Live& live = *made;
  live.elsewhere = !options.owns(idx + 1);
  if (live.elsewhere && options.model_senders && !profiles.empty()) {
    // Another shard's: what its models would feed its hosts, no model.
    const auto feed = [&](const Endpoint& src) {
      engine::HostFeed f(host(src), /*feed_activity=*/true);
      f.forget_send_times();  // (as a feed_only model's)
      return f;
    };
    live.feeds = std::make_unique<HostFeeds>(HostFeeds{{feed(c.head.client), feed(c.head.server)},
                                                       {activity_of(c.head.client), activity_of(c.head.server)},
                                                       &clock_of(c.head.file_index)});
  } else if (options.model_senders) {
    live.candidates.reserve(profiles.size());
    for (const auto& po : profiles) live.candidates.push_back(Candidate{po.get(), nullptr, {}});
  }
  if (!c.first()) {
    c.state = std::move(made);
    return;
  }
  const FirstSegment& f = *c.first();
  const FlowHead& h = c.head;
  // The first segment again (it has been the only one: the FlowHead's first
  // frame and time).
  const Segment s = f.segment(h.file_index, h.first_frame, h.first_time, h.client, h.server, vnets[c.slot.vnet]);
  const int dir = f.dir();
  ++live.seen[dir];
  live.recent[dir].push(s, 0);  // nothing from the peer came before it
  if (dir == 0) keep_client_syn(live, s);
  if (f.defer && live.feeds) {  // what its models would do when made (ensure_model)
    live.feeds->side[dir].replay_first_send(s, f.first_rate(), live.feeds->context(dir));
    live.feeds->side[1 - dir].on_peer(s);
  } else if (f.defer) {
    hold_for_peer(live, s, dir);  // no model exists yet: kept
    live.deferred = static_cast<std::int8_t>(dir);
    live.first_rate = f.first_rate();
  }
  c.state = std::move(made);  // the FirstSegment goes
}

void Analyzer::Impl::defer_first_send(Connection& c, const Segment& s, int dir) {
  const Endpoint& src = dir == 0 ? c.head.client : c.head.server;
  // What the models' TsClock::observe would write and read now: a new
  // clock of the host, as theirs are before this segment.
  TsClock probe;
  probe.set_host(host(src));
  if (s.tcp.options.tsval) {
    probe.observe(s.time, *s.tcp.options.tsval);
    c.first()->set_first_rate(probe.rate_hz());
  }
  // The first candidate's model feeds its host's activity (ensure_model).
  activity_of(src)->observe(s.file_index, s.frame, s.time, SenderModel::first_send_held(probe, s));
}

void Analyzer::Impl::create_deferred(Connection& c) {
  Live& live = *c.live();
  if (live.deferred < 0) return;
  for (std::size_t i = 0; i < live.candidates.size(); ++i) ensure_model(c, i, live.deferred);
  live.deferred = -1;
}

void Analyzer::Impl::finish_connection(Connection& c, std::size_t idx) {
  if (!c.open()) return;
  make_live(c, idx);
  Live& live = *c.live();
  auto& candidates = live.candidates;
  if (live.elsewhere) {  // another shard reports its senders: their reports stay empty
    candidates.clear();
    live.senders.reset();
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    for (int d = 0; d < 2; ++d) {
      ensure_model(c, i, d);
      candidates[i].model[d]->finish();
    }
  }
  live.deferred = -1;
  if (!live.senders) live.senders = new_senders(c.head.client, c.head.server);  // no model (flows)
  std::array<SenderReport, 2>& senders = *live.senders;
  for (int d = 0; d < 2 && !candidates.empty(); ++d) {  // none without sender models
    std::size_t best = 0;
    for (std::size_t i = 1; i < candidates.size(); ++i)
      if (reading_score(out(c, candidates[i], d)) < reading_score(out(c, candidates[best], d))) best = i;
    std::vector<std::string_view> ties;  // other profiles that fit as well
    for (std::size_t i = 0; i < candidates.size(); ++i)
      if (i != best && reading_score(out(c, candidates[i], d)) == reading_score(out(c, candidates[best], d)))
        ties.push_back(candidates[i].options->profile->name);
    if (candidates[best].own) senders[d] = std::move((*candidates[best].own)[d]);
    infer_settings(senders[d], *candidates[best].options, ties);
    merge_copy_rows(senders[d].timeline, live.copies_seen[d], *candidates[best].model[d],
                    candidates[best].options->config.initial_rto);
  }
  // The report: the connection's fields, its file's name, the senders.
  auto made = std::make_unique<FlowReport>();
  FlowReport& f = *made;
  // What the table knows of it, before it leaves the table: the virtual
  // networks (listed when any is one), and whether another connection of its
  // 4-tuple was on another; and what it was opened beside.
  if (const std::vector<VnetId> ids = table.vnets(idx); ids.size() > 1 || ids.front() != 0)
    for (const VnetId id : ids) f.vnets.push_back(vnets[id]);
  f.vnet_apart = table.vnet_apart(idx);
  if (const auto a = alongside.find(idx); a != alongside.end()) {
    f.alongside = a->second;
    alongside.erase(a);
  }
  table.retire(idx);
  static_cast<FlowHead&>(f) = c.head;
  f.id = idx + 1;
  if (f.file_index < report.files.size()) f.file = report.files[f.file_index];
  f.capture_duplicates = live.capture_duplicates;
  f.duplicate_frames = std::move(live.duplicate_frames);
  f.duplicate_of = std::move(live.duplicate_of);
  f.senders = std::move(senders);
  f.elsewhere = live.elsewhere;
  c.state = std::move(made);  // the Live (its models) goes
  restore_capture_times(f);  // the frames' own times again, before the flow sink sees it
  if (report.file_totals.size() <= f.file_index) report.file_totals.resize(f.file_index + 1);
  if (!f.elsewhere) report.file_totals[f.file_index].add(f);
  drain();
}

void Analyzer::Impl::restore_capture_times(FlowReport& f) const {
  if (f.file_index >= clocks.size() || !clocks[f.file_index] || clocks[f.file_index]->empty()) return;
  const ClockSteps& c = *clocks[f.file_index];
  f.first_time = c.capture_time(f.first_time);
  f.last_time = c.capture_time(f.last_time);
  for (SenderReport& s : f.senders) {
    for (Judgement& x : s.findings) x.time = c.capture_time(x.time);
    for (TimeoutRecord& t : s.timeouts) t.time = c.capture_time(t.time);
    for (TimelineEvent& e : s.timeline) e.time = c.capture_time(e.time);
  }
}

void Analyzer::Impl::finish_quiet(CaptureTime now) {
  while (!quiet.empty()) {
    const auto [t, idx] = quiet.front();
    if (now - t <= options.idle_split) return;  // the entries after it are later (capture order)
    quiet.pop_front();
    if (idx < base) continue;  // finished and written
    Connection& c = at(idx);
    // Finished; or a later segment has queued it again, or let it resume.
    if (!c.open() || c.slot.last_time != t) continue;
    if (table.over(idx, now)) finish_connection(c, idx);
  }
}

void Analyzer::Impl::finish_open() {
  // drain() may write and drop connections as they are finished: those
  // below `base` are gone.
  for (std::size_t idx = base; idx < total(); ++idx)
    if (idx >= base && at(idx).open()) finish_connection(at(idx), idx);
  quiet.clear();
}

}  // namespace replay
