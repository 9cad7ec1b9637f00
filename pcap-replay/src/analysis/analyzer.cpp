#include <replay/analysis/analyzer.hpp>

#include <array>
#include <algorithm>
#include <bit>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <variant>
#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include "analysis/capture_copy.hpp"
#include "analysis/first_segment.hpp"
#include "analysis/flow_table.hpp"
#include "analysis/stable_queue.hpp"
#include "analysis/inference.hpp"
#include "analysis/clock_steps.hpp"
#include <replay/analysis/thresholds.hpp>
#include "analysis/sender_model.hpp"

namespace replay {

namespace {
// One reading of a connection: its senders modelled against one profile.
// A direction's model is created when that side first sends (or when the
// connection is finished, or its unheard segments reach
// limits::kUnheardKept): a connection of one SYN holds one model, not two.
struct Candidate {
  const Options* options;
  // Under --profile auto every reading has reports of its own (the best fit
  // is kept at the end); with one profile the models write the FlowReport's.
  std::unique_ptr<std::array<SenderReport, 2>> own;
  std::unique_ptr<SenderModel> model[2];
};

// A copy of one side's packet (RecentRing::take_copy), as its timeline
// row will show it once the connection is finished.
struct CopySeen {
  std::uint64_t frame, of;  // the copy, and the frame of the datagram's first capture
  CaptureTime time;          // on the model's clock (restored with the rest of the timeline)
  std::uint32_t seq, len;    // its SEQ (absolute) and the sequence space it covers
};

// What a connection holds while it can still receive segments; freed when
// it is finished (its report stays). What every segment reads comes first
// (the replay is bound by the cache lines a segment touches).
struct Live {
  // One per profile (--profile auto), else one, held in place (no pointer
  // to follow per segment).
  absl::InlinedVector<Candidate, 1> candidates;
  std::array<std::uint64_t, 2> seen{};  // segments per direction so far
  // The connection's first segment: its sender's models are created only at
  // the connection's second segment (or its end), so a connection of one
  // SYN holds none. `deferred` is that side (-1: none waits); the segment is
  // unheard[deferred].front(), `first_rate` what a new TsClock of its host
  // read right after observing it when it was captured (the one thing
  // on_send read then of state other connections change; the host's clock
  // and activity were fed then): SenderModel::replay_first_send.
  std::int8_t deferred = -1;
  bool over_limit = false;              // --max-outstanding reached: later segments are not analysed
  // unheard[d]: the segments side d sent while side 1 - d had no model yet,
  // in capture order; given to that model (on_peer) when it is created. A
  // model that has not sent is not started, and a model that is not started
  // only notes what the peer sent (no shared host state is read), so hearing
  // them later gives it the same state as hearing them at once.
  std::array<std::vector<Segment>, 2> unheard;
  std::array<RecentRing, 2> recent;     // last segments per direction (capture duplicates)
  // The client's latest SYN while it has sent nothing else (the handshake):
  // the SYN a second server's SYN-ACK answers (Impl::answered_syn).
  std::unique_ptr<Segment> client_syn;
  std::optional<double> first_rate;
  // The senders' reports the single-profile models write, created with the
  // connection's first model (or when it is finished).
  std::unique_ptr<std::array<SenderReport, 2>> senders;
  // Segments dropped as the same packet captured twice (FlowReport's).
  std::uint64_t capture_duplicates = 0;
  std::vector<std::uint64_t> duplicate_frames, duplicate_of;
  // With the timeline kept: each side's copies, for their rows
  // (merge_copy_rows), in capture order.
  std::array<std::vector<CopySeen>, 2> copies_seen;
};

// A connection's own fields (FlowReport's, without the file name and the
// senders) while it is live: a connection that has no sender model yet
// holds no SenderReport.
// Its FlowReport::id is its index + 1; its capture duplicates are counted
// in its Live (a first segment is never one).
struct FlowHead {
  Endpoint client, server;
  std::uint32_t file_index = 0;  // Segment::file_index (an index into the command line's files)
  std::uint32_t syn_isn = 0;     // FlowReport::syn_isn, when has_syn_isn
  bool has_syn_isn = false;
  bool saw_syn = false, saw_fin = false, saw_rst = false;
  bool has_selected_frame = false;  // FlowReport's (Options::frames)
  std::uint64_t packets = 0, first_frame = 0, last_frame = 0;
  CaptureTime first_time{}, last_time{};
};

// Live::client_syn after the client's segment `s`.
void keep_client_syn(Live& live, const Segment& s) {
  if (!s.tcp.has(wire::kSyn) || s.tcp.has(wire::kAck)) {
    live.client_syn.reset();
  } else if (live.client_syn) {
    *live.client_syn = s;
  } else {
    live.client_syn = std::make_unique<Segment>(s);
  }
}

// What every segment kept (not a capture duplicate) tells its connection.
void note_segment(FlowHead& f, const Segment& s) {
  f.last_frame = s.frame;
  f.last_time = s.time;
  if (s.tcp.has(wire::kSyn)) f.saw_syn = true;
  if (s.tcp.has(wire::kFin)) f.saw_fin = true;
  if (s.tcp.has(wire::kRst)) f.saw_rst = true;
}

struct Connection {
  FlowHead head;  // while live (copied into its report when finished)
  FlowSlot slot;  // the flow table's split state (while it is in the table)
  lockstep::AttemptRef attempt = lockstep::kNoAttempt;  // its attempt in Impl::attempts
  // Where it stands: opened (no segment yet), its first segment only, live
  // (everything it holds after that), or finished (its report).
  std::variant<std::monostate, std::unique_ptr<FirstSegment>, std::unique_ptr<Live>, std::unique_ptr<FlowReport>>
      state;
  FirstSegment* first() const { return get<FirstSegment>(); }
  Live* live() const { return get<Live>(); }
  FlowReport* report() const { return get<FlowReport>(); }
  bool open() const { return first() || live(); }
  bool finished() const { return report() != nullptr; }

 private:
  template <class T>
  T* get() const {
    const auto* p = std::get_if<std::unique_ptr<T>>(&state);
    return p ? p->get() : nullptr;
  }
};
// 144: the FlowSlot's ISN of each side (8 bytes more than one ISN) is what
// tells a new connection or another host on a 4-tuple from a retransmission.
static_assert(sizeof(Connection) <= 144, "a connection record is kept for every open connection (2 M in 1 GB)");

// The senders' reports of a connection between `client` and `server`, empty.
std::unique_ptr<std::array<SenderReport, 2>> new_senders(const Endpoint& client, const Endpoint& server) {
  auto a = std::make_unique<std::array<SenderReport, 2>>();
  (*a)[0].src = client;
  (*a)[0].dst = server;
  (*a)[1].src = server;
  (*a)[1].dst = client;
  return a;
}

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

struct Analyzer::Impl final : FlowStore {
  Options options;
  std::vector<std::unique_ptr<Options>> profiles;  // the readings each connection is modelled under
  bool keep_timeline;
  FlowTable table;
  lockstep::AttemptCollector attempts;  // SYN times per connection, for the lockstep finding
  // By FlowReport::id - 1. A connection is finished (its models freed, its
  // report kept) when a new one takes its 4-tuple, when its input file
  // ends, when it cannot resume and the capture is past its last segment by
  // more than the idle split (FlowSlot::cannot_resume; any later segment on
  // its 4-tuple is a new connection then), else at the end.
  // A StableQueue: a connection stays where it is while later ones are
  // added (finish_connection holds references into it), with no doubling,
  // and an index is a shift and a mask (several per segment).
  // When the sink drops the reports it had (SinkMode::keep_reports false),
  // the front leaves: conns[0] is connection index `base`.
  StableQueue<Connection> conns;
  std::size_t base = 0;
  Connection& at(std::size_t idx) { return conns[idx - base]; }
  std::size_t total() const { return base + conns.size(); }
  std::map<std::array<std::uint8_t, 16>, std::unique_ptr<HostClock>> hosts;  // TSval rate per sending address
  std::map<std::array<std::uint8_t, 16>, std::unique_ptr<HostActivity>> activity;  // queue flushes per sending address
  HostActivity* activity_of(const Endpoint& e) {
    auto& a = activity[e.address.bytes];
    if (!a) a = std::make_unique<HostActivity>();
    return a.get();
  }
  Report report;
  HostClock* host(const Endpoint& e) {
    auto& h = hosts[e.address.bytes];
    if (!h) h = std::make_unique<HostClock>();
    return h.get();
  }
  // FlowStore: the table's view of connection `index` (live, so in conns).
  FlowEnds ends(std::size_t index) const override {
    const FlowHead& h = conns[index - base].head;
    return FlowEnds{h.file_index, &h.client, &h.server};
  }
  SeqSpan sent(std::size_t index, int side) override;
  std::optional<std::pair<CaptureTime, std::uint32_t>> last_tsval(std::size_t index, int side) override;
  // The virtual networks segments were seen on, interned (FlowTable's
  // VnetId): vnets[id]; id 0 is none. A capture holds a few.
  std::vector<VirtualNetwork> vnets{VirtualNetwork{}};
  absl::flat_hash_map<VirtualNetwork, VnetId> vnet_ids;
  VnetId last_vnet_id = 0;  // the previous segment's (consecutive segments mostly share one)
  VnetId vnet_of(const VirtualNetwork& v) {
    if (v.empty()) return 0;
    if (vnets[last_vnet_id] == v) return last_vnet_id;
    auto [it, made] = vnet_ids.try_emplace(v, static_cast<VnetId>(vnets.size()));
    if (made) vnets.push_back(v);
    return last_vnet_id = it->second;
  }
  // The connections opened alongside another of their 4-tuple that went on
  // (FlowMatch::alongside), by index: what their report says of it.
  absl::flat_hash_map<std::size_t, AlongsideOf> alongside;
  // The side (dir 0: client) of connection `c` that the table calls `side`
  // (0: the lower endpoint).
  static int dir_of_side(const Connection& c, int side) {
    return (side == 0) == (c.head.client <= c.head.server) ? 0 : 1;
  }
  // `s` is a copy of a packet of another connection of its 4-tuple, on
  // another virtual network (FlowMatch::other_vnet): counted there, and its
  // virtual network becomes one of that connection's.
  bool copy_elsewhere(const Segment& s, VnetId vnet);
  /// Counts `s`, sent by side `dir` of live connection `c`, as a copy of
  /// frame `of` (its datagram's first capture): a packet of the connection,
  /// not a segment its senders sent.
  void count_copy(Connection& c, const Segment& s, int dir, std::uint64_t of);
  FlowSlot& slot(std::size_t index) override { return at(index).slot; }
  bool gap_known(std::size_t file, CaptureTime a, CaptureTime b) const override {
    return file >= clocks.size() || !clocks[file] || !clocks[file]->spans(a, b);
  }
  Impl(Options o, bool keep) : options(std::move(o)), keep_timeline(keep), table(options.idle_split, *this) {
    if (options.auto_profile) {
      for (const StackProfile& p : all_profiles()) {
        auto po = std::make_unique<Options>(options.with_profile(p));
        try {
          po->config.validate();
        } catch (const rto::ConfigError&) {
          continue;  // the user's overrides do not fit this stack
        }
        profiles.push_back(std::move(po));
      }
    } else {
      profiles.push_back(std::make_unique<Options>(options));
    }
  }
  // Per input file (by index): where its capture clock stepped back and the
  // model's clock was re-based (clock_steps.hpp).
  std::vector<std::unique_ptr<ClockSteps>> clocks;
  ClockSteps& clock_of(std::size_t file) {
    if (clocks.size() <= file) clocks.resize(file + 1);
    if (!clocks[file]) clocks[file] = std::make_unique<ClockSteps>();
    return *clocks[file];
  }
  /// A new connection, whose first segment is `s` on `vnet`, placed by the
  /// table as `where` says for `opener` (`s` itself, or the second server's
  /// SYN-ACK when `s` is the SYN it answers).
  std::size_t open_connection(const Segment& s, VnetId vnet, const FlowMatch& where, const Segment& opener);
  // Connections that could not resume when they got a segment
  // (FlowSlot::cannot_resume), with that segment's time, in capture order:
  // each is finished once the capture is more than the idle split past its
  // latest segment (FlowTable::over), so that its models are freed and its
  // report written while the input is still read. Only a connection's latest
  // entry counts; the others are dropped as they come up.
  std::deque<std::pair<CaptureTime, std::size_t>> quiet;
  // The input file the segments come from (they come file by file): a
  // connection of an earlier file can get no more segments (FlowKey has the
  // file), so every open one is finished when the next file begins.
  std::size_t current_file = 0;
  /// Finishes the connections of `quiet` that are over at `now`.
  void finish_quiet(CaptureTime now);
  /// Finishes every open connection (those of the files before a new one).
  void finish_open();
  void finish_connection(Connection& c, std::size_t idx);
  /// The report side `d` of candidate `cand` of `c` writes.
  static SenderReport& out(Connection& c, Candidate& cand, int d) {
    return cand.own ? (*cand.own)[d] : (*c.live()->senders)[d];
  }
  /// Creates the model of side `d` of candidate `i` of `c` (if it has none):
  /// it hears first what the peer sent so far (Live::unheard).
  void ensure_model(Connection& c, std::size_t i, int d);
  /// Keeps `s`, sent by side `dir`, for the peer's models while they do not
  /// exist (true), or false when they exist or limits::kUnheardKept
  /// segments are kept already (the caller creates them and gives them `s`).
  static bool hold_for_peer(Live& live, const Segment& s, int dir);
  /// The connection's first segment `s`, sent by side `dir`: kept (for its
  /// sender's models and the peer's), and what its on_send would have done
  /// to the host's TSval clock and activity done now (Live::deferred).
  void defer_first_send(Connection& c, const Segment& s, int dir);
  /// Creates the models Live::deferred waits for (each replays the first segment).
  void create_deferred(Connection& c);
  /// Keeps `s`, the connection's first segment, sent by side `dir`, as a
  /// FirstSegment (with what defer_first_send() does, when its sender's
  /// models are to wait for it).
  void keep_first(Connection& c, const Segment& s, int dir, bool defer);
  /// Gives `c` its Live (nothing when it has one): from c.first, the Live it
  /// stands for (its segment counted, in the recent ring, and when deferred
  /// kept for its models as defer_first_send() left it), else a new one.
  void make_live(Connection& c);
  void add_model(const Segment& s);  // `s` on the model's clock
  /// `s` is connection `idx`'s (after the table placed it); `shared`: it is
  /// also another connection's (the SYN a second server answered).
  void add_to(std::size_t idx, const Segment& s, bool shared);
  /// The client's SYN (in connection `other`) that `synack`, another
  /// server's, answers (SEQ + 1 = its ACK), if still kept.
  std::optional<Segment> answered_syn(std::size_t other, const Segment& synack);
  void restore_capture_times(FlowReport& f) const;
  // The flow sink (set_flow_sink), the origin it is given, and the next
  // connection (index into conns) it has not had yet.
  FlowSink sink;
  SinkMode mode;
  std::optional<CaptureTime> origin;
  std::vector<std::optional<CaptureTime>> file_origins;  // by file_index (set_file_origin)
  std::size_t next_sunk = 0;
  // Gives the sink the finished connections it can have, in order; drops
  // each one it had unless the reports are kept.
  void drain() {
    if (!sink || !origin) return;
    while (next_sunk < total() && at(next_sunk).finished()) {
      const FlowReport& f = *at(next_sunk).report();
      const bool own = f.file_index < file_origins.size() && file_origins[f.file_index];
      sink(*at(next_sunk).report(), own ? *file_origins[f.file_index] : *origin);
      ++next_sunk;
      if (mode.keep_reports) continue;
      report.streamed.add(*conns.front().report());
      conns.pop_front();
      ++base;
    }
  }
};

namespace {
// How well a reading explains a sender: fewer departures first, then fewer
// settings and notes, then the closer predictions.
std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::int64_t> score(const SenderReport& s) {
  std::uint64_t must = 0, should = 0, notes = 0;
  for (const auto& f : s.findings) {
    if (f.level == Level::must) ++must;
    else if (f.level == Level::should) ++should;
    else if (f.outcome == Outcome::cannot_tell || f.topic == Topic::setting) ++notes;
  }
  std::uint64_t off = 0;
  std::int64_t err = 0;
  for (const auto& t : s.timeouts) {
    if (t.verdict != Verdict::ok && t.verdict != Verdict::unchecked) ++off;
    // How far the wait lies from the prediction (0 when they meet), in ms.
    if (t.wait_unknown || !t.predicted.bounded()) continue;
    const auto d = t.wait.hi < t.predicted.lo ? t.predicted.lo - t.wait.hi
                   : t.wait.lo > t.predicted.hi ? t.wait.lo - t.predicted.hi
                                                : std::chrono::microseconds{0};
    err += d.count() / 1000;
  }
  return {must, should, notes, off, err};
}
}  // namespace

Analyzer::Analyzer(Options options, bool keep_timeline)
    : impl_(std::make_unique<Impl>(std::move(options), keep_timeline)) {
  impl_->options.config.validate();
  impl_->report.options = impl_->options;
}

Analyzer::~Analyzer() = default;

void Analyzer::add_file(std::size_t file_index, const std::string& name) {
  auto& files = impl_->report.files;
  if (files.size() <= file_index) files.resize(file_index + 1);
  files[file_index] = name;
}

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
    f.has_syn_isn = true;
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
      of = live.recent[dir].take_copy(s, live.seen[1 - dir], digest);
    }
    if (!of) continue;
    // Counted where the datagram was first seen (as a copy in the same
    // virtual network is), and its virtual network is now one of that
    // connection's: its next segments there are that connection's too.
    const bool was_first = c.first() != nullptr;
    make_live(c);
    Live& live = *c.live();
    if (was_first) live.recent[dir].take_copy(s, 0, digest);  // its one kept segment: the latest capture now `s`'s
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
  cand.model[d]->set_clock_steps(&clock_of(c.head.file_index));
  // The first segment of the connection, if this side sent it and its
  // models waited (it comes before anything the peer sent).
  if (live.deferred == d) cand.model[d]->replay_first_send(live.unheard[d].front(), live.first_rate);
  for (const Segment& p : live.unheard[1 - d]) cand.model[d]->on_peer(p);
}

void Analyzer::Impl::keep_first(Connection& c, const Segment& s, int dir, bool defer) {
  auto f = std::make_unique<FirstSegment>(s, dir);
  f->defer = defer;
  c.state = std::move(f);
  if (defer) defer_first_send(c, s, dir);
}

void Analyzer::Impl::make_live(Connection& c) {
  if (c.live()) return;
  auto made = std::make_unique<Live>();
  Live& live = *made;
  if (options.model_senders) live.candidates.reserve(profiles.size());
  for (const auto& po : profiles) {
    if (!options.model_senders) break;  // connections only (flows): no candidate
    live.candidates.push_back(Candidate{po.get(), nullptr, {}});
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
  if (f.defer) {
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

bool Analyzer::Impl::hold_for_peer(Live& live, const Segment& s, int dir) {
  // Every candidate creates a side's model at the same segment.
  if (live.candidates.front().model[1 - dir] || live.unheard[dir].size() >= limits::kUnheardKept) return false;
  live.unheard[dir].push_back(s);
  return true;
}

void Analyzer::Impl::finish_connection(Connection& c, std::size_t idx) {
  if (!c.open()) return;
  make_live(c);
  Live& live = *c.live();
  auto& candidates = live.candidates;
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
      if (score(out(c, candidates[i], d)) < score(out(c, candidates[best], d))) best = i;
    std::vector<std::string_view> ties;  // other profiles that fit as well
    for (std::size_t i = 0; i < candidates.size(); ++i)
      if (i != best && score(out(c, candidates[i], d)) == score(out(c, candidates[best], d)))
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
  const FlowHead& h = c.head;
  f.id = idx + 1;
  f.file_index = h.file_index;
  if (h.file_index < report.files.size()) f.file = report.files[h.file_index];
  f.client = h.client;
  f.server = h.server;
  f.packets = h.packets;
  f.first_frame = h.first_frame;
  f.last_frame = h.last_frame;
  f.first_time = h.first_time;
  f.last_time = h.last_time;
  f.saw_syn = h.saw_syn;
  f.saw_fin = h.saw_fin;
  f.saw_rst = h.saw_rst;
  f.has_selected_frame = h.has_selected_frame;
  if (h.has_syn_isn) f.syn_isn = h.syn_isn;
  f.capture_duplicates = live.capture_duplicates;
  f.duplicate_frames = std::move(live.duplicate_frames);
  f.duplicate_of = std::move(live.duplicate_of);
  f.senders = std::move(senders);
  c.state = std::move(made);  // the Live (its models) goes
  restore_capture_times(f);  // the frames' own times again, before the flow sink sees it
  if (report.file_totals.size() <= f.file_index) report.file_totals.resize(f.file_index + 1);
  report.file_totals[f.file_index].add(f);
  drain();
}

void Analyzer::add(const Segment& s) {
  // The model works on a monotonic clock: the frames after a step of the
  // capture clock are re-based (Segment::rebase); the report prints each
  // frame's own time again (restore_capture_times).
  ClockSteps& clock = impl_->clock_of(s.file_index);
  if (s.rebase.count() == 0) {
    clock.observe(s, s.time);
    impl_->add_model(s);
    return;
  }
  Segment r = s;
  r.time = model_time(s);
  clock.observe(s, r.time);
  impl_->add_model(r);
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
      if (m.report.dropped_segments++ == 0)
        m.report.limit_hits.push_back(fmt::format(
            "{}: frame {}: connection {} ({} -> {}) is beyond --max-flows {}: its segments and those of every "
            "later new connection are not analysed",
            s.file_index < m.report.files.size() ? m.report.files[s.file_index] : std::string("?"), s.frame,
            m.total() + 1, to_string(s.src), to_string(s.dst), m.options.max_flows));
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
  if (c.finished() || (c.live() && c.live()->over_limit)) {
    ++m.report.dropped_segments;
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
  m.make_live(c);
  Live& live = *c.live();
  ++f.packets;
  const std::uint64_t peer_count = live.seen[1 - dir];
  ++live.seen[dir];
  RecentRing& ring = live.recent[dir];
  const std::uint32_t digest = header_digest(s);
  if (const std::optional<std::uint64_t> of = ring.take_copy(s, peer_count, digest)) {
    m.count_copy(c, s, dir, *of);
    return;
  }
  ring.push(s, peer_count, digest);
  if (dir == 0) keep_client_syn(live, s);
  note_segment(f, s);
  if (!shared) m.attempts.add(s, idx, f.client, f.server, c.attempt);
  // In the order of the models' shared effects (host clock, host activity):
  // per candidate the peer's model, then the sender's.
  if (live.candidates.empty()) return;  // connections only (flows): no sender model
  m.create_deferred(c);
  const bool held = Impl::hold_for_peer(live, s, dir);
  for (std::size_t i = 0; i < live.candidates.size(); ++i) {
    Candidate& cand = live.candidates[i];
    // (Once made, a model stays: the call to make one only when missing.)
    if (!held) {
      if (!cand.model[1 - dir]) m.ensure_model(c, i, 1 - dir);
      cand.model[1 - dir]->on_peer(s);
    }
    if (!cand.model[dir]) m.ensure_model(c, i, dir);
    cand.model[dir]->on_send(s);
  }
  for (int d = 0; d < 2; ++d)  // heard by every candidate's model of side d now
    if (!live.unheard[1 - d].empty() && live.candidates.front().model[d]) std::vector<Segment>().swap(live.unheard[1 - d]);
  for (Candidate& cand : live.candidates) {
    if (cand.model[dir]->outstanding() <= m.options.max_outstanding) continue;
    m.report.limit_hits.push_back(fmt::format(
        "{}: frame {}: connection {}: {} -> {} has more than --max-outstanding {} unacknowledged segments: "
        "the connection is analysed up to this frame only",
        s.file_index < m.report.files.size() ? m.report.files[s.file_index] : std::string(), s.frame, idx + 1,
        to_string(s.src), to_string(s.dst), m.options.max_outstanding));
    live.over_limit = true;
    break;
  }
}

void Analyzer::add_diagnostics(const std::vector<Diagnostic>& d) {
  Report& r = impl_->report;
  for (const Diagnostic& x : d) {
    if (r.diagnostics.size() < limits::kMaxDiagnostics) {
      r.diagnostics.push_back(x);
    } else if (x.skipped) {
      ++r.dropped_skipped;
    } else {
      ++r.dropped_warned;
    }
  }
}

void Analyzer::count_dropped_diagnostics(std::uint64_t skipped, std::uint64_t warned) {
  impl_->report.dropped_skipped += skipped;
  impl_->report.dropped_warned += warned;
}

void Analyzer::add_input(const InputFile& in) { impl_->report.inputs.push_back(in); }

void Analyzer::set_flow_sink(FlowSink sink, SinkMode mode) {
  impl_->sink = std::move(sink);
  impl_->mode = std::move(mode);
}

void Analyzer::set_file_origin(std::size_t file_index, CaptureTime origin) {
  Impl& m = *impl_;
  if (m.file_origins.size() <= file_index) m.file_origins.resize(file_index + 1);
  m.file_origins[file_index] = origin;
}

void Analyzer::set_origin(CaptureTime origin) {
  impl_->origin = origin;
  impl_->drain();
}

Report Analyzer::finish() {
  Impl& m = *impl_;
  // No input gave an origin: Report::first_time stays the earliest segment's.
  if (!m.origin && m.report.have_first_time) m.origin = m.report.first_time;
  // Every connection is finished (its models freed, and given to the sink
  // in order) before the reports move; each leaves the queue as its report
  // moves (or as the sink had it, when the reports are not kept).
  m.drain();  // the ones finished before the origin was known, or kept for finish()
  for (std::size_t idx = m.base, end = m.total(); idx < end; ++idx) {
    if (idx >= m.base) m.finish_connection(m.at(idx), idx);
    m.drain();
  }
  m.report.flows.reserve(m.report.flows.size() + m.conns.size());
  while (!m.conns.empty()) {
    m.report.flows.push_back(std::move(*m.conns.front().report()));
    m.conns.pop_front();
  }
  m.report.lockstep = m.attempts.groups();
  return std::move(m.report);
}

std::size_t Analyzer::connections() const { return impl_->total(); }

std::size_t Analyzer::timeouts_so_far() const {
  std::size_t n = impl_->report.streamed.timeouts;
  for (std::size_t i = 0; i < impl_->conns.size(); ++i)
    for (int d = 0; d < 2; ++d) {
      const Connection& c = impl_->conns[i];
      // While live, the first reading's report (its own under --profile auto).
      const Live* live = c.live();
      const Candidate* cand = live && !live->candidates.empty() ? &live->candidates.front() : nullptr;
      if (cand && cand->own)
        n += (*cand->own)[d].timeouts.size();
      else if (c.report())
        n += c.report()->senders[d].timeouts.size();
      else if (live && live->senders)
        n += (*live->senders)[d].timeouts.size();
    }
  return n;
}

std::vector<const InputFile*> unusable_inputs(const Report& r) {
  std::vector<const InputFile*> out;
  for (const auto& in : r.inputs)
    if (!in.usable()) out.push_back(&in);
  return out;
}

bool is_unusable_reason(const Report& r, const Diagnostic& d) {
  if (!d.skipped) return false;
  for (const auto& in : r.inputs)
    if (!in.usable() && in.name == d.file && in.error == to_string(d)) return true;
  return false;
}

InputCounts input_counts(const Report& r) {
  InputCounts c;
  c.skipped = r.dropped_skipped;
  c.warned = r.dropped_warned;
  for (const auto& d : r.diagnostics) {
    if (!d.skipped)
      ++c.warned;
    else if (!is_unusable_reason(r, d))
      ++c.skipped;
  }
  for (const auto& in : r.inputs) c.unusable += in.usable() ? 0 : 1;
  return c;
}

std::optional<std::string> empty_input_note(const Report& r) {
  if (r.flow_count() != 0 || r.inputs.empty()) return std::nullopt;
  bool any_usable = false;
  for (const auto& in : r.inputs) any_usable = any_usable || in.usable();
  if (!any_usable) return std::nullopt;  // the unusable files say it all
  if (!r.options.filter.empty()) return "no TCP segment matched the filter \"" + r.options.filter + "\"";
  return std::string("no TCP segment in the input");
}

}  // namespace replay
