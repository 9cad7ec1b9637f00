// CMake consumer of the installed rto package (find_package(rto), rto::rto or
// rto::rto_static), built at C++23: runs the README's connection example
// (connection.hpp) on a TimerWheel and checks RFC 6298's numbers.

#include <chrono>
#include <cstdio>

#include "connection.hpp"

// The package must not lower the consumer's language level (CMAKE_CXX_STANDARD 23;
// GCC 12 reports C++23 as 202100L, anything above C++20's 202002L).
static_assert(__cplusplus > 202002L, "the rto package downgraded this C++23 consumer");

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

rto::Instant ms(long long v) { return rto::Instant{std::chrono::milliseconds{v}}; }

}  // namespace

int main() {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  rto::TimerWheel wheel(ms(0), milliseconds{1});  // declared first: outlives the entries
  Connection conns[2];
  conns[0].entry.user = 0;
  conns[1].entry.user = 1;
  Connection& a = conns[0];
  Connection& b = conns[1];

  a.on_send(wheel, 0, 100, ms(0));  // 5.1: deadline 0 + 1 s (2.1)
  check(a.entry.armed() && a.entry.deadline() == ms(1000), "5.1 send arms the entry at 0 + 1 s");
  a.on_ack(wheel, 100, ms(100));  // R = 100 ms: RTO = 100 + max(1, 4*50) = 300 ms -> 1 s (2.4)
  check(a.est.srtt() == milliseconds{100} && a.est.rttvar() == milliseconds{50},
        "2.2 first sample 100 ms: SRTT 100 ms, RTTVAR 50 ms");
  check(a.est.rto() == milliseconds{1000}, "2.4 RTO 300 ms is floored to 1 s");
  check(!a.entry.armed() && wheel.size() == 0, "5.2 all acked: the entry is cancelled");

  a.on_send(wheel, 100, 100, ms(200));  // deadline 200 ms + 1 s = 1.2 s
  b.on_send(wheel, 0, 100, ms(300));    // deadline 1.3 s
  check(wheel.size() == 2, "two connections armed");
  const auto wake = wheel.next_deadline();  // a lower bound on the earliest firing (1.2 s)
  check(wake && *wake > ms(300) && *wake <= ms(1200), "next_deadline(): the event loop may sleep until at most 1.2 s");
  run_timers(wheel, conns, ms(1199));
  check(a.timeouts == 0 && b.timeouts == 0, "nothing fires before 1.2 s (never early)");
  run_timers(wheel, conns, ms(1200));
  check(a.timeouts == 1 && b.timeouts == 0, "a fires at its deadline 1.2 s, b not yet");
  check(a.timer.rto() == milliseconds{2000} && a.timer.backoff() == 1u, "5.5 the RTO doubles to 2 s");
  check(a.entry.armed() && a.entry.deadline() == ms(3200), "5.6 re-armed at 1.2 + 2 = 3.2 s");
  run_timers(wheel, conns, ms(1300));
  check(b.timeouts == 1 && b.entry.deadline() == ms(3300), "b fires at 1.3 s, re-armed at 3.3 s");

  a.on_ack(wheel, 200, ms(1500));  // Karn: the timed segment timed out, no sample
  check(a.timer.rto() == milliseconds{2000} && a.timer.backoff() == 1u,
        "3 (Karn) no sample after a timeout: the backoff stays");
  check(!a.entry.armed() && wheel.size() == 1, "5.2 a all acked: only b is armed");

  a.on_send(wheel, 200, 100, ms(2000));  // deadline 2 s + 2 s = 4 s
  check(a.entry.deadline() == ms(4000), "5.1 the backed-off RTO arms 2 + 2 = 4 s");
  a.on_send(wheel, 300, 100, ms(2050));  // timer running: not moved
  check(a.entry.deadline() == ms(4000), "5.1 more data leaves the running timer alone");
  a.on_ack(wheel, 300, ms(2100));  // R = 100 ms; RTTVAR = 3/4*50 + 1/4*0 = 37.5 ms
  check(a.est.rttvar() == microseconds{37500} && a.timer.backoff() == 0u,
        "2.3 second sample: RTTVAR 37.5 ms, backoff collapsed");
  check(a.entry.deadline() == ms(3100), "5.3 new data acked: re-armed at 2.1 + 1 = 3.1 s");
  a.on_ack(wheel, 300, ms(2200));  // duplicate
  check(a.entry.deadline() == ms(3100), "a duplicate ACK does not move the timer");

  bool caught = false;
  try {
    rto::Config c = rto::Config::rfc6298();
    c.max_rto = std::chrono::seconds{30};
    rto::Estimator bad(c);
  } catch (const rto::ConfigError&) {  // thrown inside the library, caught here
    caught = true;
  }
  check(caught, "2.5 a 30 s cap throws rto::ConfigError across the library boundary");

  std::printf("%s\n", failures == 0 ? "cmake consumer: all checks passed" : "cmake consumer: FAILED");
  return failures == 0 ? 0 : 1;
}
