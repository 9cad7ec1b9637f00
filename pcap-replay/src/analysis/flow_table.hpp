#pragma once
// Connections by 4-tuple (addresses and ports, never the IPv6 flow label,
// which Linux changes at every RTO), per input file, split anew on a SYN
// after FIN/RST, on a SYN with another ISN, or after a long idle gap.
// One hashed lookup per segment (FlowTable::lookup). The table holds only
// each connection's index (8 bytes in an open-addressing set, Abseil's
// flat_hash_set): the 4-tuple and the split state are in the caller's
// connection record (FlowStore), not copied into a node per connection.

#include <chrono>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <absl/container/flat_hash_set.h>

#include <replay/segment.hpp>

namespace replay {

/// A 4-tuple within one input file, in either order: what the table hashes
/// and compares. The endpoints are the caller's (a segment's, or a
/// connection record's), not copied.
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

/// What the table needs to remember of the current connection on a 4-tuple
/// (for its split rules), kept by the caller with the connection.
struct FlowSlot {
  CaptureTime last_time{};       ///< its latest segment (any, also one not analysed)
  std::uint32_t syn_isn = 0;     ///< ISN of the first pure SYN (when has_syn_isn)
  bool has_syn_isn : 1 = false;
  bool syn_from_lo : 1 = false;  ///< that SYN came from the lower endpoint (Endpoint's order)
  bool closed : 1 = false;       ///< FIN or RST seen (a pure SYN after it is port reuse)
  bool fin_from_lo : 1 = false;  ///< FIN seen from the lower endpoint
  bool fin_from_hi : 1 = false;  ///< FIN seen from the higher endpoint
  bool rst : 1 = false;          ///< RST seen
  bool syn_only : 1 = true;      ///< every segment so far a pure SYN (an attempt nothing answered)
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

 protected:
  ~FlowStore() = default;
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

  /// The index of the connection `s` belongs to (its slot then updated with
  /// `s`: time, FIN/RST, SYN ISN), or nullopt when `s` opens a new
  /// connection: the first segment of the 4-tuple; a pure SYN after FIN/RST,
  /// with a new ISN or after an idle gap longer than the idle split; any
  /// segment after such a gap when the connection cannot resume
  /// (FlowSlot::cannot_resume); any segment after retire(). Then call open()
  /// with the new connection's index. One hash lookup.
  std::optional<std::size_t> lookup(const Segment& s);
  /// The connection of `s`'s 4-tuple as it is (no update, no split rule), or nullopt.
  std::optional<std::size_t> find(const Segment& s) const;
  /// Registers connection `index` (whose 4-tuple the store already gives) as the
  /// current one for `s`'s 4-tuple, in place of any other; its slot is reset
  /// and updated with `s`.
  void open(const Segment& s, std::size_t index);
  /// The caller finished connection `index` (still in the store): it leaves
  /// the table (nothing if another connection has its 4-tuple since).
  void retire(std::size_t index);
  /// Connections currently in the table.
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
  /// `s` updates `f` (time, FIN/RST, SYN ISN).
  static void update(FlowSlot& f, const Segment& s);
  std::chrono::microseconds idle_split_;
  FlowStore* store_;
  absl::flat_hash_set<std::size_t, Hash, Eq> set_;
};

}  // namespace replay
