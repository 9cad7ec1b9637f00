// The simulator's link model and random generator: delay, jitter, bandwidth
// and drop-tail queue, loss (random, blackholes, chosen numbers), reordering,
// duplication, and determinism for a seed. Expected values by hand.

#include <doctest/doctest.h>

#include "netstack/sim_link.hpp"
#include "netstack/sim_random.hpp"
#include "sim_fixture.hpp"

using namespace nstest;
using netstack::LinkConfig;
using netstack::SimLink;

namespace {

std::vector<std::uint8_t> packet(std::size_t n, std::uint8_t tag) { return std::vector<std::uint8_t>(n, tag); }

}  // namespace

TEST_CASE("SimRandom: same seed same sequence; below() stays in range; chance() edges") {
  netstack::SimRandom a(5), b(5), c(6);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    CHECK(x == b.next());
    differs |= x != c.next();
  }
  CHECK(differs);
  netstack::SimRandom r(1);
  std::array<int, 7> hist{};
  for (int i = 0; i < 7000; ++i) {
    const auto v = r.below(7);
    REQUIRE(v < 7);
    ++hist[v];
  }
  for (int h : hist) CHECK((h > 800 && h < 1200));  // 1000 expected each
  CHECK(r.below(0) == 0);
  int hits = 0;
  for (int i = 0; i < 1000; ++i) {
    CHECK_FALSE(r.chance(0.0));
    CHECK(r.chance(1.0));
    hits += r.chance(0.25) ? 1 : 0;
  }
  CHECK((hits > 200 && hits < 300));  // 250 expected
}

TEST_CASE("SimLink: propagation delay only") {
  LinkConfig cfg;
  cfg.delay = milliseconds{30};
  SimLink link(cfg);
  CHECK(link.send(at_ms(10), packet(100, 1)));
  CHECK(link.next_delivery() == at_ms(40));
  CHECK(link.deliver_due(at_ms(39)).empty());
  const auto got = link.deliver_due(at_ms(40));
  REQUIRE(got.size() == 1);
  CHECK(got[0] == packet(100, 1));
  CHECK(link.idle());
}

TEST_CASE("SimLink: bandwidth serialises back to back and the queue drops its tail") {
  // 1000-byte datagrams at 8 Mbit/s: 8000 bits / 8e6 = 1 ms each. Delay 10 ms.
  // Four sent at t=0 with queue_limit 2: #1 on the wire (done 1 ms), #2 and #3 wait
  // (done 2 and 3 ms), #4 finds 2 waiting: dropped. Deliveries at 11, 12, 13 ms.
  LinkConfig cfg;
  cfg.delay = milliseconds{10};
  cfg.bandwidth_bps = 8'000'000;
  cfg.queue_limit = 2;
  SimLink link(cfg);
  CHECK(link.send(at_ms(0), packet(1000, 1)));
  CHECK(link.send(at_ms(0), packet(1000, 2)));
  CHECK(link.send(at_ms(0), packet(1000, 3)));
  CHECK_FALSE(link.send(at_ms(0), packet(1000, 4)));
  CHECK(link.stats().lost_queue == 1);
  CHECK(link.next_delivery() == at_ms(11));
  CHECK(link.deliver_due(at_ms(11)).size() == 1);
  CHECK(link.next_delivery() == at_ms(12));
  CHECK(link.deliver_due(at_ms(13)).size() == 2);
  // At t=2 ms #1 and #2 have left the queue: one waits (#3 finishes at 3 ms), room for one more.
  SimLink l2(cfg);
  for (int i = 0; i < 3; ++i) l2.send(at_ms(0), packet(1000, 1));
  CHECK(l2.send(at_ms(2), packet(1000, 5)));  // starts at 3 ms, done at 4 ms, arrives 14 ms
  auto all = l2.deliver_due(at_ms(14));
  CHECK(all.size() == 4);
  CHECK(all.back() == packet(1000, 5));
}

TEST_CASE("SimLink: blackholes are half-open intervals of send time; chosen numbers are lost") {
  LinkConfig cfg;
  cfg.delay = milliseconds{5};
  cfg.blackholes = {{at_ms(100), at_ms(200)}};
  cfg.drop_numbers = {2};
  SimLink link(cfg);
  CHECK(link.send(at_ms(99), packet(10, 1)));
  CHECK_FALSE(link.send(at_ms(99), packet(10, 2)));  // datagram number 2
  CHECK_FALSE(link.send(at_ms(100), packet(10, 3)));
  CHECK_FALSE(link.send(at_ms(199), packet(10, 4)));
  CHECK(link.send(at_ms(200), packet(10, 5)));
  CHECK(link.stats().lost_blackhole == 2);
  CHECK(link.stats().lost_chosen == 1);
}

TEST_CASE("SimLink: jitter keeps FIFO order; reorder lets later datagrams overtake; duplicates arrive twice") {
  LinkConfig cfg;
  cfg.delay = milliseconds{10};
  cfg.jitter = milliseconds{8};
  cfg.seed = 9;
  SimLink link(cfg);
  for (std::uint8_t i = 0; i < 50; ++i) link.send(at_ms(i), packet(1, i));
  const auto got = link.deliver_due(at_ms(1000));
  REQUIRE(got.size() == 50);
  for (std::uint8_t i = 0; i < 50; ++i) CHECK(got[i][0] == i);

  LinkConfig r;
  r.delay = milliseconds{10};
  r.reorder = 1.0;  // every datagram held 20 ms more: still FIFO among themselves
  r.reorder_delay = milliseconds{20};
  SimLink all_late(r);
  all_late.send(at_ms(0), packet(1, 1));
  CHECK(all_late.next_delivery() == at_ms(30));

  LinkConfig m;
  m.delay = milliseconds{10};
  m.reorder = 0.5;
  m.reorder_delay = milliseconds{20};
  m.seed = 3;
  SimLink mixed(m);
  for (std::uint8_t i = 0; i < 40; ++i) mixed.send(at_ms(i), packet(1, i));
  const auto out = mixed.deliver_due(at_ms(1000));
  REQUIRE(out.size() == 40);
  bool overtaken = false;
  for (std::size_t i = 1; i < out.size(); ++i) overtaken |= out[i][0] < out[i - 1][0];
  CHECK(overtaken);
  CHECK(mixed.stats().reordered > 5);

  LinkConfig d;
  d.duplicate = 1.0;
  SimLink dup(d);
  dup.send(at_ms(0), packet(3, 7));
  CHECK(dup.deliver_due(at_ms(1000)).size() == 2);
  CHECK(dup.stats().duplicated == 1);
}

TEST_CASE("SimLink: random loss rate follows the probability and the seed") {
  LinkConfig cfg;
  cfg.loss = 0.1;
  cfg.seed = 77;
  SimLink a(cfg), b(cfg);
  for (int i = 0; i < 10'000; ++i) {
    CHECK(a.send(at_ms(i), packet(1, 0)) == b.send(at_ms(i), packet(1, 0)));
  }
  CHECK((a.stats().lost_random > 900 && a.stats().lost_random < 1100));  // 1000 expected
}
