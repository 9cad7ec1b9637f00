#include "analysis/capture_copy.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <memory>

#include <replay/analysis/thresholds.hpp>

namespace replay {

static_assert(sizeof(RecentSegment) == 64, "a kept segment is one cache line");

std::uint32_t RecentSegment::end() const {
  return seq + payload_len + ((flags & wire::kSyn) ? 1u : 0u) + ((flags & wire::kFin) ? 1u : 0u);
}

std::uint32_t header_digest(const Segment& s) {
  const auto rotl = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  const wire::TcpOptions& o = s.tcp.options;
  std::uint32_t h = s.tcp.seq ^ rotl(s.tcp.ack, 7) ^ rotl(s.payload_len, 13) ^ rotl(s.tcp.window, 21) ^
                    (std::uint32_t{s.tcp.flags} << 24) ^ o.sack_count ^ rotl(s.tcp.checksum, 3);
  if (o.tsval) h ^= rotl(*o.tsval, 17) ^ 0x9e3779b9u;
  return h;
}

void RecentRing::push(const Segment& s, std::uint64_t peers, std::uint32_t d) {
  // The newest kept segment's ID is held here, beside the digests: reading
  // it from `items` would load a line the push then only writes.
  if (!ids_repeat && s.ip_id && *s.ip_id != 0 && newest_ip_id && *newest_ip_id == *s.ip_id) ids_repeat = true;
  newest_ip_id = s.ip_id;
  std::size_t slot = next;
  if (items.size() < kRecentKept) {
    if (items.empty()) items.reserve(kRecentKept);  // one allocation, not four
    slot = items.size();
    items.emplace_back(s, peers);
  } else {
    std::construct_at(&items[next], s, peers);  // trivially destructible: built in place, not copied
    next = (next + 1) % kRecentKept;
  }
  digest[slot] = d;
  if (s.tcp.options.sack_count > 0) {
    if (!sack) sack = std::make_unique<std::array<SackBlocks, kRecentKept>>();
    (*sack)[slot] = s.tcp.options.sack;
  }
}

std::uint32_t RecentRing::matching(std::uint32_t d) const {
  std::uint32_t m = 0;
#if defined(__SSE2__)
  // Four digests per compare; the sign bit of each lane is its match.
  const __m128i key = _mm_set1_epi32(static_cast<int>(d));
  for (std::size_t i = 0; i < kRecentKept; i += 4) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(digest.data() + i));
    m |= static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, key)))) << i;
  }
#else
  for (std::size_t i = 0; i < kRecentKept; ++i) m |= static_cast<std::uint32_t>(digest[i] == d) << i;
#endif
  return m & ((std::uint32_t{1} << items.size()) - 1);
}

std::optional<std::uint64_t> RecentRing::take_copy(const Segment& s, std::uint64_t peer_count, std::uint32_t d,
                                                   Answerable answerable) {
  // The kept segments whose digest matches, in index order (one vector
  // compare for all the digests; a match is then compared in full).
  for (std::uint32_t match = matching(d); match != 0; match &= match - 1) {
    const auto i = static_cast<std::size_t>(__builtin_ctz(match));
    RecentSegment& a = items[i];
    if (capture_copy(a, a.sack_count > 0 ? sack_of(i).data() : nullptr, s, peer_count, ids_repeat, answerable)) {
      if (s.time > a.time) a.time = s.time;
      return a.frame;
    }
  }
  return std::nullopt;
}

namespace {
bool same_tcp_header(const RecentSegment& a, const wire::SackBlock* a_sack, const Segment& b) {
  if (a.seq != b.tcp.seq || a.ack != b.tcp.ack || a.flags != b.tcp.flags || a.window != b.tcp.window ||
      a.payload_len != b.payload_len || a.tcp_checksum != b.tcp.checksum || a.tsval_opt() != b.tcp.options.tsval ||
      a.tsecr_opt() != b.tcp.options.tsecr || a.sack_count != b.tcp.options.sack_count)
    return false;
  for (std::uint8_t i = 0; i < a.sack_count && i < b.tcp.options.sack.size(); ++i)
    if (a_sack[i].left != b.tcp.options.sack[i].left || a_sack[i].right != b.tcp.options.sack[i].right)
      return false;
  return true;
}
}  // namespace

bool capture_copy(const RecentSegment& a, const wire::SackBlock* a_sack, const Segment& b, std::uint64_t peer_count,
                  bool ids_repeat, Answerable answerable) {
  if (!same_tcp_header(a, a_sack, b)) return false;
  // Either order: two capture interfaces may timestamp the copies out of order.
  const auto apart = b.time < a.time ? a.time - b.time : b.time - a.time;
  if (a.has_ip_id() && b.ip_id) {
    if (a.ip_id != *b.ip_id) return false;  // two datagrams, however soon
    // One TTL, another header checksum: another IP header (not a copy
    // through a router, which lowers the TTL).
    if (a.ttl == b.ip_ttl && a.ip_checksum != b.ip_checksum) return false;
    if (a.ip_id != 0 && !ids_repeat) return apart <= limits::kSameIdWindow;  // the ID names the datagram
  }
  // No ID names it: only a segment that occupies sequence space (identical
  // pure ACKs are real duplicate ACKs), with nothing from the peer between
  // (no ACK can have triggered a resend), and within a timer's earliest
  // resend at the sender's TSval clock, or near-simultaneous without one.
  if (b.payload_len == 0 && !b.tcp.has(wire::kSyn) && !b.tcp.has(wire::kFin)) return false;
  if (a.peer_count != peer_count) return false;
  // Nor when the first may be the sender's timer's and this the answer to
  // the peer's asking again, on a capture that has shown no copy.
  if (answerable == Answerable::yes) return false;
  return apart <= (a.has_tsval() ? limits::kSameTsvalWindow : limits::kNoIdWindow);
}

}  // namespace replay
