// TCP header and option decode/encode (RFC 9293 3.1-3.2, RFC 7323, RFC 2018)
// and the pseudo-header checksum (RFC 9293 3.1, RFC 8200 8.1).
#include <wire/tcp.hpp>

#include <wire/bytes.hpp>
#include <wire/checksum.hpp>

namespace wire {
namespace {

Error err(std::string field, std::string message) { return Error{std::move(field), std::move(message)}; }

std::string num(std::size_t v) { return std::to_string(v); }

}  // namespace

Result<TcpOptions> decode_tcp_options(std::span<const std::uint8_t> b) {
  TcpOptions o;
  std::size_t i = 0;
  while (i < b.size()) {
    const std::uint8_t kind = b[i];
    if (kind == kOptEol) break;  // end of option list; the rest is padding
    if (kind == kOptNop) {
      ++i;
      continue;
    }
    if (i + 1 >= b.size()) {
      return err("tcp.option.len", "option kind " + num(kind) + " at option byte " + num(i) +
                                       " has no length byte before the end of the header");
    }
    const std::size_t len = b[i + 1];
    if (len < 2) {
      return err("tcp.option.len", "option kind " + num(kind) + " at option byte " + num(i) +
                                       " has length " + num(len) + ", below the minimum 2");
    }
    if (i + len > b.size()) {
      return err("tcp.option.len", "option kind " + num(kind) + " at option byte " + num(i) +
                                       " has length " + num(len) + " and runs " +
                                       num(i + len - b.size()) + " bytes past the end of the header");
    }
    const std::uint8_t* p = b.data() + i + 2;
    switch (kind) {
      case kOptMss:
        if (len != 4) return err("tcp.option.mss", "MSS option length " + num(len) + ", expected 4");
        o.mss = load_be16(p);
        break;
      case kOptWindowScale:
        if (len != 3) return err("tcp.option.wscale", "window scale option length " + num(len) + ", expected 3");
        o.window_scale = p[0];
        break;
      case kOptSackPermitted:
        if (len != 2) return err("tcp.option.sack_perm", "SACK-permitted option length " + num(len) + ", expected 2");
        o.sack_permitted = true;
        break;
      case kOptSack: {
        if (len < 10 || (len - 2) % 8 != 0) {
          return err("tcp.option.sack", "SACK option length " + num(len) + " is not 2 + 8n with n >= 1");
        }
        const std::size_t n = (len - 2) / 8;
        if (n > o.sack.size()) {
          return err("tcp.option.sack", "SACK option carries " + num(n) + " blocks, at most 4 fit a header");
        }
        for (std::size_t k = 0; k < n; ++k) {
          o.sack[k] = SackBlock{load_be32(p + 8 * k), load_be32(p + 8 * k + 4)};
        }
        o.sack_count = static_cast<std::uint8_t>(n);
        break;
      }
      case kOptTimestamps:
        if (len != 10) return err("tcp.option.tsval", "timestamps option length " + num(len) + ", expected 10");
        o.tsval = load_be32(p);
        o.tsecr = load_be32(p + 4);
        break;
      default:
        break;  // unknown option: skipped by its length
    }
    i += len;
  }
  return o;
}

namespace {

// The fixed 20 bytes (b.size() >= 20 checked by the caller).
TcpHeader fixed_header(std::span<const std::uint8_t> b) {
  TcpHeader h;
  h.src_port = load_be16(&b[0]);
  h.dst_port = load_be16(&b[2]);
  h.seq = load_be32(&b[4]);
  h.ack = load_be32(&b[8]);
  h.data_offset = static_cast<std::uint8_t>(b[12] >> 4);
  h.flags = b[13];
  h.window = load_be16(&b[14]);
  h.checksum = load_be16(&b[16]);
  h.urgent = load_be16(&b[18]);
  return h;
}

Error short_fixed(std::size_t have) {
  return err("tcp", "TCP header truncated: " + num(have) + " of at least 20 bytes captured");
}

Error low_offset(unsigned off) {
  return err("tcp.hdr_len", "data offset " + num(off) + " words is below the 5-word minimum");
}

}  // namespace

Result<TcpHeader> decode_tcp(std::span<const std::uint8_t> b) {
  if (b.size() < 20) return short_fixed(b.size());
  TcpHeader h = fixed_header(b);
  if (h.data_offset < 5) return low_offset(h.data_offset);
  if (h.header_len() > b.size()) {
    return err("tcp.hdr_len", "header length " + num(h.header_len()) + " bytes runs past the " +
                                  num(b.size()) + " bytes captured");
  }
  auto opts = decode_tcp_options(b.subspan(20, h.header_len() - 20));
  if (!ok(opts)) return error(opts);
  h.options = value(opts);
  return h;
}

namespace {

// One option that fits (`len` bytes at `p`, len >= 2, kind and length
// bytes included) merged into `o`, as decode_tcp_options(those bytes) would
// decode it alone and decode_tcp_tolerant keep it: false when its length is
// wrong for its kind (decode_tcp_options then gives the error).
bool merge_option(const std::uint8_t* p, std::size_t len, TcpOptions& o) {
  const std::uint8_t* v = p + 2;
  switch (p[0]) {
    case kOptMss:
      if (len != 4) return false;
      o.mss = load_be16(v);
      return true;
    case kOptWindowScale:
      if (len != 3) return false;
      o.window_scale = v[0];
      return true;
    case kOptSackPermitted:
      if (len != 2) return false;
      o.sack_permitted = true;
      return true;
    case kOptSack: {
      if (len < 10 || (len - 2) % 8 != 0) return false;
      const std::size_t n = (len - 2) / 8;
      if (n > o.sack.size()) return false;
      o.sack = {};  // the blocks after the n-th are zero, as in a fresh decode
      for (std::size_t k = 0; k < n; ++k) o.sack[k] = SackBlock{load_be32(v + 8 * k), load_be32(v + 8 * k + 4)};
      o.sack_count = static_cast<std::uint8_t>(n);
      return true;
    }
    case kOptTimestamps:
      if (len != 10) return false;
      o.tsval = load_be32(v);
      o.tsecr = load_be32(v + 4);
      return true;
    default:
      return true;  // unknown option: skipped by its length
  }
}

}  // namespace

std::optional<Error> decode_tcp_tolerant_into(std::span<const std::uint8_t> b, TcpHeader& h, TcpTolerance& report) {
  report = TcpTolerance{};
  if (b.size() < 20) return short_fixed(b.size());
  h = fixed_header(b);
  if (h.data_offset < 5) return low_offset(h.data_offset);
  std::span<const std::uint8_t> ob = b.subspan(20);
  if (h.header_len() > b.size()) {
    report.options_cut = true;
  } else {
    ob = ob.first(h.header_len() - 20);
  }
  // Walk option by option so that one bad option does not cost the others.
  std::size_t i = 0;
  while (i < ob.size()) {
    const std::uint8_t kind = ob[i];
    if (kind == kOptEol) break;
    if (kind == kOptNop) { ++i; continue; }
    const bool fits = i + 1 < ob.size() && i + ob[i + 1] <= ob.size();
    if (!fits && report.options_cut) break;  // cut by the snaplen, not malformed
    if (!fits || ob[i + 1] < 2) {
      auto e = decode_tcp_options(ob.subspan(i));  // reproduces the exact error
      if (!ok(e)) report.option_error = error(e);
      break;
    }
    const std::size_t len = ob[i + 1];
    if (!merge_option(ob.data() + i, len, h.options) && !report.option_error) {
      auto e = decode_tcp_options(ob.subspan(i, len));  // the error decoding it alone gives
      if (!ok(e)) report.option_error = error(e);
    }
    i += len;
  }
  return std::nullopt;
}

Result<TcpHeader> decode_tcp_tolerant(std::span<const std::uint8_t> b, TcpTolerance& report) {
  TcpHeader h;
  if (auto e = decode_tcp_tolerant_into(b, h, report)) return std::move(*e);
  return h;
}

std::size_t tcp_options_len(const TcpOptions& o) {
  std::size_t n = 0;
  if (o.mss) n += 4;
  if (o.tsval) n += 12;  // SACK-permitted + TS, or NOP NOP TS
  else if (o.sack_permitted) n += 4;  // NOP NOP SACK-permitted
  if (o.window_scale) n += 4;  // NOP WS
  if (o.sack_count > 0) n += 4 + 8 * std::size_t{o.sack_count};  // NOP NOP SACK
  return n;  // every piece is a multiple of 4: no padding needed
}

Result<std::size_t> encode_tcp(const TcpHeader& h, std::span<std::uint8_t> out) {
  const TcpOptions& o = h.options;
  if (o.sack_count > o.sack.size()) {
    return err("tcp.option.sack", "sack_count " + num(o.sack_count) + " exceeds the 4 blocks held");
  }
  const std::size_t olen = tcp_options_len(o);
  if (olen > 40) {
    return err("tcp.options", "options need " + num(olen) + " bytes, more than the 40 a header holds");
  }
  const std::size_t hlen = 20 + olen;
  if (out.size() < hlen) {
    return err("buffer", "output buffer of " + num(out.size()) + " bytes is smaller than the " +
                             num(hlen) + "-byte header");
  }
  std::uint8_t* p = out.data();
  store_be16(p + 0, h.src_port);
  store_be16(p + 2, h.dst_port);
  store_be32(p + 4, h.seq);
  store_be32(p + 8, h.ack);
  p[12] = static_cast<std::uint8_t>((hlen / 4) << 4);
  p[13] = h.flags;
  store_be16(p + 14, h.window);
  store_be16(p + 16, h.checksum);
  store_be16(p + 18, h.urgent);
  std::uint8_t* q = p + 20;
  if (o.mss) {
    q[0] = kOptMss; q[1] = 4; store_be16(q + 2, *o.mss); q += 4;
  }
  if (o.tsval) {
    if (o.sack_permitted) {
      q[0] = kOptSackPermitted; q[1] = 2;
    } else {
      q[0] = kOptNop; q[1] = kOptNop;
    }
    q[2] = kOptTimestamps; q[3] = 10;
    store_be32(q + 4, *o.tsval);
    store_be32(q + 8, o.tsecr.value_or(0));
    q += 12;
  } else if (o.sack_permitted) {
    q[0] = kOptNop; q[1] = kOptNop; q[2] = kOptSackPermitted; q[3] = 2; q += 4;
  }
  if (o.window_scale) {
    q[0] = kOptNop; q[1] = kOptWindowScale; q[2] = 3; q[3] = *o.window_scale; q += 4;
  }
  if (o.sack_count > 0) {
    q[0] = kOptNop; q[1] = kOptNop; q[2] = kOptSack;
    q[3] = static_cast<std::uint8_t>(2 + 8 * o.sack_count);
    q += 4;
    for (std::size_t k = 0; k < o.sack_count; ++k) {
      store_be32(q, o.sack[k].left);
      store_be32(q + 4, o.sack[k].right);
      q += 8;
    }
  }
  return hlen;
}

namespace {

// Sum of the segment with its checksum field (bytes 16-17) left out, which
// is the same as summing it with that field zero.
void add_segment(Checksum& c, std::span<const std::uint8_t> seg) {
  c.add(seg.first(16));
  c.add(seg.subspan(18));
}

}  // namespace

std::uint16_t tcp_checksum_v4(const std::array<std::uint8_t, 4>& src,
                              const std::array<std::uint8_t, 4>& dst,
                              std::span<const std::uint8_t> segment) {
  Checksum c;
  c.add(src);
  c.add(dst);
  c.add16(6);  // zero byte + protocol 6
  c.add16(static_cast<std::uint16_t>(segment.size()));
  if (segment.size() >= 18) add_segment(c, segment);
  return c.finish();
}

std::uint16_t tcp_checksum_v6(const std::array<std::uint8_t, 16>& src,
                              const std::array<std::uint8_t, 16>& dst,
                              std::span<const std::uint8_t> segment) {
  Checksum c;
  c.add(src);
  c.add(dst);
  c.add32(static_cast<std::uint32_t>(segment.size()));  // upper-layer packet length
  c.add32(6);                                           // 3 zero bytes + next header 6
  if (segment.size() >= 18) add_segment(c, segment);
  return c.finish();
}

void fill_tcp_checksum_v4(const std::array<std::uint8_t, 4>& src,
                          const std::array<std::uint8_t, 4>& dst, std::span<std::uint8_t> segment) {
  if (segment.size() < 18) return;
  store_be16(&segment[16], tcp_checksum_v4(src, dst, segment));
}

void fill_tcp_checksum_v6(const std::array<std::uint8_t, 16>& src,
                          const std::array<std::uint8_t, 16>& dst, std::span<std::uint8_t> segment) {
  if (segment.size() < 18) return;
  store_be16(&segment[16], tcp_checksum_v6(src, dst, segment));
}

// Verification sums everything, stored checksum included: a correct segment
// sums to 0xFFFF (RFC 1071 2(B)); this accepts both one's-complement zeros.
bool tcp_checksum_ok_v4(const std::array<std::uint8_t, 4>& src,
                        const std::array<std::uint8_t, 4>& dst,
                        std::span<const std::uint8_t> segment) {
  if (segment.size() < 18) return false;
  Checksum c;
  c.add(src);
  c.add(dst);
  c.add16(6);
  c.add16(static_cast<std::uint16_t>(segment.size()));
  c.add(segment);
  return c.sum() == 0xFFFF;
}

bool tcp_checksum_ok_v6(const std::array<std::uint8_t, 16>& src,
                        const std::array<std::uint8_t, 16>& dst,
                        std::span<const std::uint8_t> segment) {
  if (segment.size() < 18) return false;
  Checksum c;
  c.add(src);
  c.add(dst);
  c.add32(static_cast<std::uint32_t>(segment.size()));
  c.add32(6);
  c.add(segment);
  return c.sum() == 0xFFFF;
}

}  // namespace wire
