#pragma once
// Connections as the wire shows them: by 4-tuple (addresses and ports,
// never the IPv6 flow label, which Linux changes at every RTO), per input
// file, and by the virtual network each side's packets travelled on (VLAN
// ids and tunnel network ids: VirtualNetwork, segment.hpp), and by sequence
// space when one 4-tuple carries two connections at once (a second server
// host behind the address answering one SYN with another ISN; a client host
// reusing the port while its old connection goes on).
//
// Rules, in the order lookup() applies them:
//  - Virtual network. A connection is seen on the virtual networks its
//    sides' packets travelled on: each side binds the one of its first
//    segment (the two may differ: one direction tagged, the other not; each
//    on its own VLAN), and a copy of one of its packets seen elsewhere adds
//    that one (the analyzer's capture-copy test, across connections). A
//    segment on another virtual network than every connection of its
//    4-tuple is another conversation (the same 4-tuple on VLAN 10 and 20),
//    unless its side has not sent yet and it acknowledges what the peer
//    sent (limits::kJoinAckSlack), or it is a SYN with the connection's ISN.
//  - Split. A pure SYN after FIN/RST or after an idle gap longer than the
//    idle split, or any segment after such a gap when the connection cannot
//    resume (FlowSlot::cannot_resume), opens a new connection in place of
//    the old one. So does a SYN with another ISN than its side's (Wireshark's
//    base sequence number: its SYN's or SYN-ACK's SEQ, else one before its
//    first segment's SEQ, else one before the peer's first ACK) after an
//    attempt nothing answered. A SYN-ACK with another ISN than an earlier
//    SYN-ACK of its side, and a SYN with another ISN from another TSval clock
//    than its side's (limits::kMaxTsvalHz), open a new connection alongside
//    the old one, which goes on: another host behind the same address. A
//    SYN with another ISN on the same clock ends the old connection (its
//    host began another).
//  - Sequence space. Between connections of one 4-tuple on one virtual
//    network a segment goes to the one whose sent sequence numbers its SEQ
//    and ACK are nearest (ties: the oldest).
// One hashed lookup per segment (FlowTable::lookup). The table holds only
// each connection's index (8 bytes in an open-addressing set, Abseil's
// flat_hash_set), one per 4-tuple: the 4-tuple and the split state are in
// the caller's connection record (FlowStore), not copied into a node per
// connection; a 4-tuple with more than one connection, or a connection seen
// on more than one virtual network (rare), has a side record (a ring of its
// connections, their virtual networks and sequence spans).

#include <array>
#include <chrono>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>

#include <replay/input/segment.hpp>

namespace replay {

/// A VirtualNetwork interned by the caller (VnetTable): 0 is none.
using VnetId = std::uint32_t;

/// A 4-tuple within one input file, in either order: what the table hashes
/// and compares (the connections of a 4-tuple on every virtual network share
/// one entry). The endpoints are the caller's (a segment's, or a connection
/// record's), not copied.
struct FlowEnds {
  std::size_t file_index = 0;
  const Endpoint* a = nullptr;
  const Endpoint* b = nullptr;
};

/// A hash of a 4-tuple that does not depend on the order of its endpoints
/// (a segment and its reply hash alike; no ordering of the endpoints per
/// segment): every address byte, port, family and the file go in.
std::uint64_t flow_hash(const FlowEnds& e);
/// Whether `x` and `y` are the same 4-tuple of the same file, in either order.
bool same_flow(const FlowEnds& x, const FlowEnds& y);

/// Sequence numbers one side of a connection sent: from `lo` to `end` (one
/// past the last, SYN and FIN counted), modulo 2^32.
struct SeqSpan {
  std::uint32_t lo = 0, end = 0;
  bool known = false;
  /// Extends the span by a segment [seq, seg_end): its end when ahead of
  /// `end`, its start when behind `lo` (less than 2^31 apart).
  void add(std::uint32_t seq, std::uint32_t seg_end);
  /// How far `v` is from the span: 0 inside [lo, end], else the distance to
  /// the nearer edge modulo 2^32.
  std::uint32_t distance(std::uint32_t v) const;
};

/// Whether a TSval `v1` at `t1` cannot come from the clock that gave `v0` at
/// `t0` (t0 <= t1): it is lower, or higher by more than limits::kMaxTsvalHz
/// ticks a second over the time between them plus one tick.
bool another_tsval_clock(CaptureTime t0, std::uint32_t v0, CaptureTime t1, std::uint32_t v1);

/// What the table needs to remember of a connection (for its split rules),
/// kept by the caller with the connection. Sides: 0 the lower endpoint
/// (Endpoint's order), 1 the higher.
struct FlowSlot {
  CaptureTime last_time{};        ///< its latest segment (any, also one not analysed)
  std::array<std::uint32_t, 2> isn{};  ///< per side, its ISN (Wireshark's base SEQ) when isn_known
  VnetId vnet = 0;                ///< its own virtual network: its first segment's (others: FlowTable's groups)
  std::uint8_t isn_known = 0;     ///< bit per side (1 << side)
  std::uint8_t isn_from_syn = 0;  ///< bit per side: the ISN is the SEQ of its SYN or SYN-ACK
  std::uint8_t sent = 0;          ///< bit per side: that side has sent
  bool closed : 1 = false;        ///< FIN or RST seen (a pure SYN after it is port reuse)
  bool fin_from_lo : 1 = false;   ///< FIN seen from the lower endpoint
  bool fin_from_hi : 1 = false;   ///< FIN seen from the higher endpoint
  bool rst : 1 = false;           ///< RST seen
  bool syn_only : 1 = true;       ///< every segment so far a pure SYN (an attempt nothing answered)
  bool grouped : 1 = false;       ///< it has a side record in the table (FlowTable's groups)
  /// Whether the connection cannot resume: reset, closed by a FIN from each
  /// side, or never answered (only pure SYNs). After an idle gap longer than
  /// the idle split (and no step of the capture clock in it: its length is
  /// then unknown) any segment on its 4-tuple opens a new connection.
  bool cannot_resume() const { return rst || (fin_from_lo && fin_from_hi) || syn_only; }
};

/// The caller's connections, by the index it gives them: their 4-tuple and
/// FlowSlot, valid as long as the index is in the table.
class FlowStore {
 public:
  /// Its 4-tuple (pointers into the connection record, valid while the
  /// connection is in the store).
  virtual FlowEnds ends(std::size_t index) const = 0;
  virtual FlowSlot& slot(std::size_t index) = 0;
  /// Whether the time between `a` and `b` in input file `file_index` is
  /// known: no step of its capture clock lies between them (clock_steps.hpp).
  virtual bool gap_known(std::size_t file_index, CaptureTime a, CaptureTime b) const = 0;
  /// What side `side` of connection `index` has sent, as far as the store
  /// keeps it (its recent segments); asked when the connection first shares
  /// its 4-tuple or another side joins it from another virtual network.
  virtual SeqSpan sent(std::size_t index, int side) = 0;
  /// The capture time and TSval of the latest segment side `side` of
  /// connection `index` sent with a TSval, as far as the store keeps it.
  virtual std::optional<std::pair<CaptureTime, std::uint32_t>> last_tsval(std::size_t index, int side) = 0;

 protected:
  ~FlowStore() = default;
};

/// Where lookup() puts a segment.
struct FlowMatch {
  enum class Place : std::uint8_t {
    first,       ///< a new connection, the first of its 4-tuple in the table
    belongs,     ///< connection `connection`'s
    replaces,    ///< a new connection; the split ends `connection` (the caller finishes it first)
    alongside,   ///< a new connection beside `connection`, which goes on: another host behind an address
    other_vnet,  ///< a new connection on a virtual network none of its 4-tuple's is on: they may
                 ///< hold the packet it copies (the caller looks first)
  };
  Place place = Place::first;
  std::size_t connection = 0;  ///< for belongs, replaces, alongside
  bool is(Place p) const { return place == p; }
};

/// Maps segments to connections.
class FlowTable {
 public:
  /// `idle_split`: Options::idle_split. `store` must outlive the table.
  FlowTable(std::chrono::microseconds idle_split, FlowStore& store);
  /// Whether connection `index` (in the table) can get no further segment
  /// once the capture's clock reads `now`: it cannot resume and has been idle
  /// longer than the idle split, so lookup() would open a new connection for
  /// any segment on its 4-tuple. It may then be finished at once; the report
  /// is the same as finishing it later.
  bool over(std::size_t index, CaptureTime now) const;

  /// Where `s`, seen on virtual network `vnet`, goes (the file header's
  /// rules); when it belongs to a connection, that connection's slot is
  /// updated with `s` (time, FIN/RST, ISNs) and its sequence span when it
  /// shares its 4-tuple. Otherwise call open() with the new connection's
  /// index (after finishing `replaces`, or after add_vnet() when `s` turns
  /// out to be a copy of a packet of another connection). One hash lookup.
  FlowMatch lookup(const Segment& s, VnetId vnet);
  /// The connections of `s`'s 4-tuple in the table (any virtual network), oldest first.
  std::vector<std::size_t> connections(const Segment& s) const;
  /// Registers connection `index` (whose 4-tuple and virtual network the
  /// store already gives) for `s`, seen on `vnet`, as lookup() placed it in
  /// `m`; its slot is reset and updated with `s`.
  void open(const Segment& s, VnetId vnet, std::size_t index, const FlowMatch& m);
  /// Connection `index` was also seen on `vnet` (a copy of its packet there).
  void add_vnet(std::size_t index, VnetId vnet);
  /// The virtual networks connection `index` was seen on, its own first.
  std::vector<VnetId> vnets(std::size_t index) const;
  /// Whether connection `index` shared its 4-tuple, while in the table, with
  /// a connection on another virtual network (Wireshark merges them by default).
  bool vnet_apart(std::size_t index) const;
  /// The caller finished connection `index` (still in the store): it leaves
  /// the table (nothing if it is not in it).
  void retire(std::size_t index);
  /// 4-tuples currently in the table.
  std::size_t size() const { return set_.size(); }

 private:
  // Hash and equality of indices through the store, and of FlowEnds (the
  // lookup key): an index hashes as its connection's 4-tuple.
  struct Hash {
    using is_transparent = void;
    const FlowStore* store;
    std::size_t operator()(std::size_t index) const { return flow_hash(store->ends(index)); }
    std::size_t operator()(const FlowEnds& k) const { return flow_hash(k); }
  };
  struct Eq {
    using is_transparent = void;
    const FlowStore* store;
    bool operator()(std::size_t a, std::size_t b) const { return a == b; }
    bool operator()(std::size_t a, const FlowEnds& k) const { return same_flow(store->ends(a), k); }
    bool operator()(const FlowEnds& k, std::size_t a) const { return same_flow(store->ends(a), k); }
  };
  // The side record of a connection that shares its 4-tuple with another,
  // or was seen on more than one virtual network.
  struct Group {
    std::size_t next = 0;                     // the next connection of its 4-tuple (a ring)
    absl::InlinedVector<VnetId, 2> vnets;     // its virtual networks besides its own
    std::array<SeqSpan, 2> span;              // per side, what that side sent in it
    bool vnet_apart = false;                  // see FlowTable::vnet_apart
  };
  /// Whether connection `c` is seen on `vnet`.
  bool on_vnet(std::size_t c, VnetId vnet) const;
  /// Whether `s`, sent by `side` on another virtual network, may join
  /// connection `c` (slot `f`) as that side's first segment (the file header's rule).
  bool may_join(std::size_t c, const FlowSlot& f, const Segment& s, int side);
  /// Which connection of the ring from `head` `s` (sent by `side`) on `vnet`
  /// belongs to, or nullopt.
  std::optional<std::size_t> choose(std::size_t head, const Segment& s, int side, VnetId vnet);
  /// The split rules for `s`, sent by `side`, on connection `c` (slot `f`):
  /// it, or a new connection.
  FlowMatch place(std::size_t c, FlowSlot& f, const Segment& s, int side);
  /// The side record of `c`, made (its spans from the store) when missing.
  Group& group(std::size_t c);
  /// `s`, sent by `side`, updates `f` (time, FIN/RST, ISNs) and, when `c` has
  /// a side record, its span.
  void update(std::size_t c, FlowSlot& f, const Segment& s, int side);
  /// `s`, sent by `side`, extends that side's span in `c`'s side record (a
  /// call apart: update() stays small enough to inline).
  [[gnu::noinline]] void add_span(std::size_t c, const Segment& s, int side);
  std::chrono::microseconds idle_split_;
  FlowStore* store_;
  absl::flat_hash_set<std::size_t, Hash, Eq> set_;  // one connection per 4-tuple (the ring's entry)
  // The entry lookup() found last and the 4-tuple it found it for (either
  // direction): a segment of the connection of the segment before (a burst,
  // most segments of a capture of few connections) skips the hash and the
  // probe. Forgotten when an entry leaves set_ (retire); an entry added
  // (open) is another 4-tuple's.
  struct LastEntry {
    bool valid = false;
    std::size_t file_index = 0;
    Endpoint a, b;
    std::size_t head = 0;
  };
  LastEntry last_;
  absl::flat_hash_map<std::size_t, Group> groups_;  // by connection index
};

}  // namespace replay
