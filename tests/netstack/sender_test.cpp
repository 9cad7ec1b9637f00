// The sender core's behaviour beyond the timelines: zero-window probing,
// RST handling, RFC 1122 R2 give-up, fast retransmit without backoff (B12).
// Path: 50 ms each way unless said otherwise.

#include <doctest/doctest.h>

#include "netstack/segment_codec.hpp"
#include "sim_fixture.hpp"

using namespace nstest;
using netstack::FailureReason;
using netstack::SenderState;

namespace {

std::vector<std::uint8_t> from_peer(std::uint8_t flags, std::uint32_t seq, std::uint32_t ack) {
  wire::TcpHeader h;
  h.flags = flags;
  h.seq = seq;
  h.ack = ack;
  h.window = 1000;
  return netstack::encode_segment(sender_config().remote, sender_config().local, h, {});
}

}  // namespace

// Receiver buffer 2920 = 2 segments of SMSS 1460, not read by the application.
//   t=100  handshake done (R = 100: RTO 1 s); 2 segments fill the window.
//   t=200  their ACKs: the last says window 0; nothing in flight: persist timer
//          armed for the base RTO, 1 s: probes at 1200, then backed off 3200 (2 s), 7200 (4 s).
//   t=5000 the application reads everything: window update, transfer resumes.
// Probes are not retransmissions and do not back off the RTO (RFC 9293 3.8.6.1).
TEST_CASE("zero window: persist probes at 1.2 s and 3.2 s, no retransmission, transfer resumes") {
  auto rc = receiver_config();
  rc.consume_immediately = false;
  rc.receive_buffer = 2920;
  netstack::TcpSender s(sender_config());
  netstack::TcpReceiver r(rc);
  netstack::SimNetwork net(rtt100(), s, r);
  const auto data = pattern(20'000);
  s.write(data);
  s.close();
  s.connect(at_ms(0));
  net.run_until(at_ms(4999));
  CHECK(s.snd_wnd() == 0);
  CHECK(s.stats().window_probes == 2);
  CHECK(s.stats().retransmissions == 0);
  CHECK(s.stats().timeouts == 0);
  CHECK(s.backoff() == 0);
  CHECK(r.readable() == 2896);  // 2 segments of 1448 (SMSS 1460 less 12 bytes of timestamps)
  std::vector<std::uint8_t> got = r.read();
  for (int ms = 5000; ms < 60'000 && !s.finished(); ms += 50) {
    net.run_until(at_ms(ms));
    const auto chunk = r.read();
    got.insert(got.end(), chunk.begin(), chunk.end());
  }
  CHECK(s.state() == SenderState::TimeWait);
  CHECK(got == data);
  CHECK(s.stats().retransmissions == 0);
}

TEST_CASE("RST: in reply to the SYN refuses the connection; in ESTABLISHED only with SEQ = RCV.NXT") {
  SUBCASE("connection refused") {
    auto sc = sender_config();
    netstack::TcpSender s(sc);
    s.connect(at_ms(0));
    CHECK(s.take_output().size() == 1);
    s.on_datagram(from_peer(wire::kRst | wire::kAck, 0, sc.iss + 1), at_ms(10));
    CHECK(s.state() == SenderState::Reset);
    CHECK(s.failure() == FailureReason::ConnectionRefused);
    CHECK_FALSE(s.next_deadline().has_value());
  }
  SUBCASE("reset by peer, after a blind RST with a wrong SEQ is ignored (RFC 5961 3.2)") {
    netstack::TcpSender s(sender_config());
    netstack::TcpReceiver r(receiver_config());
    netstack::SimNetwork net(rtt100(), s, r);
    s.connect(at_ms(0));
    net.run_until(at_ms(200));
    REQUIRE(s.state() == SenderState::Established);
    const std::uint32_t rcv_nxt = receiver_config().iss + 1;
    s.on_datagram(from_peer(wire::kRst, rcv_nxt + 5000, 0), at_ms(201));
    CHECK(s.state() == SenderState::Established);
    s.on_datagram(from_peer(wire::kRst, rcv_nxt, 0), at_ms(202));
    CHECK(s.state() == SenderState::Reset);
    CHECK(s.failure() == FailureReason::ResetByPeer);
  }
  SUBCASE("datagrams of another connection or with a bad checksum are counted and ignored") {
    netstack::TcpSender s(sender_config());
    s.connect(at_ms(0));
    auto bad = from_peer(wire::kRst | wire::kAck, 0, sender_config().iss + 1);
    bad.back() ^= 0xFF;  // corrupt the TCP header: checksum fails
    s.on_datagram(bad, at_ms(1));
    s.on_datagram(std::vector<std::uint8_t>{0x45, 0x00}, at_ms(2));  // truncated
    CHECK(s.state() == SenderState::SynSent);
    CHECK(s.stats().bad_datagrams == 2);
  }
}

TEST_CASE("RFC 1122 R2: give up after max_backoffs, max_syn_backoffs or max_retry_time") {
  SUBCASE("data: 3 backoffs then the 4th expiry fails the connection") {
    // D1 at 1000 into a permanent blackhole: expiries at 2000 (RTO -> 2 s), 4000 (4 s),
    // 8000 (8 s); at 16000 three backoffs are used up: Failed.
    auto sc = sender_config();
    sc.max_backoffs = 3;
    auto cfg = rtt100();
    cfg.forward.blackholes = {{at_ms(1000), at_ms(1'000'000)}};
    netstack::TcpSender s(sc);
    netstack::TcpReceiver r(receiver_config());
    netstack::SimNetwork net(cfg, s, r);
    s.connect(at_ms(0));
    net.run_until(at_ms(1000));
    s.write(pattern(100), at_ms(1000));
    net.run_until(at_ms(15'999));
    CHECK(s.state() == SenderState::Established);
    CHECK(s.stats().timeouts == 3);
    net.run_until(at_ms(16'000));
    CHECK(s.state() == SenderState::Failed);
    CHECK(s.failure() == FailureReason::DataBackoffLimit);
    CHECK_FALSE(s.next_deadline().has_value());
  }
  SUBCASE("SYN: 2 retransmissions (1 s, 3 s), failure at 7 s") {
    auto sc = sender_config();
    sc.max_syn_backoffs = 2;
    auto cfg = rtt100();
    cfg.forward.blackholes = {{at_ms(0), at_ms(1'000'000)}};
    netstack::TcpSender s(sc);
    netstack::TcpReceiver r(receiver_config());
    netstack::SimNetwork net(cfg, s, r);
    s.connect(at_ms(0));
    net.run_until(at_ms(6999));
    CHECK(s.state() == SenderState::SynSent);
    CHECK(s.stats().timeouts == 2);
    net.run_until(at_ms(7000));
    CHECK(s.state() == SenderState::Failed);
    CHECK(s.failure() == FailureReason::SynBackoffLimit);
  }
  SUBCASE("total time: 5 s after the first expiry") {
    // Expiries at 2000 (series starts), 4000, 8000: 8000 - 2000 = 6 s >= 5 s: Failed at 8000.
    auto sc = sender_config();
    sc.max_retry_time = milliseconds{5000};
    auto cfg = rtt100();
    cfg.forward.blackholes = {{at_ms(1000), at_ms(1'000'000)}};
    netstack::TcpSender s(sc);
    netstack::TcpReceiver r(receiver_config());
    netstack::SimNetwork net(cfg, s, r);
    s.connect(at_ms(0));
    net.run_until(at_ms(1000));
    s.write(pattern(100), at_ms(1000));
    net.run_until(at_ms(7999));
    CHECK(s.state() == SenderState::Established);
    net.run_until(at_ms(8000));
    CHECK(s.state() == SenderState::Failed);
    CHECK(s.failure() == FailureReason::RetryTimeLimit);
    CHECK(s.stats().timeouts == 2);
  }
}

TEST_CASE("B12 fast retransmit (RFC 6582) on one lost segment: no timeout, the RTO does not back off") {
  auto cfg = rtt100();
  cfg.forward.drop_numbers = {8};  // SYN, ACK, then data: the 6th data segment
  netstack::TcpSender s(sender_config());
  netstack::TcpReceiver r(receiver_config());
  netstack::SimNetwork net(cfg, s, r);
  const auto data = pattern(100'000);
  s.write(data);
  s.close();
  s.connect(at_ms(0));
  CHECK(net.run_to_completion(at_ms(60'000)));
  CHECK(r.read() == data);
  CHECK(s.stats().timeouts == 0);
  CHECK(s.stats().retransmissions == 1);
  CHECK(s.stats().retransmissions_fast == 1);
  CHECK(s.stats().fast_recoveries == 1);
  REQUIRE(s.stats().retransmit_log.size() == 1);
  // The 6th data segment starts 5 * 1448 bytes in: SMSS 1460 less 12 bytes of
  // timestamp option per segment (RFC 6691).
  CHECK(s.stats().retransmit_log[0].seq == sender_config().iss + 1 + 5 * 1448);
  CHECK(s.backoff() == 0);
}

TEST_CASE("SenderConfig is validated: IP versions, MSS, window scale, and the rto::Config (2.5 cap)") {
  auto mixed = sender_config();
  mixed.remote = sender_config(true).remote;
  CHECK_THROWS_AS(netstack::TcpSender{mixed}, std::invalid_argument);
  auto tiny = sender_config();
  tiny.mss = 20;
  CHECK_THROWS_AS(netstack::TcpSender{tiny}, std::invalid_argument);
  auto ws = sender_config();
  ws.window_scale = 15;
  CHECK_THROWS_AS(netstack::TcpSender{ws}, std::invalid_argument);
  auto cap = sender_config();
  cap.rto.max_rto = milliseconds{30'000};  // RFC 6298 2.5: a cap must be at least 60 s
  CHECK_THROWS_AS(netstack::TcpSender{cap}, rto::ConfigError);
}
