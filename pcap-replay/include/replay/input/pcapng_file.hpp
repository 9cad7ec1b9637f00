#pragma once
// pcapng (draft-ietf-opsawg-pcapng): Section Header Blocks (byte order per
// section, several sections per file), Interface Description Blocks (link
// type, snaplen, if_tsresol 10^-n or 2^-n, if_tsoffset, per interface: the
// interfaces of one file may differ in link type and snaplen, which libpcap
// refuses), Enhanced, Simple and obsolete Packet Blocks (the frames, numbered
// as Wireshark does), every other block skipped. A block whose total length
// is below 12, not a multiple of 4, above kMaxBlockBytes, or differs from its
// trailing copy is damage: the parser scans forward 4 bytes at a time for the
// next block of a known type whose two lengths agree, and goes on from there.
// Timestamps are converted with checked 128-bit arithmetic: an instant
// outside int64 nanoseconds is TimeIssue::kOutOfRange, never an overflow.

#include <memory>
#include <string>
#include <variant>

#include <replay/input/capture_format.hpp>

namespace replay {

/// True when the first 4 bytes are a pcapng Section Header Block type.
bool is_pcapng_magic(std::span<const std::uint8_t> head);

/// Parser of one pcapng stream, positioned at its first SHB. Errors (the
/// first SHB is unreadable): "NAME: cannot open: ..." naming what is wrong.
std::variant<std::unique_ptr<RecordParser>, std::string> make_pcapng_parser(ByteStream& in, const std::string& name);

/// Nanoseconds of a pcapng timestamp `ts` in units of `tsresol` (the
/// if_tsresol byte: bit 7 clear 10^-n s, set 2^-n s, n the low 7 bits)
/// plus `offset_s` seconds (if_tsoffset); fractions of a nanosecond are
/// truncated. nullopt when the result is outside int64 nanoseconds since
/// the epoch (about 1677-2262).
std::optional<std::int64_t> pcapng_time_ns(std::uint64_t ts, std::uint8_t tsresol, std::int64_t offset_s);

}  // namespace replay
