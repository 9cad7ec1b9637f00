#pragma once
// Classic pcap (the libpcap savefile format, draft-ietf-opsawg-pcap):
// 24-byte file header, then 16-byte record headers each followed by caplen
// bytes. Magic 0xA1B2C3D4 (microsecond fractions) or 0xA1B23C4D
// (nanosecond), in either byte order; version 2.x. Seconds are unsigned
// 32-bit (valid to 2106). A record header whose caplen exceeds kMaxCaplen
// is damage: the parser scans forward byte by byte for the next plausible
// header (caplen within the limit and not above the original length, a
// fraction below 1 s, dated within kResyncMaxJumpSeconds of the last good
// record, and followed by kResyncConfirmRecords - 1 more such headers or the
// end of the file) and goes on from there.

#include <memory>
#include <string>
#include <variant>

#include <replay/input/capture_format.hpp>

namespace replay {

/// True when the first 4 bytes are a pcap magic number (either byte order).
bool is_pcap_magic(std::span<const std::uint8_t> head);

/// Parser of one pcap stream. Construct with make_pcap_parser.
std::variant<std::unique_ptr<RecordParser>, std::string> make_pcap_parser(ByteStream& in, const std::string& name);

}  // namespace replay
