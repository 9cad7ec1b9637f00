// End-to-end transfers on a clean simulated path: handshake, data, FIN close,
// over IPv4 and IPv6, with and without timestamps and delayed ACKs.

#include <doctest/doctest.h>

#include "sim_fixture.hpp"

using namespace nstest;
using netstack::SenderState;

namespace {

struct Run {
  std::vector<std::uint8_t> received;
  netstack::SenderStats stats;
  SenderState state;
  netstack::ReceiverState rstate;
};

Run transfer(std::size_t bytes, bool v6, bool timestamps, bool delayed_ack) {
  auto sc = sender_config(v6);
  sc.timestamps = timestamps;
  auto rc = receiver_config(v6);
  rc.delayed_ack = delayed_ack;
  netstack::TcpSender s(sc);
  netstack::TcpReceiver r(rc);
  netstack::SimConfig cfg;
  cfg.forward = plain_link(milliseconds{25});
  cfg.reverse = plain_link(milliseconds{25});
  netstack::SimNetwork net(cfg, s, r);
  const auto data = pattern(bytes);
  s.write(data);
  s.close();
  s.connect(at_ms(0));
  CHECK(net.run_to_completion(at_ms(60'000)));
  return Run{r.read(), s.stats(), s.state(), r.state()};
}

}  // namespace

TEST_CASE("clean path: every byte delivered once, in order, then FIN close (IPv4/IPv6, TS on/off)") {
  for (bool v6 : {false, true}) {
    for (bool ts : {true, false}) {
      for (bool delack : {false, true}) {
        CAPTURE(v6);
        CAPTURE(ts);
        CAPTURE(delack);
        const auto run = transfer(200'000, v6, ts, delack);
        CHECK(run.received == pattern(200'000));
        CHECK(run.state == SenderState::TimeWait);
        CHECK(run.rstate == netstack::ReceiverState::Closed);
        CHECK(run.stats.retransmissions == 0);
        CHECK(run.stats.timeouts == 0);
        CHECK(run.stats.bytes_acked == 200'000);
      }
    }
  }
}
