// replay-gen: writes the replay benchmark's capture, a classic pcap
// (Ethernet, IPv4, TCP with RFC 7323 timestamps, headers only: snaplen 78)
// of many interleaved bulk transfers captured at their senders, the way a
// Linux host's tcpdump sees them:
//  - every connection: SYN, SYN-ACK, ACK, then rounds of 2 data segments
//    (1448 bytes each) answered one RTT later by a cumulative ACK, FIN both ways;
//  - a round is lost with probability --loss-permille / 1000: 4 segments, the
//    first lost, 3 SACKed duplicate ACKs, a fast retransmit; one loss in
//    --rto-every is a tail loss instead, resent on its 200 ms + RTT timer;
//  - 1 kHz TSvals from a per-connection offset (RFC 7323 5.4, Linux);
//  - the clients share one address per 60000 connections (198.18.0.1 first),
//    each connection with its own TSval offset: many hosts behind one
//    address, as a NAT shows them.
// Usage: replay-gen OUT.pcap [--flows N] [--packets M] [--loss-permille L] [--seed S]
//                   [--syn-only | --mid-stream] [--span S] [--ipv6] [--no-timestamps] [--reorder-permille R]
// Writes about M packets in about M / N per connection; prints what it wrote.
// The shapes:
//   --syn-only: N connections of one SYN each, nothing else (the many-flows
//     case: the per-connection footprint alone);
//   --mid-stream: no handshake in the capture, each connection's first packet
//     is data (a capture started while the transfers ran);
//   --span S: the connections start within the first S seconds (default 1;
//     with --syn-only over more than the idle split, 300 s, the first ones are
//     over before the last begin: a SYN flood);
//   --ipv6: IPv6 headers (fd00::/16 clients, fd01:: server);
//   --no-timestamps: no TCP option but SACK;
//   --reorder-permille R: a round's two segments arrive swapped (a duplicate
//     ACK SACKs the second, then both are acknowledged).

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::uint32_t kMss = 1448;          // payload of a full segment (1500 MTU, timestamps)
constexpr std::uint32_t kSnaplen = 78;        // Ethernet 14 + IPv4 20 + TCP 44 (timestamps, one SACK block)
constexpr std::uint32_t kSnaplen6 = 98;       // the same over IPv6 (40-byte header)
constexpr std::int64_t kRttMinUs = 2'000;     // per-connection RTTs are drawn from [min, max]
constexpr std::int64_t kRttMaxUs = 40'000;
constexpr std::int64_t kRtoFloorUs = 200'000;  // Linux rto_min: a tail loss is resent after it + RTT
constexpr std::int64_t kGapUs = 12;            // between back-to-back segments (1 Gbit/s: 1.5 KB = 12 us)
constexpr std::uint64_t kStartSpreadS = 1;  // connections start within the first second (--span)
constexpr std::int64_t kEpochUs = 1'795'000'000'000'000;  // 2026-11-18, as the shared captures

struct Options {
  std::string out;
  std::uint64_t flows = 2000, packets = 4'000'000, loss_permille = 10, rto_every = 10, seed = 1;
  bool syn_only = false;
  bool mid_stream = false;
  bool ipv6 = false;         // IPv6 headers (fd00::/64 clients, fd01::1 server)
  bool timestamps = true;    // RFC 7323 timestamps on every segment (--no-timestamps: none)
  std::uint64_t reorder_permille = 0;   // rounds whose 2 segments arrive swapped (a SACKed dupack)
  std::uint64_t span_s = kStartSpreadS;
};

// One packet waiting to be written.
struct Pkt {
  std::int64_t t_us;
  bool from_client;
  std::uint8_t flags;
  std::uint32_t seq, ack, len, tsval, tsecr;
  std::array<std::uint32_t, 4> sack{};  // left, right of up to 2 blocks
  std::uint8_t sack_blocks = 0;
};

constexpr std::uint8_t kFin = 0x01, kSyn = 0x02, kPsh = 0x08, kAck = 0x10;

struct Flow {
  std::uint32_t client_ip, server_ip;
  std::uint16_t client_port, server_port;
  std::int64_t rtt_us;
  std::uint32_t cts_off, sts_off;  // TSval offsets (1 kHz)
  std::uint32_t ciss, siss;
  std::uint64_t budget;            // packets still to write (approximately)
  std::vector<Pkt> queue;          // this flow's next packets, time order
  std::size_t next = 0;
  std::uint32_t snd = 0;           // next relative sequence number of the client's data
  std::uint64_t losses = 0;
  bool done = false;
};

std::uint32_t ts_at(std::int64_t t_us, std::uint32_t off) { return static_cast<std::uint32_t>(t_us / 1000) + off; }

// Fills the flow's queue with its next round (after the handshake at `t`).
void next_round(Flow& f, std::int64_t t, std::mt19937_64& rng, const Options& o) {
  f.queue.clear();
  f.next = 0;
  auto data = [&](std::int64_t at, std::uint32_t rel, std::uint32_t len) {
    f.queue.push_back(Pkt{at, true, static_cast<std::uint8_t>(kAck | kPsh), f.ciss + 1 + rel, f.siss + 1, len,
                          ts_at(at, f.cts_off), ts_at(at - f.rtt_us / 2, f.sts_off)});
  };
  auto ack = [&](std::int64_t at, std::uint32_t rel_ack) {
    f.queue.push_back(Pkt{at, false, kAck, f.siss + 1, f.ciss + 1 + rel_ack, 0, ts_at(at, f.sts_off),
                          ts_at(at - f.rtt_us, f.cts_off)});
  };
  if (f.budget <= 4) {  // close: FIN from the client, FIN-ACK, last ACK
    f.queue.push_back(Pkt{t, true, static_cast<std::uint8_t>(kFin | kAck), f.ciss + 1 + f.snd, f.siss + 1, 0,
                          ts_at(t, f.cts_off), ts_at(t - f.rtt_us, f.sts_off)});
    const std::int64_t t2 = t + f.rtt_us;
    f.queue.push_back(Pkt{t2, false, static_cast<std::uint8_t>(kFin | kAck), f.siss + 1, f.ciss + 2 + f.snd, 0,
                          ts_at(t2, f.sts_off), ts_at(t, f.cts_off)});
    f.queue.push_back(Pkt{t2 + kGapUs, true, kAck, f.ciss + 2 + f.snd, f.siss + 2, 0, ts_at(t2 + kGapUs, f.cts_off),
                          ts_at(t2, f.sts_off)});
    f.done = true;
    f.budget = 0;
    return;
  }
  const bool lost = rng() % 1000 < o.loss_permille;
  if (!lost) {
    data(t, f.snd, kMss);
    data(t + kGapUs, f.snd + kMss, kMss);
    if (rng() % 1000 < o.reorder_permille && f.budget > 4) {
      // Reordered on the way: the second arrives first, a duplicate ACK
      // SACKs it, then the first arrives and both are acknowledged.
      const std::int64_t at = t + kGapUs + f.rtt_us;
      f.queue.push_back(Pkt{at, false, kAck, f.siss + 1, f.ciss + 1 + f.snd, 0, ts_at(at, f.sts_off),
                            ts_at(at - f.rtt_us, f.cts_off),
                            {f.ciss + 1 + f.snd + kMss, f.ciss + 1 + f.snd + 2 * kMss, 0, 0}, 1});
      f.snd += 2 * kMss;
      ack(at + 2 * kGapUs, f.snd);
      f.budget -= 4;
      return;
    }
    f.snd += 2 * kMss;
    ack(t + kGapUs + f.rtt_us, f.snd);
    f.budget -= 3;
    return;
  }
  ++f.losses;
  const std::uint32_t base = f.snd;
  if (f.losses % o.rto_every == 0) {  // tail loss: one segment, resent on the RTO
    data(t, base, kMss);
    const std::int64_t rto_at = t + kRtoFloorUs + f.rtt_us;
    data(rto_at, base, kMss);
    f.snd += kMss;
    ack(rto_at + f.rtt_us, f.snd);
    f.budget -= std::min<std::uint64_t>(f.budget, 3);
    return;
  }
  for (std::uint32_t i = 0; i < 4; ++i) data(t + i * kGapUs, base + i * kMss, kMss);
  // Segments 2..4 arrive: each triggers a duplicate ACK SACKing what came.
  for (std::uint32_t i = 1; i < 4; ++i) {
    const std::int64_t at = t + i * kGapUs + f.rtt_us;
    f.queue.push_back(Pkt{at, false, kAck, f.siss + 1, f.ciss + 1 + base, 0, ts_at(at, f.sts_off),
                          ts_at(at - f.rtt_us, f.cts_off),
                          {f.ciss + 1 + base + kMss, f.ciss + 1 + base + (i + 1) * kMss, 0, 0}, 1});
  }
  const std::int64_t fr = t + 3 * kGapUs + f.rtt_us + kGapUs;
  data(fr, base, kMss);
  f.snd += 4 * kMss;
  ack(fr + f.rtt_us, f.snd);
  f.budget -= std::min<std::uint64_t>(f.budget, 9);
}

void handshake(Flow& f, std::int64_t t) {
  f.queue.clear();
  f.next = 0;
  Pkt syn{t, true, kSyn, f.ciss, 0, 0, ts_at(t, f.cts_off), 0};
  Pkt synack{t + f.rtt_us, false, static_cast<std::uint8_t>(kSyn | kAck), f.siss, f.ciss + 1, 0,
             ts_at(t + f.rtt_us, f.sts_off), ts_at(t, f.cts_off)};
  Pkt ack{t + f.rtt_us + kGapUs, true, kAck, f.ciss + 1, f.siss + 1, 0, ts_at(t + f.rtt_us + kGapUs, f.cts_off),
          ts_at(t + f.rtt_us, f.sts_off)};
  f.queue = {syn, synack, ack};
  f.budget -= std::min<std::uint64_t>(f.budget, 3);
}

std::uint16_t ip_checksum(const unsigned char* p, std::size_t n) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < n; i += 2) sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

void put16(unsigned char* p, std::uint32_t v) {
  p[0] = static_cast<unsigned char>(v >> 8);
  p[1] = static_cast<unsigned char>(v);
}
void put32(unsigned char* p, std::uint32_t v) {
  put16(p, v >> 16);
  put16(p + 2, v);
}
void le32(unsigned char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Writes one record: pcap record header, Ethernet, IPv4 or IPv6, TCP with options.
void write_packet(std::FILE* out, const Flow& f, const Pkt& k, std::uint16_t ip_id, const Options& o) {
  const std::uint32_t opt_len = (o.timestamps ? 12 : 0) + (k.sack_blocks ? 4 + 8 * k.sack_blocks : 0);
  const std::uint32_t tcp_len = 20 + opt_len;
  const std::uint32_t ip_len = o.ipv6 ? 40 : 20;
  const std::uint32_t frame_len = 14 + ip_len + tcp_len + k.len;
  const std::uint32_t cap = std::min(frame_len, 14 + ip_len + tcp_len);
  std::array<unsigned char, 16 + 14 + 40 + 60> b{};
  const std::int64_t t = kEpochUs + k.t_us;
  le32(&b[0], static_cast<std::uint32_t>(t / 1'000'000));
  le32(&b[4], static_cast<std::uint32_t>(t % 1'000'000));
  le32(&b[8], cap);
  le32(&b[12], frame_len);
  unsigned char* e = &b[16];
  const std::uint8_t cmac = k.from_client ? 1 : 2;
  const std::uint8_t smac = k.from_client ? 2 : 1;
  e[0] = 0x02, e[5] = smac, e[6] = 0x02, e[11] = cmac;  // locally administered MACs
  unsigned char* ip = e + 14;
  if (o.ipv6) {
    // fd00::<client ip> and fd01::<server ip>: the IPv4 numbering in the low bits.
    put16(e + 12, 0x86DD);
    ip[0] = 0x60;
    put16(ip + 4, tcp_len + k.len);
    ip[6] = 6;    // next header: TCP
    ip[7] = 64;   // hop limit
    const auto addr = [](unsigned char* a, std::uint8_t net, std::uint32_t v4) {
      a[0] = 0xfd, a[1] = net;
      put32(a + 12, v4);
    };
    addr(ip + 8, k.from_client ? 0 : 1, k.from_client ? f.client_ip : f.server_ip);
    addr(ip + 24, k.from_client ? 1 : 0, k.from_client ? f.server_ip : f.client_ip);
  } else {
    put16(e + 12, 0x0800);
    ip[0] = 0x45;
    put16(ip + 2, 20 + tcp_len + k.len);
    put16(ip + 4, ip_id);
    put16(ip + 6, 0x4000);  // DF
    ip[8] = 64;
    ip[9] = 6;
    put32(ip + 12, k.from_client ? f.client_ip : f.server_ip);
    put32(ip + 16, k.from_client ? f.server_ip : f.client_ip);
    put16(ip + 10, ip_checksum(ip, 20));
  }
  unsigned char* tcp = ip + ip_len;
  put16(tcp, k.from_client ? f.client_port : f.server_port);
  put16(tcp + 2, k.from_client ? f.server_port : f.client_port);
  put32(tcp + 4, k.seq);
  put32(tcp + 8, k.ack);
  tcp[12] = static_cast<unsigned char>((tcp_len / 4) << 4);
  tcp[13] = k.flags;
  put16(tcp + 14, 0xffff);
  unsigned char* opt = tcp + 20;
  if (o.timestamps) {
    opt[0] = 1, opt[1] = 1, opt[2] = 8, opt[3] = 10;  // NOP NOP TS
    put32(opt + 4, k.tsval);
    put32(opt + 8, k.tsecr);
    opt += 12;
  }
  if (k.sack_blocks) {
    opt[0] = 1, opt[1] = 1, opt[2] = 5, opt[3] = static_cast<unsigned char>(2 + 8 * k.sack_blocks);
    for (std::uint8_t i = 0; i < k.sack_blocks; ++i) {
      put32(opt + 4 + 8 * i, k.sack[2 * i]);
      put32(opt + 8 + 8 * i, k.sack[2 * i + 1]);
    }
  }
  std::fwrite(b.data(), 1, 16 + cap, out);
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto num = [&](std::uint64_t& v) {
      if (i + 1 >= argc) return false;
      v = std::strtoull(argv[++i], nullptr, 10);
      return true;
    };
    if (a == "--flows") { if (!num(o.flows)) return false; }
    else if (a == "--packets") { if (!num(o.packets)) return false; }
    else if (a == "--loss-permille") { if (!num(o.loss_permille)) return false; }
    else if (a == "--seed") { if (!num(o.seed)) return false; }
    else if (a == "--syn-only") o.syn_only = true;
    else if (a == "--mid-stream") o.mid_stream = true;
    else if (a == "--ipv6") o.ipv6 = true;
    else if (a == "--no-timestamps") o.timestamps = false;
    else if (a == "--reorder-permille") { if (!num(o.reorder_permille)) return false; }
    else if (a == "--span") { if (!num(o.span_s)) return false; }
    else if (a.starts_with("--")) return false;
    else o.out = std::string(a);
  }
  return !o.out.empty() && !(o.syn_only && o.mid_stream) && o.flows > 0 && o.flows < 60000 * 250 && (o.syn_only || o.packets >= o.flows * 8) &&
         o.loss_permille <= 1000 && o.reorder_permille <= 1000 && o.span_s > 0 &&
         o.span_s <= 86'400;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: replay-gen OUT.pcap [--flows N (default 2000)] [--packets M (default 4000000, >= 8 N)] "
                 "[--loss-permille L (default 10)] [--seed S] [--syn-only | --mid-stream] [--span S (default 1, at most 86400)]\n"
                 "       [--ipv6] [--no-timestamps] [--reorder-permille R (default 0)]\n");
    return 2;
  }
  std::FILE* out = std::fopen(o.out.c_str(), "wb");
  if (!out) {
    std::perror(o.out.c_str());
    return 2;
  }
  static char buf[1 << 20];
  std::setvbuf(out, buf, _IOFBF, sizeof buf);
  unsigned char gh[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0};  // pcap 2.4, microseconds, little endian
  le32(gh + 16, o.ipv6 ? kSnaplen6 : kSnaplen);
  le32(gh + 20, 1);  // LINKTYPE_ETHERNET
  std::fwrite(gh, 1, sizeof gh, out);

  std::mt19937_64 rng(o.seed);
  std::vector<Flow> flows(o.flows);
  using Next = std::pair<std::int64_t, std::size_t>;  // (time of the flow's next packet, flow)
  std::priority_queue<Next, std::vector<Next>, std::greater<>> due;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    Flow& f = flows[i];
    f.client_ip = 0xC6120000u | static_cast<std::uint32_t>(1 + i / 60000);  // 198.18.x.y clients
    f.server_ip = 0xC6130001u;                                              // 198.19.0.1
    f.client_port = static_cast<std::uint16_t>(1024 + i % 60000);
    f.server_port = 5001;
    f.rtt_us = kRttMinUs + static_cast<std::int64_t>(rng() % (kRttMaxUs - kRttMinUs));
    f.cts_off = static_cast<std::uint32_t>(rng());
    f.sts_off = static_cast<std::uint32_t>(rng());
    f.ciss = static_cast<std::uint32_t>(rng());
    f.siss = static_cast<std::uint32_t>(rng());
    f.budget = o.packets / o.flows;
    const auto start = static_cast<std::int64_t>(rng() % (o.span_s * 1'000'000));
    if (o.mid_stream)
      next_round(f, start, rng, o);  // captured mid-stream: the first packet is data
    else
      handshake(f, start);
    if (o.syn_only) {
      f.queue.resize(1);
      f.done = true;
    }
    due.emplace(f.queue[0].t_us, i);
  }
  std::uint64_t written = 0;
  std::uint16_t ip_id = 1;
  std::int64_t last_t = 0;
  while (!due.empty()) {
    const auto [t, i] = due.top();
    due.pop();
    Flow& f = flows[i];
    const Pkt k = f.queue[f.next++];
    write_packet(out, f, k, ip_id++, o);
    ++written;
    last_t = std::max(last_t, k.t_us);
    if (f.next == f.queue.size()) {
      if (f.done) continue;
      next_round(f, k.t_us + kGapUs, rng, o);
    }
    due.emplace(f.queue[f.next].t_us, i);
  }
  if (std::fclose(out) != 0) {
    std::perror(o.out.c_str());
    return 2;
  }
  std::printf("replay-gen: %s: %llu packets, %llu connections, %.1f s of capture time\n", o.out.c_str(),
              static_cast<unsigned long long>(written), static_cast<unsigned long long>(o.flows), last_t / 1e6);
  return 0;
}
