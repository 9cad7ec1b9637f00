// netstack::run_sim and netstack::timer_story: one transfer in the simulator
// and the story of its retransmission timer, checked line by line against
// RFC 6298's arithmetic worked by hand.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "netstack/sim_run.hpp"
#include "netstack/timer_story.hpp"
#include "sim_fixture.hpp"

using namespace nstest;

// 5000 bytes over a 100 ms RTT path, the sender's datagrams lost during [0.12 s, 4.12 s).
//   t=0.1  SYN-ACK: R = 100 ms: SRTT = R = 100, RTTVAR = R/2 = 50 (2.2); RTO = 100 + 4*50 = 300 -> 1 s (2.4).
//          The initial window (RFC 5681: 3 segments for SMSS 1448) sends seq 1..4344 at once.
//   t=0.2  their three ACKs: R = 100 each: RTTVAR = 3/4 RTTVAR + 1/4 |100 - 100| (2.3):
//          37.5, 28.125, 21.09375 ms; SRTT stays 100; RTO 1 s. The last segment (seq 4345:
//          656 bytes and the FIN) leaves at 0.2, into the blackhole; the ACK restarted the timer (5.3).
//   t=1.2  expiry after 1 s: backoff 1, RTO 2 s (5.5); t=3.2 after 2 s: backoff 2, RTO 4 s;
//   t=7.2  after 4 s (the blackhole ended at 4.12): backoff 3, RTO 8 s; this copy gets through.
//   t=7.3  its ACK, timed by TSecr (RFC 7323): RTTVAR = 3/4 * 21.09375 = 15.8203 ms; RTO 1 s again.
TEST_CASE("run_sim + timer_story: RFC6298-2.2 RFC6298-2.3 RFC6298-5.5 samples and expiries told line by line") {
  netstack::SimRunOptions o;
  o.payload = pattern(5000);
  o.blackholes = {{at_ms(120), at_ms(4120)}};
  const auto r = netstack::run_sim(o);
  CHECK(r.ok);
  CHECK(r.bytes_received == 5000u);
  const std::vector<std::string> want = {
      "+0.100 s  RTT sample 100.0 ms: SRTT 100.0 ms, RTTVAR 50.0 ms, RTO 1000.0 ms",
      "+0.200 s  RTT sample 100.0 ms: SRTT 100.0 ms, RTTVAR 37.5 ms, RTO 1000.0 ms",
      "+0.200 s  RTT sample 100.0 ms: SRTT 100.0 ms, RTTVAR 28.1 ms, RTO 1000.0 ms",
      "+0.200 s  RTT sample 100.0 ms: SRTT 100.0 ms, RTTVAR 21.1 ms, RTO 1000.0 ms",
      "+1.200 s  RTO expired after 1000.0 ms: retransmit seq 4345 len 657 (with the FIN); backoff 1, RTO now 2000.0 ms",
      "+3.200 s  RTO expired after 2000.0 ms: retransmit seq 4345 len 657 (with the FIN); backoff 2, RTO now 4000.0 ms",
      "+7.200 s  RTO expired after 4000.0 ms: retransmit seq 4345 len 657 (with the FIN); backoff 3, RTO now 8000.0 ms",
      "+7.300 s  RTT sample 100.0 ms: SRTT 100.0 ms, RTTVAR 15.8 ms, RTO 1000.0 ms",
  };
  CHECK(netstack::timer_story(r.sender, rto::Instant{}, r.sender_config.iss) == want);
  CHECK(r.forward.lost_blackhole == 3u);  // the segment at 0.2 and its copies at 1.2 and 3.2
}

// The Linux profile: RTO = SRTT + max(mdev, rto_min 200 ms) rounded up to 4 ms: 100 + 200 = 300 ms.
// Blackhole [0.12 s, 1.5 s): the last segment leaves at 0.2 and expires at 0.5 (300 ms, backoff 1,
// RTO 600), 1.1 (600 ms, backoff 2, RTO 1200); the copy at 2.3 gets through.
TEST_CASE("run_sim + timer_story, Linux profile: 300 ms RTO doubled at each expiry") {
  netstack::SimRunOptions o;
  o.payload = pattern(5000);
  o.rto = rto::Config::linux_default();
  o.blackholes = {{at_ms(120), at_ms(1500)}};
  const auto r = netstack::run_sim(o);
  CHECK(r.ok);
  std::vector<std::string> expiries;
  for (const auto& l : netstack::timer_story(r.sender, rto::Instant{}, r.sender_config.iss)) {
    if (l.find("RTO expired") != std::string::npos) expiries.push_back(l);
  }
  CHECK(expiries == std::vector<std::string>{
                        "+0.500 s  RTO expired after 300.0 ms: retransmit seq 4345 len 657 (with the FIN); backoff 1, RTO now 600.0 ms",
                        "+1.100 s  RTO expired after 600.0 ms: retransmit seq 4345 len 657 (with the FIN); backoff 2, RTO now 1200.0 ms",
                        "+2.300 s  RTO expired after 1200.0 ms: retransmit seq 4345 len 657 (with the FIN); backoff 3, RTO now 2400.0 ms",
                    });
}

TEST_CASE("timer_story: a SYN expiry, a fast retransmission and a go-back-N resend in words") {
  netstack::SenderStats s;
  const std::uint32_t iss = 1000;
  s.retransmit_log.push_back({at_ms(1000), netstack::RetransmitKind::Timeout, iss, 1, true, false,
                              milliseconds{2000}, 1, milliseconds{1000}});
  s.retransmit_log.push_back({at_ms(1500), netstack::RetransmitKind::Fast, iss + 2897, 1448});
  s.retransmit_log.push_back({at_ms(1600), netstack::RetransmitKind::AfterTimeout, iss + 1, 1448});
  s.rtt_log.push_back({at_ms(1500), milliseconds{100}, milliseconds{1000}, milliseconds{100}, milliseconds{50}});
  const std::vector<std::string> want = {
      "+1.000 s  RTO expired after 1000.0 ms: retransmit the SYN; backoff 1, RTO now 2000.0 ms",
      "+1.500 s  RTT sample 100.0 ms: SRTT 100.0 ms, RTTVAR 50.0 ms, RTO 1000.0 ms",  // a sample first at one instant
      "+1.500 s  fast retransmit of seq 2897 len 1448 (duplicate ACKs)",
      "+1.600 s  resend seq 1 len 1448 after the timeout (go-back-N)",
  };
  CHECK(netstack::timer_story(s, rto::Instant{}, iss) == want);
}
