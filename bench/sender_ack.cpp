// Google Benchmark of netstack's TcpSender processing ACKs, where the rto
// estimator, sampler and timer run as a stack runs them: a bulk transfer
// between a TcpSender and a TcpReceiver handing datagrams to each other in
// virtual time (no simulator, no loss), timestamps on so that every ACK of
// new data gives an RTT sample. Timed: the sender's on_datagram() of each
// ACK, which parses and checks it, takes the sample (2.2/2.3), restarts the
// timer (5.3), runs congestion control and sends the segments it releases.
// Counter per_ack: that time per ACK (s; the table's ns). Beside it in the
// same run: the RFC 6298 profile, and Linux's (its estimator and tick).
// What the estimator's own per-sample time (bench-estimator) weighs here is
// the question this answers (bench/README.md, "The estimator inside netstack").

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "netstack/receiver.hpp"
#include "netstack/sender.hpp"
#include "rto/config.hpp"

namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr std::size_t kWriteBytes = 256 * 1024;  // written whenever the sender's data runs low
constexpr microseconds kOneWay{10'000};          // 10 ms each way

// The calling thread's CPU time, ns.
std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct Transfer {
  explicit Transfer(const rto::Config& profile) : tx(sender_config(profile)), rx(receiver_config(profile)) {
    tx.connect(now);
    while (tx.state() != netstack::SenderState::Established) exchange(nullptr, nullptr);
  }
  static netstack::SenderConfig sender_config(const rto::Config& profile) {
    netstack::SenderConfig c;
    c.local = {netstack::IpAddress::v4(198, 18, 0, 1), 40000};
    c.remote = {netstack::IpAddress::v4(198, 18, 0, 2), 5001};
    c.rto = profile;
    return c;
  }
  static netstack::ReceiverConfig receiver_config(const rto::Config& profile) {
    netstack::ReceiverConfig c;
    c.local = {netstack::IpAddress::v4(198, 18, 0, 2), 5001};
    c.rto = profile;
    return c;
  }
  // One round trip: the sender's output to the receiver, the receiver's ACKs
  // back to the sender (timed into *ns, counted into *acks when given).
  void exchange(std::int64_t* ns, std::int64_t* acks) {
    if (tx.bytes_sent() + kWriteBytes / 2 > written) {
      tx.write(payload, now);
      written += payload.size();
    }
    now += kOneWay;
    for (const auto& d : tx.take_output()) rx.on_datagram(d, now);
    now += kOneWay;
    const auto back = rx.take_output();
    const std::int64_t t0 = ns != nullptr ? thread_cpu_ns() : 0;
    for (const auto& d : back) tx.on_datagram(d, now);
    if (ns != nullptr) *ns += thread_cpu_ns() - t0;
    if (acks != nullptr) *acks += static_cast<std::int64_t>(back.size());
  }

  rto::Instant now{};
  netstack::TcpSender tx;
  netstack::TcpReceiver rx;
  std::vector<std::uint8_t> payload = std::vector<std::uint8_t>(kWriteBytes, 0x5a);
  std::uint64_t written = 0;
};

void ack_bench(benchmark::State& state, const rto::Config& profile) {
  Transfer t(profile);
  for (int i = 0; i < 50; ++i) t.exchange(nullptr, nullptr);  // past slow start: the window is full
  std::int64_t ns = 0, acks = 0;
  const std::uint64_t samples_before = t.tx.stats().rtt_samples;
  for (auto _ : state) {
    std::int64_t round_ns = 0;
    t.exchange(&round_ns, &acks);
    ns += round_ns;
    state.SetIterationTime(static_cast<double>(round_ns) * 1e-9);
  }
  state.SetItemsProcessed(acks);
  state.counters["per_ack"] = benchmark::Counter(acks > 0 ? static_cast<double>(ns) * 1e-9 / static_cast<double>(acks) : 0.0);
  state.counters["samples_per_ack"] = benchmark::Counter(
      acks > 0 ? static_cast<double>(t.tx.stats().rtt_samples - samples_before) / static_cast<double>(acks) : 0.0);
}

void BM_Sender_Ack_Rfc6298(benchmark::State& state) { ack_bench(state, rto::Config::rfc6298()); }
void BM_Sender_Ack_Linux(benchmark::State& state) { ack_bench(state, rto::Config::linux_default()); }
BENCHMARK(BM_Sender_Ack_Rfc6298)->UseManualTime();
BENCHMARK(BM_Sender_Ack_Linux)->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
