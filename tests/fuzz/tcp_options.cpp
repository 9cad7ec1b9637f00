// Fuzz harness: the TCP header and option parser of netstack/wire (tcp.hpp),
// shared by netstack and pcap-replay. The input is a TCP header as captured.
// Invariants:
//  - decode_tcp_tolerant fails only without the fixed 20 bytes or with a
//    data offset below 5; where decode_tcp succeeds it gives the same header
//    with nothing overlooked, and decode_tcp_options gives the same options;
//  - decoded options re-encode (encode_tcp) and decode to the same options,
//    unless they need more than the 40 bytes a header holds, which
//    encode_tcp refuses as "tcp.options";
//  - a window scale kept as sent (above 14) survives the round trip;
//  - decode_tcp_tolerant_into, into storage holding another header, gives
//    what a model gives: each option that fits decoded alone by
//    decode_tcp_options and merged (the tolerant decoder's definition),
//    the first error and the cut the same.
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

// The tolerant decoder's definition, option by option through
// decode_tcp_options (the model for the in-place parser).
void model_tolerant(std::span<const std::uint8_t> b, wire::TcpOptions& out, wire::TcpTolerance& report) {
  report = wire::TcpTolerance{};
  out = wire::TcpOptions{};
  const std::size_t hl = std::size_t{static_cast<std::uint8_t>(b[12] >> 4)} * 4;
  std::span<const std::uint8_t> ob = b.subspan(kFixedHeader);
  if (hl > b.size()) report.options_cut = true;
  else ob = ob.first(hl - kFixedHeader);
  for (std::size_t i = 0; i < ob.size();) {
    if (ob[i] == 0) break;  // EOL
    if (ob[i] == 1) { ++i; continue; }  // NOP
    const bool fits = i + 1 < ob.size() && i + ob[i + 1] <= ob.size();
    if (!fits && report.options_cut) break;
    if (!fits || ob[i + 1] < 2) {
      const auto e = wire::decode_tcp_options(ob.subspan(i));
      if (!wire::ok(e)) report.option_error = wire::error(e);
      break;
    }
    const std::size_t len = ob[i + 1];
    const auto one = wire::decode_tcp_options(ob.subspan(i, len));
    if (!wire::ok(one)) {
      if (!report.option_error) report.option_error = wire::error(one);
    } else {
      const wire::TcpOptions& o = wire::value(one);
      if (o.mss) out.mss = o.mss;
      if (o.window_scale) out.window_scale = o.window_scale;
      if (o.sack_permitted) out.sack_permitted = true;
      if (o.sack_count > 0) { out.sack = o.sack; out.sack_count = o.sack_count; }
      if (o.tsval) { out.tsval = o.tsval; out.tsecr = o.tsecr; }
    }
    i += len;
  }
}

bool same_blocks(const wire::TcpOptions& a, const wire::TcpOptions& b) {  // every slot, used or not
  for (std::size_t i = 0; i < a.sack.size(); ++i)
    if (a.sack[i].left != b.sack[i].left || a.sack[i].right != b.sack[i].right) return false;
  return true;
}

bool same_error(const std::optional<wire::Error>& a, const std::optional<wire::Error>& b) {
  return a.has_value() == b.has_value() && (!a || (a->field == b->field && a->message == b->message));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  wire::TcpTolerance tol;
  const auto tolerant = wire::decode_tcp_tolerant(bytes, tol);
  const bool fixed_ok = size >= kFixedHeader && (data[12] >> 4) >= 5;
  fuzz::check(wire::ok(tolerant) == fixed_ok, "tolerant decoding fails only on the fixed header");
  if (fixed_ok) {
    wire::TcpHeader into;  // storage that held another header: every SACK block, a TSval, an MSS
    into.options.mss = 1;
    into.options.window_scale = 3;
    into.options.sack_permitted = true;
    into.options.tsval = into.options.tsecr = 7;
    into.options.sack_count = 4;
    for (auto& blk : into.options.sack) blk = wire::SackBlock{9, 10};
    wire::TcpTolerance tol_into, tol_model;
    const auto e = wire::decode_tcp_tolerant_into(bytes, into, tol_into);
    wire::TcpOptions model;
    model_tolerant(bytes, model, tol_model);
    fuzz::check(!e, "decode_tcp_tolerant_into succeeds where decode_tcp_tolerant does");
    fuzz::check(same_options(into.options, model) && same_blocks(into.options, model),
                "the in-place options are the model's, every SACK slot included");
    fuzz::check(tol_into.options_cut == tol_model.options_cut && same_error(tol_into.option_error, tol_model.option_error),
                "the in-place decoder overlooks what the model does, with the same error");
    fuzz::check(same_options(into.options, wire::value(tolerant).options) && same_error(tol.option_error, tol_into.option_error),
                "decode_tcp_tolerant is decode_tcp_tolerant_into");
  }
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
