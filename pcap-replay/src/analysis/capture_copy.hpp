#pragma once
// One datagram captured more than once (two interfaces, the VLANs of a tap,
// a mirror port, a router's way in and out): the later capture is a copy,
// not a retransmission. The rule and its windows are stated once, in
// thresholds.hpp ("one datagram captured more than once"); this is its code:
// the recent segments of one direction of a connection, and the test of a
// new segment against one of them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <replay/input/segment.hpp>

namespace replay {

/// Whether a segment identical to a kept one can be a second transmission:
/// the kept one may be the sender's timer's and this the answer to the
/// peer's asking again (SenderEngine::second_of_held_synack), on a capture
/// that has shown no copy.
enum class Answerable : bool { no, yes };

/// A segment seen recently in one direction: the fields the copy test
/// compares, not the whole Segment, and its frame, on one cache line of its
/// own (a ring of them is written per segment, mostly to lines not in
/// cache: one line per segment). Its SACK blocks, when it has any, are in
/// its ring's `sack`.
struct alignas(64) RecentSegment {
  std::uint32_t seq, ack, payload_len;
  std::uint32_t tsval, tsecr;  // valid when has_tsval / has_tsecr
  std::uint16_t window;
  std::uint16_t ip_id;        // valid when has_ip_id
  std::uint16_t tcp_checksum;
  std::uint16_t ip_checksum;  // IPv4's; 0 for IPv6
  std::uint8_t flags, sack_count, ttl;
  std::uint8_t present;      // kHasTsval | kHasTsecr | kHasIpId: which optional fields are set
  CaptureTime time;
  std::uint64_t peer_count;  // segments of the other direction seen before it
  std::uint64_t frame;       // the frame of its datagram's first capture

  static constexpr std::uint8_t kHasTsval = 1, kHasTsecr = 2, kHasIpId = 4;
  RecentSegment(const Segment& s, std::uint64_t peers)
      : seq(s.tcp.seq),
        ack(s.tcp.ack),
        payload_len(s.payload_len),
        tsval(s.tcp.options.tsval.value_or(0)),
        tsecr(s.tcp.options.tsecr.value_or(0)),
        window(s.tcp.window),
        ip_id(s.ip_id.value_or(0)),
        tcp_checksum(s.tcp.checksum),
        ip_checksum(s.ip_checksum),
        flags(s.tcp.flags),
        sack_count(s.tcp.options.sack_count),
        ttl(s.ip_ttl),
        present(static_cast<std::uint8_t>((s.tcp.options.tsval ? kHasTsval : 0) |
                                          (s.tcp.options.tsecr ? kHasTsecr : 0) | (s.ip_id ? kHasIpId : 0))),
        time(s.time),
        peer_count(peers),
        frame(s.frame) {}
  bool has_tsval() const { return (present & kHasTsval) != 0; }
  bool has_tsecr() const { return (present & kHasTsecr) != 0; }
  bool has_ip_id() const { return (present & kHasIpId) != 0; }
  std::optional<std::uint32_t> tsval_opt() const { return has_tsval() ? std::optional(tsval) : std::nullopt; }
  std::optional<std::uint32_t> tsecr_opt() const { return has_tsecr() ? std::optional(tsecr) : std::nullopt; }
  /// The sequence space it ends at: SEQ + payload, + 1 for SYN and for FIN.
  std::uint32_t end() const;
};

/// How many recent segments per direction are compared with each new one.
inline constexpr std::size_t kRecentKept = 8;
static_assert(kRecentKept < 32 && kRecentKept % 4 == 0,
              "RecentRing::matching(): one bit per kept segment in 32 bits, four digests per compare");

/// A 32-bit digest of the header fields the copy test compares first
/// (equal fields give equal digests): the ring compares digests, one cache
/// line for all of them, before it reads any kept segment.
std::uint32_t header_digest(const Segment& s);

/// The last kRecentKept segments of one direction of a connection, oldest
/// first (a ring that allocates only as it fills), with their header
/// digests; and whether the sender has been seen repeating its IPv4 IDs.
struct RecentRing {
  using SackBlocks = std::array<wire::SackBlock, 4>;
  std::vector<RecentSegment> items;
  std::array<std::uint32_t, kRecentKept> digest{};  // digest[i]: header_digest of items[i]
  // sack[i]: the SACK blocks of items[i] (its first sack_count valid), made
  // at the first segment with any: most segments have none.
  std::unique_ptr<std::array<SackBlocks, kRecentKept>> sack;
  std::size_t next = 0;  // the slot the next segment replaces once full
  std::optional<std::uint16_t> newest_ip_id;  // the IPv4 ID of the segment pushed last, if it had one
  /// Two of the sender's segments in a row (neither a copy) carried the
  /// same non-zero IPv4 ID: its IDs do not name datagrams (a constant ID, or
  /// one reused for a resend), so an equal ID proves nothing for it.
  bool ids_repeat = false;

  /// Keeps `s` (not a copy), sent after `peers` segments of the other direction.
  void push(const Segment& s, std::uint64_t peers, std::uint32_t digest);
  void push(const Segment& s, std::uint64_t peers) { push(s, peers, header_digest(s)); }
  /// The k-th newest kept segment (0: the one pushed last), or null when
  /// fewer are kept.
  const RecentSegment* newest(std::size_t k) const {
    return k < items.size() ? &items[(next + items.size() - 1 - k) % items.size()] : nullptr;
  }
  /// Bit i set: items[i] exists and its digest is `d`.
  std::uint32_t matching(std::uint32_t d) const;
  /// The SACK blocks of items[i] (sack_count > 0 only).
  const SackBlocks& sack_of(std::size_t i) const { return (*sack)[i]; }
  /// Whether `s`, sent after `peer_count` segments of the other direction,
  /// is a copy of a kept one (thresholds.hpp: the rule): the frame of that
  /// one's first capture, or nullopt. One digest compare per kept segment, a
  /// full compare only where the digests match. If it is, that one's time
  /// becomes the later of the two: a window counts from the latest capture
  /// of the datagram (its copies on three VLANs 50 ms apart are each 50 ms
  /// from the one before, and each names the first).
  /// `answerable`: capture_copy's.
  std::optional<std::uint64_t> take_copy(const Segment& s, std::uint64_t peer_count, std::uint32_t digest,
                                         Answerable answerable);
};

/// Whether `b`, sent after `peer_count` segments of the other direction, is
/// a copy of `a` (thresholds.hpp: the rule), whose SACK blocks are `a_sack`
/// (null when it has none); `ids_repeat`: the sender's RecentRing::ids_repeat;
/// `answerable`: Answerable::yes when `b` may be a second transmission
/// (then, without an ID naming the datagram, it is not a copy).
bool capture_copy(const RecentSegment& a, const wire::SackBlock* a_sack, const Segment& b,
                  std::uint64_t peer_count, bool ids_repeat, Answerable answerable = Answerable::no);

}  // namespace replay
