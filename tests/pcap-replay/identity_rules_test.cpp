// The pieces of the connection-identity rules on their own
// (pcap-replay/src/analysis/flow_table.hpp): which TSval cannot come from an
// earlier one's clock (limits::kMaxTsvalHz), and the sequence spans that
// route a segment between two connections of one 4-tuple.

#include <doctest/doctest.h>

#include <replay/analysis/thresholds.hpp>

#include "analysis/flow_table.hpp"

using replay::CaptureTime;

namespace {
CaptureTime at_ms(std::int64_t ms) { return CaptureTime{std::chrono::milliseconds{1'700'000'000'000 + ms}}; }
}  // namespace

TEST_CASE("identity rules: a TSval runs at most kMaxTsvalHz ticks a second (+1) ahead of an earlier one of its clock") {
  static_assert(replay::limits::kMaxTsvalHz == 1000);
  // 10 ms apart: at most 10 x 1 kHz / 1000 + 1 = 11 ticks on.
  CHECK_FALSE(replay::another_tsval_clock(at_ms(0), 1000, at_ms(10), 1000));  // a slow clock did not tick
  CHECK_FALSE(replay::another_tsval_clock(at_ms(0), 1000, at_ms(10), 1011));
  CHECK(replay::another_tsval_clock(at_ms(0), 1000, at_ms(10), 1012));
  // Backwards: another clock, however little.
  CHECK(replay::another_tsval_clock(at_ms(0), 1000, at_ms(10), 999));
  // At the same instant only the tick boundary: 1 on, not 2.
  CHECK_FALSE(replay::another_tsval_clock(at_ms(5), 7, at_ms(5), 8));
  CHECK(replay::another_tsval_clock(at_ms(5), 7, at_ms(5), 9));
  // Across the 32-bit wrap: 0xFFFFFFFF then 4 is 5 ticks on in 10 ms.
  CHECK_FALSE(replay::another_tsval_clock(at_ms(0), 0xFFFFFFFFu, at_ms(10), 4));
  // A day apart (86 400 000 ticks at most, + 1): no overflow in the product.
  CHECK_FALSE(replay::another_tsval_clock(at_ms(0), 0, at_ms(86'400'000), 86'400'001));
  CHECK(replay::another_tsval_clock(at_ms(0), 0, at_ms(86'400'000), 86'400'002));
}

TEST_CASE("identity rules: a sequence span grows by what is sent and measures how far a number is from it") {
  replay::SeqSpan s;
  CHECK(s.distance(5) == 0xFFFFFFFFu);  // unknown: farther than anything known
  s.add(1000, 1001);                    // a SYN
  s.add(1001, 2001);                    // 1000 bytes
  CHECK(s.lo == 1000);
  CHECK(s.end == 2001);
  CHECK(s.distance(1000) == 0);
  CHECK(s.distance(2001) == 0);
  CHECK(s.distance(2002) == 1);
  CHECK(s.distance(990) == 10);
  s.add(1500, 1600);  // a retransmission inside: nothing moves
  CHECK(s.lo == 1000);
  CHECK(s.end == 2001);
  // Across the wrap: a span from 0xFFFFFFF0 to 0x10.
  replay::SeqSpan w;
  w.add(0xFFFFFFF0u, 0xFFFFFFF8u);
  w.add(0xFFFFFFF8u, 0x10u);
  CHECK(w.distance(0) == 0);
  CHECK(w.distance(0x20) == 0x10);
  CHECK(w.distance(0xFFFFFFE0u) == 0x10);
}
