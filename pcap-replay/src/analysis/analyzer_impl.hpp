#pragma once
// Analyzer::Impl: the connections of a capture and what they share (the
// flow table, the hosts' TSval clocks and activity, the clock steps of each
// file, the lockstep attempts), and the jobs the Analyzer's files divide:
//   segment_routing.cpp       each segment to its connection and its models (the hot path)
//   connection_lifecycle.cpp  a connection opened, made live, finished into its report
//   connection_copies.cpp     the same datagram captured again, and the table's view of kept segments
//   reading_score.cpp         which profile's reading explains a sender best (--profile auto)
//   analyzer.cpp              the public Analyzer over them

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include <replay/analysis/analyzer.hpp>
#include <replay/analysis/rtt_sampling.hpp>
#include <replay/analysis/thresholds.hpp>

#include "analysis/clock_steps.hpp"
#include "analysis/connection_record.hpp"
#include "analysis/host_activity.hpp"
#include "analysis/stable_queue.hpp"

namespace replay {

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
  bool beyond_max_flows = false;  // a connection was beyond --max-flows (said once)
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
  static bool hold_for_peer(Live& live, const Segment& s, int dir) {
    // Every candidate creates a side's model at the same segment.
    if (live.candidates.front().model[1 - dir] || live.unheard[dir].size() >= limits::kUnheardKept) return false;
    live.unheard[dir].push_back(s);
    return true;
  }
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
  void make_live(Connection& c, std::size_t idx);
  void add_model(const Segment& s);  // `s` on the model's clock
  /// `s` is connection `idx`'s (after the table placed it); `shared`: it is
  /// also another connection's (the SYN a second server answered).
  void add_to(std::size_t idx, const Segment& s, bool shared);
  /// Whether `s`, sent by side `dir`, may be a second transmission where the
  /// copy test would see a copy (capture_copy's Answerable).
  static Answerable answerable(const Live& live, const Segment& s, int dir);
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
      if (!conns.front().report()->elsewhere) report.streamed.add(*conns.front().report());
      conns.pop_front();
      ++base;
    }
  }
};

}  // namespace replay
