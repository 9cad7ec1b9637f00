#pragma once
// TCP header and options on the wire (RFC 9293 section 3.1; options: MSS
// RFC 9293 3.2, window scale and timestamps RFC 7323, SACK RFC 2018).
// Shared by netstack (encode + decode) and pcap-replay (decode only).
// Decoding never throws: malformed input yields a wire::Error naming the field.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

namespace wire {

/// TCP header flag bits (RFC 9293 3.1, RFC 3168 for ECE/CWR).
enum TcpFlag : std::uint8_t {
  kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08,
  kAck = 0x10, kUrg = 0x20, kEce = 0x40, kCwr = 0x80,
};

/// One SACK block [left, right) in sequence space (RFC 2018 section 3).
struct SackBlock {
  std::uint32_t left = 0;
  std::uint32_t right = 0;
};

/// The TCP options this project understands. Unknown options are skipped.
struct TcpOptions {
  std::optional<std::uint16_t> mss;          ///< SMSS offered in a SYN, bytes (RFC 9293 3.7.1)
  std::optional<std::uint8_t> window_scale;  ///< shift count, 0..14 (RFC 7323 2.3)
  bool sack_permitted = false;               ///< RFC 2018 section 2
  std::array<SackBlock, 4> sack{};           ///< RFC 2018 section 3; first sack_count valid
  std::uint8_t sack_count = 0;
  std::optional<std::uint32_t> tsval;        ///< RFC 7323 section 3: TSval
  std::optional<std::uint32_t> tsecr;        ///< RFC 7323 section 3: TSecr (present with tsval)
};

/// A decoded TCP header (RFC 9293 3.1). Sequence numbers are raw 32-bit values.
struct TcpHeader {
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
  std::uint32_t seq = 0;
  std::uint32_t ack = 0;
  std::uint8_t data_offset = 5;  ///< header length in 32-bit words, 5..15
  std::uint8_t flags = 0;        ///< TcpFlag bits
  std::uint16_t window = 0;      ///< unscaled window field
  std::uint16_t checksum = 0;
  std::uint16_t urgent = 0;
  TcpOptions options;

  bool has(TcpFlag f) const { return (flags & f) != 0; }
  std::size_t header_len() const { return std::size_t{data_offset} * 4; }
};

/// Why a decode failed: the field that is wrong and a sentence about it.
struct Error {
  std::string field;    ///< e.g. "tcp.hdr_len", "tcp.option.sack"
  std::string message;  ///< e.g. "data offset 3 words is below the 5-word minimum"
};

}  // namespace wire
