// StreamCounter's table of address pairs: Wireshark's tcp.stream numbering
// needs the latest connection of every pair ever seen (a SYN again with its
// ISN is the same stream; a connection without a SYN continues the pair's).
// The pairs are kept in order in a deque (64 bytes each, never moved) and
// found through a flat hash set of their indices (about 10 bytes each):
// finding a new pair touches one group of the set, not a chain of nodes
// (std::unordered_map took 2-3 cache misses and 104 bytes a pair).
#include <replay/report/wireshark_ref.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string_view>

#include <absl/container/flat_hash_set.h>

namespace replay {

namespace {

// A connection's address pair in its file: (file, lower, higher endpoint).
struct PairKey {
  std::size_t file;
  Endpoint lo, hi;
  friend bool operator==(const PairKey&, const PairKey&) = default;
};

std::size_t hash_of(const PairKey& k) {
  // The key's bytes (file, both addresses with their versions and ports)
  // through std::hash of a string_view: no padding read, nothing allocated.
  std::array<unsigned char, sizeof(std::uint64_t) + 2 * 19> b{};
  std::size_t n = 0;
  const auto put = [&](const void* p, std::size_t len) {
    std::memcpy(b.data() + n, p, len);
    n += len;
  };
  const std::uint64_t file = k.file;
  put(&file, sizeof file);
  for (const Endpoint* e : {&k.lo, &k.hi}) {
    put(e->address.bytes.data(), e->address.bytes.size());
    put(&e->address.version, 1);
    put(&e->port, 2);
  }
  return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(b.data()), n));
}

struct Pair {
  PairKey key;
  std::optional<std::uint32_t> isn;  // the SYN ISN of the latest connection on the pair
  std::uint64_t stream = 0;          // and its stream
};

}  // namespace

struct StreamCounter::Pairs {
  struct Hash {
    using is_transparent = void;
    const std::deque<Pair>* pairs;
    std::size_t operator()(std::uint32_t i) const { return hash_of((*pairs)[i].key); }
    std::size_t operator()(const PairKey& k) const { return hash_of(k); }
  };
  struct Eq {
    using is_transparent = void;
    const std::deque<Pair>* pairs;
    bool operator()(std::uint32_t a, std::uint32_t b) const { return a == b; }
    bool operator()(std::uint32_t a, const PairKey& k) const { return (*pairs)[a].key == k; }
    bool operator()(const PairKey& k, std::uint32_t a) const { return (*pairs)[a].key == k; }
  };

  Pairs() : index(0, Hash{&pairs}, Eq{&pairs}) {}
  Pairs(const Pairs& o) : pairs(o.pairs), index(0, Hash{&pairs}, Eq{&pairs}) {
    index.reserve(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) index.insert(static_cast<std::uint32_t>(i));
  }
  Pairs& operator=(const Pairs&) = delete;

  // The pair of `k`, added (isn empty, stream 0) if new; whether it was.
  std::pair<Pair*, bool> find_or_add(const PairKey& k) {
    if (const auto it = index.find(k); it != index.end()) return {&pairs[*it], false};
    // An index per pair: 4 billion pairs would hold 256 GB of them first.
    if (pairs.size() > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("tcp.stream numbering: more than 2^32 address pairs");
    pairs.push_back(Pair{k, std::nullopt, 0});
    index.insert(static_cast<std::uint32_t>(pairs.size() - 1));
    return {&pairs.back(), true};
  }

  std::deque<Pair> pairs;  // never moved: the index's functions point here
  absl::flat_hash_set<std::uint32_t, Hash, Eq> index;
};

StreamCounter::StreamCounter(bool known) : known_(known), pairs_(std::make_unique<Pairs>()) {}
StreamCounter::StreamCounter(const StreamCounter& o)
    : known_(o.known_), next_(o.next_), pairs_(std::make_unique<Pairs>(*o.pairs_)) {}
StreamCounter::StreamCounter(StreamCounter&&) noexcept = default;
StreamCounter& StreamCounter::operator=(StreamCounter o) noexcept {
  std::swap(known_, o.known_);
  std::swap(next_, o.next_);
  std::swap(pairs_, o.pairs_);
  return *this;
}
StreamCounter::~StreamCounter() = default;

std::optional<std::uint64_t> StreamCounter::next(const FlowReport& f) {
  if (!known_) return std::nullopt;
  const auto [pair, added] =
      pairs_->find_or_add(PairKey{f.file_index, std::min(f.client, f.server), std::max(f.client, f.server)});
  // The same SYN again: Wireshark's same stream. So is a connection that did
  // not begin with a SYN (one over after an idle gap, FlowSlot::cannot_resume):
  // Wireshark starts a stream only at a SYN.
  if (!added && (!f.syn_isn || pair->isn == f.syn_isn)) return pair->stream;
  pair->isn = f.syn_isn;
  pair->stream = next_[f.file_index]++;
  return pair->stream;
}

}  // namespace replay
