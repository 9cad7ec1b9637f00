// Fuzz harness: netstack's TcpReceiver (receiver.hpp) and its segment codec
// (segment_codec.hpp) under a stream of datagrams the input describes: valid
// segments from one peer (any flags, sequence offset, length, options; the
// payload always the true bytes of the peer's stream at that offset), the
// same with one byte corrupted, raw bytes, clock ticks and application reads.
// Byte 0 picks the receiver's configuration. Invariants:
//  - every byte reaches the application once and in order: what read()
//    returns is exactly the peer's stream from offset 0 (retransmitted,
//    reordered, duplicated or overlapping segments never deliver twice or
//    wrongly), and bytes_delivered counts it;
//  - a corrupted or raw datagram never delivers anything;
//  - everything the receiver sends parses (valid checksums), goes from its
//    address to the peer, and its cumulative ACK never moves back nor past
//    what was delivered (plus a FIN);
//  - the advertised window never exceeds the receive buffer;
//  - parse_segment on raw bytes: a datagram it accepts re-encodes
//    (encode_segment) to one that parses to the same header and payload.
#include <netstack/receiver.hpp>
#include <netstack/segment_codec.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/byte_source.hpp"
#include "common/memory_file.hpp"

namespace {

using netstack::Endpoint;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t kPeerIsn = 0xFFFFF000;  // wraps 2^32 after 4 KiB: modulo arithmetic exercised
constexpr std::size_t kMaxOps = 256;

// FUZZ_TRACE=1 in the environment: print every datagram in and out (to read a finding).
bool trace() {
  static const bool on = std::getenv("FUZZ_TRACE") != nullptr;
  return on;
}

// The peer's stream: byte at offset i (a function, so any segment can carry the truth).
std::uint8_t stream_byte(std::uint64_t i) { return static_cast<std::uint8_t>((i * 131 + (i >> 8) * 7 + 1) & 0xFF); }

using Input = fuzz::ByteSource;

struct Harness {
  Endpoint local, peer;
  netstack::TcpReceiver rx;
  rto::Instant now{};
  Bytes delivered;
  std::optional<std::uint32_t> last_ack;

  explicit Harness(netstack::ReceiverConfig c) : local(c.local), peer(), rx(std::move(c)) {
    peer.address = netstack::IpAddress::v4(198, 18, 0, 1);
    peer.port = 40000;
  }

  Bytes segment(Input& in) {
    wire::TcpHeader h;
    const std::uint8_t flags = in.u8();
    h.flags = flags;
    const std::uint16_t off = in.u16();  // stream offset of the first payload byte
    const std::size_t len = in.u8() % 4 == 0 ? in.u8() * 8u : in.u8();
    const std::uint8_t opt = in.u8();
    const bool syn = (flags & wire::kSyn) != 0;
    h.seq = syn ? kPeerIsn : kPeerIsn + 1 + off;
    h.ack = 0x20000000u + 1 + in.u16();
    h.window = in.u16();
    if (opt & 1) h.options.mss = static_cast<std::uint16_t>(536 + opt * 4);
    if (opt & 2) h.options.window_scale = static_cast<std::uint8_t>(opt >> 4);
    if (opt & 4) h.options.sack_permitted = true;
    if (opt & 8) h.options.tsval = 1000u + static_cast<std::uint32_t>(now.time_since_epoch().count() / 1000), h.options.tsecr = in.u16();
    Bytes payload(len);
    const std::uint64_t first = syn ? 0 : off;
    for (std::size_t i = 0; i < len; ++i) payload[i] = stream_byte(first + i);
    return netstack::encode_segment(peer, local, h, payload);
  }

  void deliver(const Bytes& d, bool may_deliver) {
    const std::uint64_t before = rx.stats().bytes_delivered;
    if (trace()) {
      const auto p = netstack::parse_segment(d);
      if (const auto* s = std::get_if<netstack::ParsedSegment>(&p))
        std::fprintf(stderr, "t=%lld in: flags %02x seq off %d len %zu ack %u\n",
                     static_cast<long long>(now.time_since_epoch().count()), s->tcp.flags,
                     static_cast<int>(s->tcp.seq - (kPeerIsn + 1)), s->payload.size(), s->tcp.ack);
      else
        std::fprintf(stderr, "in: %zu bad bytes\n", d.size());
    }
    rx.on_datagram(d, now);
    if (!may_deliver) fuzz::check(rx.stats().bytes_delivered == before, "a bad datagram delivers nothing");
    drain_output();
  }

  void drain_output() {
    for (const Bytes& d : rx.take_output()) {
      const auto parsed = netstack::parse_segment(d);
      fuzz::check(std::holds_alternative<netstack::ParsedSegment>(parsed), "the receiver sends valid datagrams");
      const auto& s = std::get<netstack::ParsedSegment>(parsed);
      fuzz::check(s.src == local && s.dst == peer, "the receiver sends from its address to the peer");
      if (trace())
        std::fprintf(stderr, "  out: flags %02x ack off %d win %u\n", s.tcp.flags,
                     static_cast<int>(s.tcp.ack - (kPeerIsn + 1)), s.tcp.window);
      if (!s.tcp.has(wire::kAck) || s.tcp.has(wire::kRst)) continue;  // a reset may answer any SEQ
      const std::uint32_t ack_off = s.tcp.ack - (kPeerIsn + 1);  // stream offset acknowledged (mod 2^32)
      fuzz::check(ack_off <= rx.stats().bytes_delivered + 1, "an ACK covers no more than what was delivered (and a FIN)");
      if (last_ack) fuzz::check(static_cast<std::int32_t>(s.tcp.ack - *last_ack) >= 0, "the cumulative ACK never moves back");
      last_ack = s.tcp.ack;
    }
  }

  void read(std::size_t max) {
    const Bytes got = rx.read(max);
    if (trace()) std::fprintf(stderr, "read(%zu): %zu bytes at %zu\n", max, got.size(), delivered.size());
    for (std::uint8_t b : got) {
      fuzz::check(b == stream_byte(delivered.size()), "bytes reach the application once and in order");
      delivered.push_back(b);
    }
  }
};

void check_codec_round_trip(std::span<const std::uint8_t> raw) {
  const auto parsed = netstack::parse_segment(raw);
  const auto* s = std::get_if<netstack::ParsedSegment>(&parsed);
  if (s == nullptr) return;
  if (s->payload.size() > 0xFFFF - 60 - 40) return;
  const Bytes again = netstack::encode_segment(s->src, s->dst, s->tcp, s->payload);
  const auto back = netstack::parse_segment(again);
  const auto* b = std::get_if<netstack::ParsedSegment>(&back);
  fuzz::check(b != nullptr, "a re-encoded datagram parses");
  fuzz::check(b->src == s->src && b->dst == s->dst && b->tcp.seq == s->tcp.seq && b->tcp.ack == s->tcp.ack &&
                  b->tcp.flags == s->tcp.flags && b->tcp.window == s->tcp.window &&
                  std::equal(b->payload.begin(), b->payload.end(), s->payload.begin(), s->payload.end()),
              "a re-encoded datagram carries the same header and payload");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{data, size};
  const std::uint8_t conf = in.u8();
  netstack::ReceiverConfig c;
  c.local.address = netstack::IpAddress::v4(198, 18, 0, 2);
  c.local.port = 5001;
  c.consume_immediately = (conf & 1) != 0;
  c.delayed_ack = (conf & 2) != 0;
  c.sack = (conf & 4) != 0;
  c.timestamps = (conf & 8) != 0;
  c.receive_buffer = (conf & 16) != 0 ? 4096 : 256 * 1024;
  Harness h(c);
  for (std::size_t op = 0; op < kMaxOps && in.n > 0; ++op) {
    switch (in.u8() % 6) {
      case 0: case 1:
        h.deliver(h.segment(in), true);
        break;
      case 2: {  // one byte of a valid datagram changed: the checksum or a header check must catch it
        Bytes d = h.segment(in);
        const std::size_t at = in.u16() % d.size();
        const std::uint8_t x = in.u8();
        d[at] ^= x == 0 ? 1 : x;
        const bool still_valid = std::holds_alternative<netstack::ParsedSegment>(netstack::parse_segment(d));
        h.deliver(d, still_valid);  // a change in IP fields outside the checksums can leave it valid
        break;
      }
      case 3: {  // raw bytes: anything that does not parse must deliver nothing
        const std::size_t len = in.u8();
        Bytes d(in.p, in.p + std::min(len, in.n));
        in.p += d.size(), in.n -= d.size();
        check_codec_round_trip(d);
        if (std::holds_alternative<netstack::ParsedSegment>(netstack::parse_segment(d))) break;  // could carry other bytes
        h.deliver(d, false);
        break;
      }
      case 4:
        h.now += std::chrono::milliseconds{in.u16() % 4096};
        h.rx.on_tick(h.now);
        h.drain_output();
        break;
      case 5:
        h.read(in.u16());
        break;
    }
    fuzz::check(h.rx.window() <= c.receive_buffer, "the window never exceeds the receive buffer");
  }
  h.read(SIZE_MAX);
  fuzz::check(h.delivered.size() == h.rx.stats().bytes_delivered, "bytes_delivered counts what the application got");
  return 0;
}
