// Retransmission timelines of the sender on simulated paths, checked against
// times derived by hand from RFC 6298 (the arithmetic is in each comment).
// Path: 50 ms each way (RTT 100 ms), no jitter, so every RTT sample is exactly
// 100 ms; G = 1 ms; floor 1 s (2.4); initial RTO 1 s (2.1).

#include <doctest/doctest.h>

#include <vector>

#include "sim_fixture.hpp"

using namespace nstest;
using netstack::RetransmitKind;

namespace {

struct Path {
  netstack::TcpSender sender;
  netstack::TcpReceiver receiver;
  netstack::SimNetwork net;
  Path(netstack::SenderConfig sc, netstack::SimConfig cfg)
      : sender(std::move(sc)), receiver(receiver_config()), net(std::move(cfg), sender, receiver) {}
};

std::vector<double> timeout_times_ms(const netstack::SenderStats& st) {
  std::vector<double> v;
  for (const auto& r : st.retransmit_log) {
    if (r.kind == RetransmitKind::Timeout) v.push_back(ms_of(r.time));
  }
  return v;
}

}  // namespace

// Blackhole [2 s, 9 s) on both directions; one 1000-byte write at 1 s, one at 2 s.
//   t=0     SYN; SYN-ACK back at 100 ms: first sample R = 100 (2.2):
//           SRTT = 100, RTTVAR = 50, RTO = max(1000, 100 + 4*50 = 300) = 1000 ms (2.4).
//   t=1000  D1 sent, ACKed at 1100: R = 100 (2.3): RTTVAR = 3/4*50 + 1/4*0 = 37.5,
//           SRTT = 100; RTO = 1000 (floor); all acked, timer stops (5.2).
//   t=2000  D2 sent into the blackhole; timer starts (5.1): expires at 3000.
//   t=3000  timeout 1: D2 resent (5.4), RTO = 2000 (5.5, backoff 1), next at 5000 (5.6).
//   t=5000  timeout 2: RTO = 4000 (backoff 2), next at 9000.
//   t=9000  timeout 3: RTO = 8000 (backoff 3); 9000 is outside [2000, 9000), so this copy
//           arrives at 9050 and is ACKed at 9100.
TEST_CASE("5.5 5.6 blackhole 2-9 s on a 100 ms path: timeouts at 3, 5, 9 s with backoff 1, 2, 4") {
  SUBCASE("with timestamps: the ACK of the retransmission is a fresh sample (RFC 7323), backoff collapses") {
    // t=9100 TSecr echoes the TSval of the 9000 copy: R = 100 (2.3):
    //        RTTVAR = 3/4*37.5 = 28.125, SRTT = 100, RTO = max(1000, 100 + 112.5) = 1000, backoff 0.
    // t=10000 D3 sent into a second blackhole [10000, 10001): timeout after 1 s, at 11000.
    auto cfg = rtt100({{at_ms(2000), at_ms(9000)}, {at_ms(10'000), at_ms(10'001)}});
    Path p(sender_config(), cfg);
    p.sender.connect(at_ms(0));
    p.net.run_until(at_ms(1000));
    CHECK(p.sender.rto() == milliseconds{1000});
    p.sender.write(pattern(1000), at_ms(1000));
    p.net.run_until(at_ms(2000));
    p.sender.write(pattern(1000, 2), at_ms(2000));
    p.net.run_until(at_ms(9099));
    CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{3000, 5000, 9000});
    const auto& log = p.sender.stats().retransmit_log;
    REQUIRE(log.size() == 3);
    CHECK(log[0].backoff == 1);
    CHECK(log[0].rto == milliseconds{2000});
    CHECK(log[1].backoff == 2);
    CHECK(log[1].rto == milliseconds{4000});
    CHECK(log[2].backoff == 3);
    CHECK(log[2].rto == milliseconds{8000});
    CHECK(p.sender.backoff() == 3);
    p.net.run_until(at_ms(9100));
    CHECK(p.sender.backoff() == 0);
    CHECK(p.sender.rto() == milliseconds{1000});
    CHECK(p.sender.srtt() == milliseconds{100});
    CHECK(p.sender.rttvar() == microseconds{28'125});
    p.net.run_until(at_ms(10'000));
    p.sender.write(pattern(1000, 3), at_ms(10'000));
    p.net.run_until(at_ms(12'000));
    CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{3000, 5000, 9000, 11'000});
    CHECK(p.sender.stats().timeouts == 4);
    CHECK(p.receiver.read() == [] {
      auto all = pattern(1000);
      auto b = pattern(1000, 2);
      auto c = pattern(1000, 3);
      all.insert(all.end(), b.begin(), b.end());
      all.insert(all.end(), c.begin(), c.end());
      return all;
    }());
  }
  SUBCASE("3 Karn without timestamps: the doubled RTO persists until a fresh segment is timed") {
    // t=9100 the ACK covers a retransmitted segment: no sample (Karn), RTO stays 8000, backoff 3.
    // t=9500 D3 sent: timer = 9500 + 8000. Its ACK at 9600 is a clean sample R = 100:
    //        RTTVAR = 28.125, SRTT = 100, RTO = 1000, backoff 0.
    // t=10000 D4 into the blackhole [10000, 10001): timeout at 11000, not 18000.
    auto sc = sender_config();
    sc.timestamps = false;
    auto cfg = rtt100({{at_ms(2000), at_ms(9000)}, {at_ms(10'000), at_ms(10'001)}});
    Path p(sc, cfg);
    p.sender.connect(at_ms(0));
    p.net.run_until(at_ms(1000));
    p.sender.write(pattern(1000), at_ms(1000));
    p.net.run_until(at_ms(2000));
    p.sender.write(pattern(1000, 2), at_ms(2000));
    p.net.run_until(at_ms(9100));
    CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{3000, 5000, 9000});
    CHECK(p.sender.backoff() == 3);
    CHECK(p.sender.rto() == milliseconds{8000});
    CHECK(p.sender.srtt() == milliseconds{100});  // unchanged since t=1100
    p.net.run_until(at_ms(9500));
    p.sender.write(pattern(1000, 3), at_ms(9500));
    CHECK(p.sender.next_deadline() == at_ms(17'500));
    p.net.run_until(at_ms(9600));
    CHECK(p.sender.backoff() == 0);
    CHECK(p.sender.rto() == milliseconds{1000});
    CHECK(p.sender.rttvar() == microseconds{28'125});
    p.net.run_until(at_ms(10'000));
    p.sender.write(pattern(1000, 4), at_ms(10'000));
    p.net.run_until(at_ms(12'000));
    CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{3000, 5000, 9000, 11'000});
  }
}

// The SYN and its first retransmission are lost (forward datagrams 1 and 2).
//   t=0     SYN lost; RTO 1000 (2.1).
//   t=1000  timeout: SYN resent, RTO = 2000 (5.5).
//   t=3000  timeout: SYN resent, RTO = 4000; it arrives, SYN-ACK at 3100.
//           Karn (3): no sample from a retransmitted SYN.
//           5.7: the implementation uses a 1 s RTO (< 3 s), so when data begins the
//           RTO is re-initialized to 3000 (replacing the backed-off 4000; backoff 0).
//   t=3100  D1 (written before connect) sent; timer 3100 + 3000 = 6100. D1 is lost (datagram 5).
//   t=6100  timeout: D1 resent, RTO = 6000 (5.5). ACK at 6200, TSecr = TSval(6100):
//           R = 100 is the FIRST sample (2.2): SRTT = 100, RTTVAR = 50, RTO = 1000.
TEST_CASE("5.7 SYN lost twice: SYN timeouts after 1 s then 2 s; data starts with the 3 s fallback") {
  auto cfg = rtt100();
  cfg.forward.drop_numbers = {1, 2, 5};  // 3rd SYN = 3, handshake ACK = 4, D1 = 5
  Path p(sender_config(), cfg);
  p.sender.write(pattern(1000));
  p.sender.connect(at_ms(0));
  p.net.run_until(at_ms(3100));
  CHECK(p.sender.state() == netstack::SenderState::Established);
  CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{1000, 3000});
  CHECK(p.sender.stats().retransmit_log[0].syn);
  CHECK(p.sender.stats().retransmit_log[0].rto == milliseconds{2000});
  CHECK(p.sender.stats().retransmit_log[1].rto == milliseconds{4000});
  CHECK(p.sender.stats().rtt_samples == 0);
  CHECK(p.sender.rto() == milliseconds{3000});
  CHECK(p.sender.backoff() == 0);
  CHECK(p.sender.next_deadline() == at_ms(6100));
  p.net.run_until(at_ms(6199));
  CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{1000, 3000, 6100});
  CHECK(p.sender.rto() == milliseconds{6000});
  p.net.run_until(at_ms(6200));
  CHECK(p.sender.srtt() == milliseconds{100});
  CHECK(p.sender.rttvar() == milliseconds{50});
  CHECK(p.sender.rto() == milliseconds{1000});
  CHECK(p.receiver.read() == pattern(1000));
}

// Shared case B15 (kind: sender): the 5.7 fallback must not seed RTTVAR.
//   t=0     SYN lost.  t=1000 SYN resent (RTO -> 2000).  t=1100 SYN-ACK; D1 sent.
//   No sample from the handshake (Karn). RTO = 3000 (5.7): D1's timer expires at 4100.
//   t=1200  ACK of D1: first sample (2.2): SRTT = 100, RTTVAR = 50,
//           SRTT + 4*RTTVAR = 300, RTO = 1000 (2.4). (A faulty build: about 9100.)
TEST_CASE("B15 5.7 fallback after one lost SYN does not seed RTTVAR") {
  SUBCASE("D1 delivered") {
    auto cfg = rtt100();
    cfg.forward.drop_numbers = {1};
    Path p(sender_config(), cfg);
    p.sender.write(pattern(1000));
    p.sender.connect(at_ms(0));
    p.net.run_until(at_ms(1100));
    CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{1000});
    CHECK(p.sender.stats().rtt_samples == 0);
    CHECK(p.sender.rto() == milliseconds{3000});
    CHECK(p.sender.next_deadline() == at_ms(4100));
    p.net.run_until(at_ms(1200));
    CHECK(p.sender.stats().rtt_samples == 1);
    CHECK(p.sender.srtt() == milliseconds{100});
    CHECK(p.sender.rttvar() == milliseconds{50});
    CHECK(p.sender.rto() == milliseconds{1000});
  }
  SUBCASE("D1 lost: retransmitted at 4.1 s, not at 2.1 or 3.1 s") {
    auto cfg = rtt100();
    cfg.forward.drop_numbers = {1, 4};  // 2 = SYN again, 3 = the handshake's ACK, 4 = D1
    Path p(sender_config(), cfg);
    p.sender.write(pattern(1000));
    p.sender.connect(at_ms(0));
    p.net.run_until(at_ms(5000));
    CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{1000, 4100});
    CHECK(p.receiver.read() == pattern(1000));
  }
}

// 5.1 and 5.3 (shared case B10's rule, on the sender):
//   t=100   handshake done, RTO 1000.
//   t=1000  D1 sent: timer starts, deadline 2000 (5.1).
//   t=1050  D2 sent (lost): the running timer is left alone (5.1), still 2000.
//   t=1100  ACK of D1 (new data, D2 outstanding): restart with RTO 1000 (5.3): 2100.
//   t=2100  timeout: D2 resent (5.4) - not at 2000 (no restart) and not at 2050 (timer per segment).
TEST_CASE("5.1 5.3 the timer starts with the first segment and restarts on the ACK of new data") {
  auto cfg = rtt100();
  cfg.forward.drop_numbers = {4};  // 1 SYN, 2 handshake ACK, 3 D1, 4 D2
  Path p(sender_config(), cfg);
  p.sender.connect(at_ms(0));
  p.net.run_until(at_ms(1000));
  p.sender.write(pattern(500), at_ms(1000));
  CHECK(p.sender.next_deadline() == at_ms(2000));
  p.net.run_until(at_ms(1050));
  p.sender.write(pattern(500, 2), at_ms(1050));
  CHECK(p.sender.next_deadline() == at_ms(2000));
  p.net.run_until(at_ms(1100));
  CHECK(p.sender.next_deadline() == at_ms(2100));
  p.net.run_until(at_ms(3000));
  CHECK(timeout_times_ms(p.sender.stats()) == std::vector<double>{2100});
  CHECK(p.sender.stats().retransmit_log[0].seq == sender_config().iss + 1 + 500);
}

// The same blackhole [2 s, 9 s): each timeout record says how long the timer
// ran, from the event that (re)started it: D2 sent at 2000 (5.1) -> expiry
// at 3000 waited 1000 ms; restarted there (5.6) -> 5000 waited 2000 ms;
// -> 9000 waited 4000 ms. bytes_sent counts each payload byte once: 1000
// after D1, 2000 after D2, still 2000 after D2's three retransmissions.
TEST_CASE("5.6 timeout records carry the time the timer ran; bytes_sent counts first transmissions only") {
  auto cfg = rtt100({{at_ms(2000), at_ms(9000)}});
  Path p(sender_config(), cfg);
  p.sender.connect(at_ms(0));
  p.net.run_until(at_ms(1000));
  CHECK(p.sender.bytes_sent() == 0);
  p.sender.write(pattern(1000), at_ms(1000));
  p.net.run_until(at_ms(2000));
  CHECK(p.sender.bytes_sent() == 1000);
  p.sender.write(pattern(1000, 2), at_ms(2000));
  p.net.run_until(at_ms(9099));
  const auto& log = p.sender.stats().retransmit_log;
  REQUIRE(log.size() == 3);
  CHECK(log[0].waited == milliseconds{1000});
  CHECK(log[1].waited == milliseconds{2000});
  CHECK(log[2].waited == milliseconds{4000});
  CHECK(p.sender.bytes_sent() == 2000);
}
