#pragma once
// TCP header and options on the wire (RFC 9293 section 3.1; options: MSS
// RFC 9293 3.2, window scale and timestamps RFC 7323, SACK RFC 2018).
// Shared by netstack (encode + decode) and pcap-replay (decode only).
// Decoding never throws: malformed input yields a wire::Error naming the field.
// Error and Result<T> are declared in wire/error.hpp (included here).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include <wire/error.hpp>

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

/// Decodes a TCP header and its options from the start of `bytes` (the
/// captured bytes of the segment; payload bytes after the header, if any,
/// are ignored). Never reads outside `bytes`. Errors (field names):
///  - "tcp"            fewer than 20 bytes captured
///  - "tcp.hdr_len"    data offset below 5 words, or the header runs past the captured bytes
///  - "tcp.option.len" an option length below 2 or running past the header
///  - "tcp.option.mss" / "tcp.option.wscale" / "tcp.option.sack_perm" /
///    "tcp.option.tsval" / "tcp.option.sack": a known option with the wrong length
/// Unknown options are skipped by their length; EOL ends the list.
/// A window-scale shift above 14 is kept as sent (RFC 7323 2.3 says to use 14).
Result<TcpHeader> decode_tcp(std::span<const std::uint8_t> bytes);

/// What decode_tcp_tolerant had to overlook.
struct TcpTolerance {
  bool options_cut = false;           ///< the header runs past the captured bytes (snaplen)
  std::optional<Error> option_error;  ///< the first malformed option (then the option walk stopped or skipped it)
};

/// decode_tcp for captures, as Wireshark dissects them: fails only when the
/// fixed 20-byte header is missing ("tcp") or the data offset is below 5
/// ("tcp.hdr_len"). Options cut by the end of `bytes` (a snaplen) are dropped
/// (report.options_cut); a known option with a wrong length is skipped and an
/// option whose length is below 2 or runs past the header ends the walk
/// (report.option_error names it, as decode_tcp would). The options before
/// the problem are kept.
Result<TcpHeader> decode_tcp_tolerant(std::span<const std::uint8_t> bytes, TcpTolerance& report);

/// decode_tcp_tolerant into caller-owned storage, for a reader that decodes
/// every frame into the same Segment: on success every field of `out` is
/// what decode_tcp_tolerant would return and the result is nullopt;
/// otherwise its Error (`out` is then unspecified). The options are parsed
/// in place; decode_tcp_options runs only to word the error of a bad one.
std::optional<Error> decode_tcp_tolerant_into(std::span<const std::uint8_t> bytes, TcpHeader& out,
                                              TcpTolerance& report);

/// Decodes only the option bytes (the header from byte 20 to data_offset*4).
/// Same errors as decode_tcp for options.
Result<TcpOptions> decode_tcp_options(std::span<const std::uint8_t> options);

/// Bytes the options of `o` take once encoded and padded to a multiple of 4
/// (0..40). Layout (the one Linux sends, so captures look familiar):
///  - SYN style: MSS(4), then SACK-permitted(2)+timestamps(10) or
///    NOP NOP timestamps, or NOP NOP SACK-permitted; then NOP window-scale(3).
///    MSS + SACK-permitted + TS + WS = 20 bytes.
///  - data: NOP NOP timestamps (12), then NOP NOP SACK blocks (2 + 8 each).
/// May exceed 40 when too many SACK blocks are asked for: encode_tcp refuses.
std::size_t tcp_options_len(const TcpOptions& o);

/// Encodes header + options into `out` (at least 20 + tcp_options_len bytes).
/// data_offset is derived from the options (h.data_offset is ignored); the
/// checksum field is written as h.checksum (pass 0 and call
/// fill_tcp_checksum afterwards, once the payload is in place).
/// Returns the header length written. Errors: "tcp.options" (over 40
/// bytes), "tcp.option.sack" (sack_count > 4), "buffer" (out too small).
Result<std::size_t> encode_tcp(const TcpHeader& h, std::span<std::uint8_t> out);

/// TCP checksum (RFC 9293 3.1) of `segment` (header + payload, exactly the
/// TCP length) over the IPv4 pseudo-header (src, dst, zero, protocol 6, TCP
/// length). The checksum field (bytes 16-17) is treated as zero, so the result
/// is the value to store (verify with tcp_checksum_ok_v4).
/// Precondition: segment.size() >= 18 and <= 65535.
std::uint16_t tcp_checksum_v4(const std::array<std::uint8_t, 4>& src,
                              const std::array<std::uint8_t, 4>& dst,
                              std::span<const std::uint8_t> segment);

/// The same over the IPv6 pseudo-header (RFC 8200 8.1: src, dst, 32-bit
/// upper-layer length, 3 zero bytes, next header 6).
std::uint16_t tcp_checksum_v6(const std::array<std::uint8_t, 16>& src,
                              const std::array<std::uint8_t, 16>& dst,
                              std::span<const std::uint8_t> segment);

/// Computes the IPv4 pseudo-header checksum and writes it into bytes 16-17
/// of `segment` (header + payload). No-op when segment.size() < 18.
void fill_tcp_checksum_v4(const std::array<std::uint8_t, 4>& src,
                          const std::array<std::uint8_t, 4>& dst,
                          std::span<std::uint8_t> segment);
/// Same for IPv6.
void fill_tcp_checksum_v6(const std::array<std::uint8_t, 16>& src,
                          const std::array<std::uint8_t, 16>& dst,
                          std::span<std::uint8_t> segment);

/// True when the checksum stored in `segment` matches (RFC 9293 3.1).
/// False when segment.size() < 18.
bool tcp_checksum_ok_v4(const std::array<std::uint8_t, 4>& src,
                        const std::array<std::uint8_t, 4>& dst,
                        std::span<const std::uint8_t> segment);
/// Same for IPv6.
bool tcp_checksum_ok_v6(const std::array<std::uint8_t, 16>& src,
                        const std::array<std::uint8_t, 16>& dst,
                        std::span<const std::uint8_t> segment);

/// TCP option kinds (IANA "TCP Option Kind Numbers").
enum TcpOptionKind : std::uint8_t {
  kOptEol = 0, kOptNop = 1, kOptMss = 2, kOptWindowScale = 3,
  kOptSackPermitted = 4, kOptSack = 5, kOptTimestamps = 8,
};

}  // namespace wire
