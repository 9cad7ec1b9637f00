#include "storm.hpp"

#include <cmath>
#include <memory>
#include <queue>
#include <random>
#include <variant>

#include "netstack/pcap_writer.hpp"
#include "netstack/segment_codec.hpp"
#include "netstack/sender.hpp"
#include "netstack/sim_link.hpp"

namespace storm {

using std::chrono::microseconds;
using std::chrono::seconds;

std::vector<Strategy> default_strategies() {
  const microseconds base = seconds{1}, cap = seconds{60};
  return {
      {"exponential", rto::BackoffPolicy::exponential(base, cap), false},
      {"full-jitter", rto::BackoffPolicy::full_jitter(base, cap), false},
      {"equal-jitter", rto::BackoffPolicy::equal_jitter(base, cap), false},
      {"decorrelated", rto::BackoffPolicy::decorrelated_jitter(base, cap), false},
      {"grpc", rto::BackoffPolicy::grpc_connection(), true},
  };
}

std::uint32_t StormResult::peak() const {
  std::uint32_t p = 0;
  for (std::size_t b = 1; b < syns_per_bin.size(); ++b) p = std::max(p, syns_per_bin[b]);
  return p;
}

double StormResult::mean() const {
  if (syns_per_bin.size() < 2) return 0.0;
  double sum = 0.0;
  for (std::size_t b = 1; b < syns_per_bin.size(); ++b) sum += syns_per_bin[b];
  return sum / static_cast<double>(syns_per_bin.size() - 1);
}

double StormResult::cv() const {
  const double m = mean();
  if (m == 0.0) return 0.0;
  double ss = 0.0;
  for (std::size_t b = 1; b < syns_per_bin.size(); ++b) ss += (syns_per_bin[b] - m) * (syns_per_bin[b] - m);
  return std::sqrt(ss / static_cast<double>(syns_per_bin.size() - 1)) / m;
}

std::uint32_t StormResult::peak_after(std::chrono::microseconds opens_at, std::chrono::microseconds bin) const {
  std::uint32_t p = 0;
  for (auto b = static_cast<std::size_t>(opens_at / bin); b < syns_per_bin.size(); ++b) p = std::max(p, syns_per_bin[b]);
  return p;
}

namespace {

const netstack::Endpoint kServer{netstack::IpAddress::v4(198, 18, 0, 2), 5001};

// Client i lives at 198.18.1.1 + i (198.18.1.1 ... 198.18.255.x).
netstack::IpAddress client_address(unsigned i) {
  const unsigned n = 256 + 1 + i;  // 198.18.1.1 is offset 257 in 198.18.0.0/16
  return netstack::IpAddress::v4(198, 18, static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n & 0xff));
}
std::optional<unsigned> client_index(const netstack::IpAddress& a) {
  const unsigned n = (unsigned{a.bytes[2]} << 8) | a.bytes[3];
  if (a.version != 4 || a.bytes[0] != 198 || a.bytes[1] != 18 || n < 257) return std::nullopt;
  return n - 257;
}

struct Client {
  netstack::Endpoint local;
  std::unique_ptr<netstack::TcpSender> sender;  // the current attempt, if any
  std::optional<rto::Backoff> backoff;
  std::optional<rto::ConnectionBackoff> grpc;
  std::mt19937_64 rng;
  rto::Instant next_start{};
  bool connected = false;
  unsigned attempts = 0;
  std::optional<rto::Instant> wake;  // what the queue holds for it
};

struct Wake {
  rto::Instant t;
  unsigned client;
  bool operator>(const Wake& o) const { return t != o.t ? t > o.t : client > o.client; }
};

class Sim {
 public:
  Sim(const StormConfig& c, const Strategy& s)
      : cfg_(c), server_(kServer, c.mode, rto::Instant{c.outage}),
        up_(link(c, 11)), down_(link(c, 13)) {
    if (c.pcap_path) pcap_ = std::make_unique<netstack::PcapWriter>(*c.pcap_path, c.pcap_epoch);
    clients_.resize(c.connections);
    for (unsigned i = 0; i < c.connections; ++i) {
      Client& cl = clients_[i];
      cl.local = {client_address(i), 0};
      cl.rng.seed(c.seed * 1'000'003u + i);
      if (s.grpc) cl.grpc.emplace(s.policy);
      else cl.backoff.emplace(s.policy);
      schedule(i, rto::Instant{});
    }
    result_.strategy = s.name;
    result_.mode = c.mode;
  }

  StormResult run() {
    const rto::Instant horizon{cfg_.horizon};
    unsigned connected = 0;
    rto::Instant last_connect{};
    while (connected < clients_.size()) {
      const auto t = next_event();
      if (!t || *t > horizon) break;
      now_ = *t;
      std::vector<unsigned> touched;
      for (auto& d : up_.deliver_due(now_)) {
        count_syn(d);
        if (pcap_) pcap_->write(now_, d);
        server_.on_datagram(d, now_);
      }
      for (auto& d : down_.deliver_due(now_)) {
        const auto p = netstack::parse_segment(d);
        const auto* seg = std::get_if<netstack::ParsedSegment>(&p);
        if (seg == nullptr) continue;
        const auto i = client_index(seg->dst.address);
        if (!i || *i >= clients_.size() || !clients_[*i].sender) continue;
        clients_[*i].sender->on_datagram(d, now_);
        touched.push_back(*i);
      }
      while (!queue_.empty() && queue_.top().t <= now_) {
        const Wake w = queue_.top();
        queue_.pop();
        if (clients_[w.client].wake != w.t) continue;  // stale
        clients_[w.client].wake.reset();
        touched.push_back(w.client);
      }
      if (auto d = server_.next_deadline(); d && *d <= now_) server_.on_tick(now_);
      for (auto& d : server_.take_output()) {
        if (pcap_) pcap_->write(now_, d);
        down_.send(now_, std::move(d));
      }
      for (unsigned i : touched) {
        const bool was = clients_[i].connected;
        step_client(i);
        if (!was && clients_[i].connected) {
          ++connected;
          last_connect = now_;
        }
      }
    }
    result_.connected = connected;
    if (connected == clients_.size()) result_.all_connected = last_connect.time_since_epoch();
    const rto::Instant end = result_.all_connected ? last_connect : std::min(now_, horizon);
    const std::size_t bins = static_cast<std::size_t>(end.time_since_epoch() / cfg_.bin) + 1;
    result_.syns_per_bin.resize(bins, 0);
    result_.syns = 0;
    for (auto v : result_.syns_per_bin) result_.syns += v;
    if (pcap_) {
      result_.captured = pcap_->count();
      pcap_->close();
    }
    return result_;
  }

 private:
  static netstack::LinkConfig link(const StormConfig& c, std::uint64_t seed) {
    netstack::LinkConfig l;
    l.delay = c.one_way_delay;
    l.queue_limit = 1'000'000;
    l.seed = c.seed * seed;
    return l;
  }

  void schedule(unsigned i, rto::Instant t) {
    clients_[i].wake = t;
    queue_.push(Wake{t, i});
  }

  std::optional<rto::Instant> next_event() {
    while (!queue_.empty() && clients_[queue_.top().client].wake != queue_.top().t) queue_.pop();
    std::optional<rto::Instant> t;
    const auto consider = [&t](std::optional<rto::Instant> c) {
      if (c && (!t || *c < *t)) t = c;
    };
    if (!queue_.empty()) consider(queue_.top().t);
    consider(up_.next_delivery());
    consider(down_.next_delivery());
    consider(server_.next_deadline());
    return t;
  }

  void count_syn(const std::vector<std::uint8_t>& d) {
    const auto p = netstack::parse_segment(d);
    const auto* seg = std::get_if<netstack::ParsedSegment>(&p);
    if (seg == nullptr || !seg->tcp.has(wire::kSyn) || seg->tcp.has(wire::kAck)) return;
    const auto bin = static_cast<std::size_t>(now_.time_since_epoch() / cfg_.bin);
    if (result_.syns_per_bin.size() <= bin) result_.syns_per_bin.resize(bin + 1, 0);
    ++result_.syns_per_bin[bin];
  }

  void start_attempt(unsigned i) {
    Client& c = clients_[i];
    netstack::SenderConfig sc;
    // A new socket per attempt: ephemeral ports from 32768 up, a new ISS.
    sc.local = {c.local.address, static_cast<std::uint16_t>(32768 + (c.attempts % 28000))};
    sc.remote = kServer;
    sc.iss = static_cast<std::uint32_t>(0x10000000u + i * 2654435761u + c.attempts * 40503u);
    sc.connect_timeout = c.grpc ? c.grpc->attempt_deadline(now_) - now_ : cfg_.connect_timeout;
    ++c.attempts;
    ++result_.attempts;
    c.sender = std::make_unique<netstack::TcpSender>(sc);
    c.sender->connect(now_);
  }

  void step_client(unsigned i) {
    Client& c = clients_[i];
    if (c.connected) return;
    if (!c.sender && now_ >= c.next_start) start_attempt(i);
    if (c.sender) {
      if (auto d = c.sender->next_deadline(); d && *d <= now_) c.sender->on_tick(now_);
      for (auto& d : c.sender->take_output()) up_.send(now_, std::move(d));
      const auto st = c.sender->state();
      if (st == netstack::SenderState::Established) {
        c.connected = true;
        c.sender.reset();  // the handshake is all the experiment needs
        return;
      }
      if (st == netstack::SenderState::Reset || st == netstack::SenderState::Failed) {
        c.sender.reset();
        if (c.grpc) {
          const auto start = c.grpc->on_failure(now_, c.rng);
          if (!start) return;  // gave up (no limit in the presets)
          c.next_start = *start;
        } else {
          const auto wait = c.backoff->next_delay(c.rng);
          if (!wait) return;
          c.next_start = now_ + *wait;
        }
        if (c.next_start <= now_) {
          start_attempt(i);
          for (auto& d : c.sender->take_output()) up_.send(now_, std::move(d));
        }
      }
    }
    const auto wake = c.sender ? c.sender->next_deadline() : std::optional<rto::Instant>{c.next_start};
    if (wake) schedule(i, *wake);
  }

  StormConfig cfg_;
  StormServer server_;
  netstack::SimLink up_, down_;
  std::unique_ptr<netstack::PcapWriter> pcap_;
  std::vector<Client> clients_;
  std::priority_queue<Wake, std::vector<Wake>, std::greater<Wake>> queue_;
  rto::Instant now_{};
  StormResult result_;
};

}  // namespace

StormResult run_storm(const StormConfig& config, const Strategy& strategy) {
  Sim sim(config, strategy);
  return sim.run();
}

}  // namespace storm
