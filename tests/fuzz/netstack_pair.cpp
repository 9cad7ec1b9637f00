// Fuzz harness: a netstack TcpSender and TcpReceiver talking through a
// network the input controls. Every datagram either side emits goes into a
// queue for its direction; the input picks which queued datagram to deliver
// next (reordering), drops some (loss), delivers others twice (duplication)
// or with a byte changed (corruption), advances the clock (the timers fire)
// and reads at the receiver. Byte 0 picks the options (timestamps, SACK,
// delayed ACKs, a small receive buffer, the Linux RTO profile, a small MSS).
// When the input ends, the network heals: everything is delivered in order,
// without loss, and each side's timers run, until the connection finishes.
// Invariants:
//  - every byte the application wrote reaches the receiving application once
//    and in order: what read() returns is always a prefix of the written
//    stream, and bytes_delivered counts it;
//  - the receiver never acknowledges more than was sent, and the sender's
//    SND.UNA never moves back nor past SND.NXT;
//  - after healing, a connection that did not give up (RFC 1122 R2 limits)
//    delivers the whole stream and the FIN, and the sender sees it all
//    acknowledged;
//  - a corrupted datagram that no longer parses changes nothing the
//    application can see.
#include <netstack/receiver.hpp>
#include <netstack/segment_codec.hpp>
#include <netstack/sender.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <vector>

#include "common/byte_source.hpp"
#include "common/memory_file.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;
using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr std::size_t kMaxOps = 1024;
constexpr std::size_t kMaxQueued = 256;      // per direction: older datagrams are dropped (a full router queue)
constexpr std::size_t kHealSteps = 20'000;   // event loop steps once the network is healed
constexpr std::uint32_t kSenderIss = 0xFFFFFF00;  // sequence numbers wrap 2^32 within the first 256 bytes

using Input = fuzz::ByteSource;

// The application's stream: byte i (a function, so any prefix can be checked).
std::uint8_t stream_byte(std::uint64_t i) { return static_cast<std::uint8_t>((i * 167 + (i >> 9) * 13 + 5) & 0xFF); }

struct Pair {
  netstack::TcpSender tx;
  netstack::TcpReceiver rx;
  std::deque<Bytes> to_rx, to_tx;  // in flight
  rto::Instant now{};
  std::uint64_t written = 0, read_total = 0;
  bool closed = false;
  std::uint32_t last_una;

  Pair(netstack::SenderConfig s, netstack::ReceiverConfig r) : tx(std::move(s)), rx(std::move(r)), last_una(kSenderIss) {}

  void collect() {
    for (Bytes& d : tx.take_output()) to_rx.push_back(std::move(d));
    for (Bytes& d : rx.take_output()) to_tx.push_back(std::move(d));
    while (to_rx.size() > kMaxQueued) to_rx.pop_front();
    while (to_tx.size() > kMaxQueued) to_tx.pop_front();
  }

  void check_sender() {
    const std::uint32_t una = tx.snd_una(), nxt = tx.snd_nxt();
    fuzz::check(static_cast<std::int32_t>(una - last_una) >= 0, "SND.UNA never moves back");
    fuzz::check(static_cast<std::int32_t>(nxt - una) >= 0, "SND.UNA never passes SND.NXT");
    last_una = una;
    fuzz::check(rx.stats().bytes_delivered <= written, "the receiver delivers no more than was written");
  }

  void write(std::size_t len) {
    if (closed) return;
    Bytes b(len);
    for (std::size_t i = 0; i < len; ++i) b[i] = stream_byte(written + i);
    written += len;
    tx.write(b, now);
    collect();
  }

  void read(std::size_t max) {
    for (std::uint8_t b : rx.read(max)) {
      fuzz::check(b == stream_byte(read_total), "bytes reach the application once and in order");
      ++read_total;
    }
    fuzz::check(read_total <= rx.stats().bytes_delivered, "read() returns only delivered bytes");
    collect();
  }

  // Delivers queued datagram `i` of one direction (taking it out unless `keep`),
  // with byte `at` xored with `x` when x != 0.
  void deliver(bool forward, std::size_t i, bool keep, std::size_t at, std::uint8_t x) {
    std::deque<Bytes>& q = forward ? to_rx : to_tx;
    if (q.empty()) return;
    i %= q.size();
    Bytes d = q[i];
    if (!keep) q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
    if (x != 0 && !d.empty()) d[at % d.size()] ^= x;
    const bool parses = std::holds_alternative<netstack::ParsedSegment>(netstack::parse_segment(d));
    const std::uint64_t delivered = rx.stats().bytes_delivered;
    const std::size_t readable = rx.readable();
    if (forward)
      rx.on_datagram(d, now);
    else
      tx.on_datagram(d, now);
    if (!parses) {
      fuzz::check(rx.stats().bytes_delivered == delivered && rx.readable() == readable,
                  "a datagram that does not parse delivers nothing");
    }
    collect();
    check_sender();
  }

  void tick(microseconds dt) {
    now += dt;
    tx.on_tick(now);
    rx.on_tick(now);
    collect();
    check_sender();
  }

  // The next time either side needs on_tick(), or nullopt.
  std::optional<rto::Instant> next_deadline() const {
    const auto a = tx.next_deadline(), b = rx.next_deadline();
    if (a && b) return std::min(*a, *b);
    return a ? a : b;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{data, size};
  const std::uint8_t conf = in.u8();
  netstack::SenderConfig s;
  s.local = {netstack::IpAddress::v4(198, 18, 0, 1), 40000};
  s.remote = {netstack::IpAddress::v4(198, 18, 0, 2), 5001};
  s.iss = kSenderIss;
  s.timestamps = (conf & 1) != 0;
  s.sack_permitted = (conf & 2) != 0;
  s.mss = (conf & 32) != 0 ? 100 : 1460;
  if (conf & 64) s.rto = rto::Config::linux_default();
  netstack::ReceiverConfig r;
  r.local = s.remote;
  r.timestamps = s.timestamps;
  r.sack = s.sack_permitted;
  r.delayed_ack = (conf & 4) != 0;
  r.consume_immediately = (conf & 8) != 0;
  r.receive_buffer = (conf & 16) != 0 ? 2048 : 64 * 1024;
  if (conf & 128) r.rto = rto::Config::linux_default();
  Pair p(s, r);
  p.tx.connect(p.now);
  p.collect();

  for (std::size_t op = 0; op < kMaxOps && in.n > 0; ++op) {
    const std::uint8_t what = in.u8();
    switch (what % 10) {
      case 0: p.write(in.u8() % 4 == 0 ? in.u16() % 8192 : in.u8()); break;
      case 1: case 2: case 3: {  // deliver one datagram, any of those queued (reordering)
        const bool fwd = (what & 16) != 0;
        p.deliver(fwd, in.u8(), false, 0, 0);
        break;
      }
      case 4: {  // loss
        auto& q = (what & 16) != 0 ? p.to_rx : p.to_tx;
        if (!q.empty()) q.erase(q.begin() + static_cast<std::ptrdiff_t>(in.u8() % q.size()));
        break;
      }
      case 5:  // duplication: deliver a copy, keep the original queued
        p.deliver((what & 16) != 0, in.u8(), true, 0, 0);
        break;
      case 6: {  // corruption of one byte
        const std::size_t i = in.u8();
        const std::size_t at = in.u16();
        const std::uint8_t x = in.u8();
        p.deliver((what & 16) != 0, i, false, at, x == 0 ? 1 : x);
        break;
      }
      case 7: p.tick(microseconds{in.u16()} * ((what & 16) != 0 ? 1000 : 1)); break;
      case 8: p.read(in.u16()); break;
      case 9:
        if ((what & 16) != 0 && !p.closed) {
          p.closed = true;
          p.tx.close(p.now);
          p.collect();
        }
        break;
    }
  }

  // Heal: close if not done yet, then deliver everything in order, read it,
  // and run the timers until both sides are done.
  if (!p.closed) {
    p.closed = true;
    p.tx.close(p.now);
    p.collect();
  }
  for (std::size_t step = 0; step < kHealSteps; ++step) {
    p.read(SIZE_MAX);
    if (!p.to_rx.empty() || !p.to_tx.empty()) {
      p.deliver(!p.to_rx.empty(), 0, false, 0, 0);
      continue;
    }
    if (p.tx.finished() && p.rx.next_deadline() == std::nullopt) break;
    const auto next = p.next_deadline();
    if (!next) break;
    p.tick(*next > p.now ? *next - p.now : microseconds{0});
  }
  p.read(SIZE_MAX);
  const netstack::SenderState st = p.tx.state();
  if (st == netstack::SenderState::Failed || st == netstack::SenderState::Reset) return 0;  // gave up while lossy
  fuzz::check(p.tx.finished(), "after healing, the connection finishes");
  fuzz::check(p.tx.all_acked(), "after healing, the sender sees everything acknowledged");
  fuzz::check(p.read_total == p.written && p.rx.stats().bytes_delivered == p.written,
              "after healing, the whole stream is delivered once");
  fuzz::check(p.rx.peer_closed(), "after healing, the receiver has the FIN");
  return 0;
}
