// Bulk transfer over a lossy simulated path: every byte arrives once and in
// order, and the run is the same for the same seed.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "sim_fixture.hpp"

using namespace nstest;

namespace {

struct BulkResult {
  bool completed = false;
  std::vector<std::uint8_t> received;
  netstack::SenderStats stats;
  netstack::ReceiverStats rstats;
  netstack::LinkStats fwd;
  netstack::LinkStats rev;
};

BulkResult bulk(std::size_t bytes, double loss, std::uint64_t seed, std::optional<std::string> pcap = {}) {
  auto sc = sender_config();
  auto rc = receiver_config();
  rc.delayed_ack = true;
  netstack::TcpSender s(sc);
  netstack::TcpReceiver r(rc);
  netstack::SimConfig cfg;
  cfg.forward = plain_link(milliseconds{20});
  cfg.forward.bandwidth_bps = 50'000'000;
  cfg.forward.queue_limit = 200;
  cfg.forward.loss = loss;
  cfg.forward.seed = seed;
  cfg.reverse = plain_link(milliseconds{20});
  cfg.reverse.loss = loss;
  cfg.reverse.seed = seed + 1;
  cfg.pcap_path = pcap;
  netstack::SimNetwork net(cfg, s, r);
  s.write(pattern(bytes, seed));
  s.close();
  s.connect(at_ms(0));
  BulkResult out;
  out.completed = net.run_to_completion(at_ms(600'000));
  out.received = r.read();
  out.stats = s.stats();
  out.rstats = r.stats();
  out.fwd = net.forward().stats();
  out.rev = net.reverse().stats();
  return out;
}

}  // namespace

TEST_CASE("1 % random loss each way over 10 MB: every byte delivered once and in order; capture clean") {
  constexpr std::size_t kBytes = 10 * 1000 * 1000;
  const auto pcap = temp_dir() / "bulk-10MB.pcap";
  const auto r = bulk(kBytes, 0.01, 7, pcap.string());
  CHECK(r.completed);
  CHECK(r.received.size() == kBytes);
  CHECK(r.received == pattern(kBytes, 7));
  CHECK(r.rstats.bytes_delivered == kBytes);  // counted once each: duplicates are not re-delivered
  CHECK(r.stats.bytes_acked == kBytes);
  // The link really lost about 1 % (about 7000+ data segments: dozens of losses).
  CHECK(r.fwd.lost_random > 30);
  CHECK(r.stats.retransmissions >= r.fwd.lost_random);
  CHECK(r.stats.retransmissions ==
        r.stats.retransmissions_timeout + r.stats.retransmissions_fast + r.stats.retransmissions_after_timeout);
  CHECK(r.stats.fast_recoveries > 0);
  MESSAGE("10 MB: ", r.stats.data_segments_sent, " data segments, ", r.fwd.lost_random, " lost forward, ",
          r.rev.lost_random, " lost reverse, retransmissions ", r.stats.retransmissions, " (timeout ",
          r.stats.retransmissions_timeout, ", fast ", r.stats.retransmissions_fast, ", after-timeout ",
          r.stats.retransmissions_after_timeout, "), timeouts ", r.stats.timeouts);
  check_capture(pcap, static_cast<long>(r.stats.retransmissions));
}

TEST_CASE("the simulator is deterministic: the same seed gives the same run, another seed another") {
  const auto a = bulk(300'000, 0.02, 11);
  const auto b = bulk(300'000, 0.02, 11);
  const auto c = bulk(300'000, 0.02, 12);
  CHECK(a.completed);
  CHECK(a.received == pattern(300'000, 11));
  CHECK(a.stats.segments_sent == b.stats.segments_sent);
  CHECK(a.stats.retransmissions == b.stats.retransmissions);
  REQUIRE(a.stats.retransmit_log.size() == b.stats.retransmit_log.size());
  for (std::size_t i = 0; i < a.stats.retransmit_log.size(); ++i) {
    CHECK(a.stats.retransmit_log[i].time == b.stats.retransmit_log[i].time);
    CHECK(a.stats.retransmit_log[i].seq == b.stats.retransmit_log[i].seq);
  }
  CHECK(a.fwd.lost_random == b.fwd.lost_random);
  CHECK((c.fwd.lost_random != a.fwd.lost_random || c.stats.segments_sent != a.stats.segments_sent));
}

TEST_CASE("seed sweep: 5 % loss, jitter, reordering, duplication both ways; every byte once, in order") {
  std::uint64_t timeouts = 0, fast = 0;
  for (std::uint64_t seed = 100; seed < 124; ++seed) {
    CAPTURE(seed);
    auto sc = sender_config(seed % 3 == 0);
    sc.timestamps = seed % 2 == 0;
    auto rc = receiver_config(seed % 3 == 0);
    rc.delayed_ack = seed % 4 < 2;
    rc.sack = seed % 5 != 0;
    netstack::TcpSender s(sc);
    netstack::TcpReceiver r(rc);
    netstack::SimConfig cfg;
    set_sweep_links(cfg, seed);
    netstack::SimNetwork net(cfg, s, r);
    const auto data = pattern(150'000, seed);
    s.write(data);
    s.close();
    s.connect(at_ms(0));
    CHECK(net.run_to_completion(at_ms(3'600'000)));
    CHECK(s.state() == netstack::SenderState::TimeWait);
    CHECK(r.read() == data);
    CHECK(r.stats().bytes_delivered == data.size());
    timeouts += s.stats().timeouts;
    fast += s.stats().retransmissions_fast;
  }
  MESSAGE("seed sweep: ", timeouts, " timeouts, ", fast, " fast retransmissions");
  CHECK(timeouts > 10);  // the sweep really exercised both recovery paths
  CHECK(fast > 10);
}
