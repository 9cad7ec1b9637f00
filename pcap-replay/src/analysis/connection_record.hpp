#pragma once
// What the Analyzer keeps of each connection of the capture: its record
// (Connection: the FlowHead, the flow table's slot, and where it stands),
// and while it is live, its readings (a Candidate per profile) with their
// sender models and what the capture-copy detection keeps (Live).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include <absl/container/inlined_vector.h>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/lockstep.hpp>
#include <replay/analysis/options.hpp>

#include "analysis/capture_copy.hpp"
#include "analysis/first_segment.hpp"
#include "analysis/flow_table.hpp"
#include "analysis/sender_model.hpp"

namespace replay {

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

// A connection another shard judges (Options::shard): each side's feed of
// its host's shared state (the TSval clock, the activity), what that side's
// sender models would do to it, without the models (engine::HostFeed).
struct HostFeeds {
  std::array<engine::HostFeed, 2> side;  // by direction, as the models
  std::array<HostActivity*, 2> activity;  // each side's host's
  const ClockSteps* clock;                // the connection's input's steps
  engine::FeedContext context(int d) const { return engine::FeedContext{activity[d], clock}; }
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
  // --max-outstanding reached: its later segments are not analysed (each
  // counted as dropped), but they are routed and fed to its models, now
  // SenderModel::feed_only, as any segment: what other connections read
  // (the table's view, the hosts' clocks and activity, lockstep) never
  // depends on a limit of this one's analysis.
  bool over_limit = false;
  // Another shard analyses it (Options::owns): it has no candidates, no
  // sender models and no unheard segments, only `feeds`, and its report has
  // its connection fields only.
  bool elsewhere = false;
  // unheard[d]: the segments side d sent while side 1 - d had no model yet,
  // in capture order; given to that model (on_peer) when it is created. A
  // model that has not sent is not started, and a model that is not started
  // only notes what the peer sent (no shared host state is read), so hearing
  // them later gives it the same state as hearing them at once.
  std::array<std::vector<Segment>, 2> unheard;
  // elsewhere: its hosts' shared state fed as its models would (both sides
  // from its second segment on; its first replayed then, as a deferred
  // model replays it: replay_first_send, on_peer).
  std::unique_ptr<HostFeeds> feeds;
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

// A connection's FlowHead is its own while it is live (a connection that
// has no sender model yet holds no SenderReport); its FlowReport::id is its
// index + 1; its capture duplicates are counted in its Live (a first segment
// is never one).

// Live::client_syn after the client's segment `s`.
inline void keep_client_syn(Live& live, const Segment& s) {
  if (!s.tcp.has(wire::kSyn) || s.tcp.has(wire::kAck)) {
    live.client_syn.reset();
  } else if (live.client_syn) {
    *live.client_syn = s;
  } else {
    live.client_syn = std::make_unique<Segment>(s);
  }
}

// What every segment kept (not a capture duplicate) tells its connection.
inline void note_segment(FlowHead& f, const Segment& s) {
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
std::unique_ptr<std::array<SenderReport, 2>> new_senders(const Endpoint& client, const Endpoint& server);

}  // namespace replay
