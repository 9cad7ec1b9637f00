// The sender with rto::Config::linux_default(): the same core, the Linux
// kernel's RTO arithmetic (200 ms rto_min through RTTVAR, RTO = SRTT + RTTVAR,
// 4 ms tick). Its capture is clean for `pcap-replay --profile linux` and
// shows the 2.4 departure (RTO under 1 s) under --profile rfc6298.

#include <doctest/doctest.h>

#include <filesystem>

#include "sim_fixture.hpp"

using namespace nstest;

// 100 ms RTT path, blackhole [2 s, 9 s) forward.
//   t=100   SYN-ACK: R = 100: SRTT 100, rttvar = max(mdev, rto_min) = 200: RTO = 300 ms.
//   t=1100  ACK of D1, R = 100 again: RTO 300 ms (the variance term stays at its 200 ms floor).
//   t=2000  D2 lost: timeouts at 2300 (RTO -> 600), 2900 (-> 1200), 4100 (-> 2400),
//           6500 (-> 4800), 11300 (-> 9600): that copy gets through.
TEST_CASE("Linux profile sender: 2.4 floor 200 ms via RTTVAR, 5.5 doubling from 300 ms") {
  const auto pcap = temp_dir() / "linux-profile.pcap";
  auto sc = sender_config();
  sc.rto = rto::Config::linux_default();
  netstack::SimConfig cfg;
  cfg.forward = plain_link(milliseconds{50});
  cfg.reverse = plain_link(milliseconds{50});
  cfg.forward.blackholes = {{at_ms(2000), at_ms(9000)}};
  cfg.pcap_path = pcap.string();
  netstack::TcpSender s(sc);
  netstack::TcpReceiver r(receiver_config());
  {
    netstack::SimNetwork net(cfg, s, r);
    s.connect(at_ms(0));
    net.run_until(at_ms(1000));
    CHECK(s.rto() == milliseconds{300});
    s.write(pattern(1000), at_ms(1000));
    net.run_until(at_ms(2000));
    CHECK(s.rto() == milliseconds{300});
    s.write(pattern(1000, 2), at_ms(2000));
    net.run_until(at_ms(12'000));
    s.close(net.now());
    CHECK(net.run_to_completion(at_ms(60'000)));
  }
  std::vector<double> times;
  for (const auto& rec : s.stats().retransmit_log) times.push_back(ms_of(rec.time));
  CHECK(times == std::vector<double>{2300, 2900, 4100, 6500, 11'300});
  check_capture(pcap, static_cast<long>(s.stats().retransmissions), {}, "linux");
  // Frames: 1 SYN, 2 SYN-ACK, 3 ACK, 4 D1, 5 its ACK, 6 D2 (lost), 7 the first timeout
  // at 2.3 s: 300 ms, under the 1 s floor of RFC 6298 2.4.
  check_capture(pcap, static_cast<long>(s.stats().retransmissions), {{"2.4", 7}}, "rfc6298");
}
