#pragma once
// Hand-made classic pcap files (libpcap format 2.4, little-endian) for tests
// that need exact bytes, timestamps and link types.

#include <cstdint>
#include <functional>
#include <vector>

namespace testcommon {

using Bytes = std::vector<std::uint8_t>;

/// Appends `v` to `b`, least significant byte first.
void put16le(Bytes& b, std::uint16_t v);
void put32le(Bytes& b, std::uint32_t v);
/// Appends `v` to `b`, most significant byte first (network order).
void put16be(Bytes& b, std::uint16_t v);
void put32be(Bytes& b, std::uint32_t v);
/// Appends `more` to `b`.
void append(Bytes& b, const Bytes& more);

/// Classic pcap magic numbers (as written little-endian): microsecond and
/// nanosecond timestamp fractions.
inline constexpr std::uint32_t kPcapMagicMicros = 0xA1B2C3D4;
inline constexpr std::uint32_t kPcapMagicNanos = 0xA1B23C4D;
/// The snapshot length tcpdump writes by default (bytes).
inline constexpr std::uint32_t kDefaultSnaplen = 262144;

/// One classic-pcap record: seconds, fraction (µs or ns per the magic), bytes.
struct Record {
  std::uint32_t sec = 0;
  std::uint32_t frac = 0;
  Bytes data;
  std::uint32_t orig_len = 0;  ///< 0 = data.size()
};

/// A little-endian classic pcap file (version 2.4) with link type `linktype`
/// (LINKTYPE_* numbers, e.g. 1 Ethernet, 101 raw IP) holding `recs` in order.
/// magic kPcapMagicMicros = µs fractions, kPcapMagicNanos = ns.
Bytes pcap_file(std::uint32_t magic, std::uint32_t linktype, const std::vector<Record>& recs,
                std::uint32_t snaplen = kDefaultSnaplen);

/// Rewrites the record times of the classic pcap file `file` (either byte
/// order, microsecond or nanosecond fractions) in place: `edit` is called
/// for each record with its frame number (from 1) and its seconds and
/// fraction fields, which it may change. Records are walked by their
/// captured lengths, up to the last whole record header. Returns false (and
/// changes nothing) when `file` does not start with a classic pcap magic.
bool edit_record_times(Bytes& file,
                       const std::function<void(std::uint64_t frame, std::uint32_t& sec, std::uint32_t& frac)>& edit);

}  // namespace testcommon
