// Fuzz harness: the TCP header and option parser of netstack/wire (tcp.hpp),
// shared by netstack and pcap-replay. The input is a TCP header as captured.
// Invariants:
//  - decode_tcp_tolerant fails only without the fixed 20 bytes or with a
//    data offset below 5; where decode_tcp succeeds it gives the same header
//    with nothing overlooked, and decode_tcp_options gives the same options;
//  - decoded options re-encode (encode_tcp) and decode to the same options,
//    unless they need more than the 40 bytes a header holds, which
//    encode_tcp refuses as "tcp.options";
//  - a window scale kept as sent (above 14) survives the round trip.
#include <wire/tcp.hpp>

#include <array>

#include "common/memory_file.hpp"

namespace {

bool same_options(const wire::TcpOptions& a, const wire::TcpOptions& b) {
  if (a.mss != b.mss || a.window_scale != b.window_scale || a.sack_permitted != b.sack_permitted ||
      a.tsval != b.tsval || a.tsecr != b.tsecr || a.sack_count != b.sack_count)
    return false;
  for (std::size_t i = 0; i < a.sack_count; ++i)
    if (a.sack[i].left != b.sack[i].left || a.sack[i].right != b.sack[i].right) return false;
  return true;
}

constexpr std::size_t kFixedHeader = 20, kMaxOptions = 40;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  wire::TcpTolerance tol;
  const auto tolerant = wire::decode_tcp_tolerant(bytes, tol);
  const bool fixed_ok = size >= kFixedHeader && (data[12] >> 4) >= 5;
  fuzz::check(wire::ok(tolerant) == fixed_ok, "tolerant decoding fails only on the fixed header");
  const auto strict = wire::decode_tcp(bytes);
  if (!wire::ok(strict)) {
    fuzz::check(!wire::error(strict).field.empty(), "an error names its field");
    return 0;
  }
  const wire::TcpHeader& h = wire::value(strict);
  fuzz::check(h.header_len() <= size && h.data_offset >= 5, "the header lies inside the bytes");
  fuzz::check(wire::ok(tolerant) && !tol.options_cut && !tol.option_error, "strict success overlooks nothing");
  fuzz::check(same_options(h.options, wire::value(tolerant).options), "strict and tolerant options agree");
  const auto only = wire::decode_tcp_options(bytes.subspan(kFixedHeader, h.header_len() - kFixedHeader));
  fuzz::check(wire::ok(only) && same_options(h.options, wire::value(only)), "decode_tcp_options agrees");
  fuzz::check(h.options.sack_count <= 4, "at most 4 SACK blocks");

  std::array<std::uint8_t, kFixedHeader + kMaxOptions> out{};
  const auto enc = wire::encode_tcp(h, out);
  if (wire::tcp_options_len(h.options) > kMaxOptions) {
    fuzz::check(!wire::ok(enc) && wire::error(enc).field == "tcp.options", "options over 40 bytes are refused");
    return 0;
  }
  fuzz::check(wire::ok(enc), "options that fit encode");
  const auto back = wire::decode_tcp(std::span<const std::uint8_t>(out.data(), wire::value(enc)));
  fuzz::check(wire::ok(back), "an encoded header decodes");
  const wire::TcpHeader& b = wire::value(back);
  fuzz::check(same_options(h.options, b.options), "options survive encode and decode");
  fuzz::check(b.src_port == h.src_port && b.dst_port == h.dst_port && b.seq == h.seq && b.ack == h.ack &&
                  b.flags == h.flags && b.window == h.window && b.urgent == h.urgent,
              "fixed fields survive encode and decode");
  return 0;
}
