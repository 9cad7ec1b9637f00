// rto::RttSampler: RFC 6298 section 3 (Karn, one timed segment per RTT) and
// RFC 7323 section 4 (RTTM from TSecr), modulo 2^32.

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>

#include "rto/rtt_sampler.hpp"
#include "rto/seq.hpp"
#include "test_util.hpp"

using rto::Instant;
using rto_test::at_ms;
using rto_test::at_us;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

// An rto::RttSampler beside the SND.UNA and SND.MAX a sender keeps (from the
// first segment sent, and from each ACK of new data) and tells it.
struct RttSampler : rto::RttSampler {
  using rto::RttSampler::RttSampler;
  std::uint32_t una = 0, max = 0;
  bool started = false;
  void on_send(std::uint32_t seq, std::uint32_t len, Instant now) {
    if (!started) {
      started = true;
      una = max = seq;
    }
    rto::RttSampler::on_send(seq, len, max, now);
    max = rto::seq_max(max, seq + len);
  }
  std::optional<microseconds> on_ack(std::uint32_t ack, Instant now) {
    const auto r = rto::RttSampler::on_ack(ack, una, max, now);
    acked(ack);
    return r;
  }
  std::optional<microseconds> on_ack_ts(std::uint32_t ack, std::uint32_t tsecr, Instant now) {
    const auto r = rto::RttSampler::on_ack_ts(ack, tsecr, una, max, now);
    acked(ack);
    return r;
  }
  std::uint32_t snd_una() const { return una; }

 private:
  void acked(std::uint32_t ack) {
    if (rto::seq_gt(ack, una) && rto::seq_le(ack, max)) una = ack;
  }
};

}  // namespace

TEST_CASE("3 sampler: a new segment is timed and its ACK gives the sample") {
  RttSampler s;
  s.on_send(1000, 500, at_ms(0));
  CHECK(s.timing());
  CHECK(s.timed_end() == 1500u);
  CHECK_FALSE(s.on_ack(1200, at_ms(50)).has_value());  // partial: does not cover the end
  CHECK(s.on_ack(1500, at_ms(120)) == milliseconds{120});
  CHECK_FALSE(s.timing());
}

TEST_CASE("3 sampler: one segment per RTT; later segments sent meanwhile are not timed") {
  RttSampler s;
  s.on_send(0, 100, at_ms(0));    // timed
  s.on_send(100, 100, at_ms(10)); // not timed: one is already
  CHECK(s.timed_end() == 100u);
  CHECK(s.on_ack(100, at_ms(80)) == milliseconds{80});
  CHECK_FALSE(s.on_ack(200, at_ms(90)).has_value());  // S2 was never timed
  s.on_send(200, 100, at_ms(95));  // timing restarts on the next new segment
  CHECK(s.on_ack(300, at_ms(170)) == milliseconds{75});
}

TEST_CASE("RFC6298-3-karn Karn: a retransmission of the timed segment cancels its timing") {
  RttSampler s;
  s.on_send(0, 100, at_ms(0));
  s.on_send(0, 100, at_ms(1000));  // retransmitted
  CHECK_FALSE(s.timing());
  CHECK_FALSE(s.on_ack(100, at_ms(1040)).has_value());  // ambiguous: no sample
}

TEST_CASE("RFC6298-3-karn Karn: a retransmission overlapping only part of the timed segment cancels it too") {
  RttSampler s;
  s.on_send(0, 100, at_ms(0));
  s.on_send(50, 20, at_ms(300));
  CHECK_FALSE(s.on_ack(100, at_ms(400)).has_value());
}

TEST_CASE("RFC6298-3-karn Karn: retransmitting an earlier segment does not void the timing of a later one") {
  RttSampler s;
  s.on_send(0, 100, at_ms(0));    // S1 timed
  CHECK(s.on_ack(100, at_ms(50)) == milliseconds{50});
  s.on_send(100, 100, at_ms(60)); // S2 timed
  s.on_send(200, 100, at_ms(61)); // S3
  // Nothing of S2 is resent; a retransmission of S3 leaves S2's timing alone.
  s.on_send(200, 100, at_ms(100));
  CHECK(s.timing());
  CHECK(s.on_ack(200, at_ms(110)) == milliseconds{50});
}

TEST_CASE("RFC6298-3-karn Karn: on_timeout (5.4) cancels timing; the retransmission starts no new timing") {
  RttSampler s;
  s.on_send(0, 100, at_ms(0));
  s.on_timeout();
  s.on_send(0, 100, at_ms(1000));
  CHECK_FALSE(s.timing());
  CHECK_FALSE(s.on_ack(100, at_ms(1050)).has_value());
}

TEST_CASE("3 sampler: duplicate and old ACKs give no sample and do not move SND.UNA back") {
  RttSampler s;
  s.on_send(0, 100, at_ms(0));
  s.on_send(100, 100, at_ms(0));
  CHECK(s.on_ack(100, at_ms(30)).has_value());
  CHECK_FALSE(s.on_ack(100, at_ms(40)).has_value());
  CHECK_FALSE(s.on_ack(50, at_ms(45)).has_value());
  CHECK(s.snd_una() == 100u);
  CHECK_FALSE(s.on_ack(5000, at_ms(50)).has_value());  // acknowledges data never sent: ignored
  CHECK(s.snd_una() == 100u);
}

TEST_CASE("3 sampler: sequence numbers wrap modulo 2^32 (B17 kind)") {
  RttSampler s;
  s.on_send(0xFFFFFF00u, 0x200, at_ms(0));  // ends at 0x100 after the wrap
  CHECK(s.timed_end() == 0x100u);
  CHECK_FALSE(s.on_ack(0xFFFFFFF0u, at_ms(10)).has_value());
  CHECK(s.on_ack(0x100u, at_ms(25)) == milliseconds{25});
  s.on_send(0x100u, 100, at_ms(30));
  s.on_send(0xFFFFFF00u, 0x100, at_ms(31));  // resend of old data before the wrap: not timed again
  CHECK(s.timed_end() == 0x164u);
}

TEST_CASE("RFC6298-3-karn sampler: the SYN is timed like data (1 sequence number); a retransmitted SYN gives no sample (B15)") {
  RttSampler s;
  s.on_send(7777, 1, at_ms(0));     // SYN
  s.on_send(7777, 1, at_ms(1000));  // SYN retransmitted
  CHECK_FALSE(s.on_ack(7778, at_ms(1100)).has_value());
  RttSampler t;
  t.on_send(7777, 1, at_ms(0));
  CHECK(t.on_ack(7778, at_ms(40)) == milliseconds{40});
}

TEST_CASE("B05 c: an ACK processed before the send time (clock stepped back) gives no sample") {
  RttSampler s;
  s.on_send(0, 100, at_ms(5000));
  CHECK_FALSE(s.on_ack(100, at_ms(3100)).has_value());  // -1900 ms: discarded
  CHECK_FALSE(s.timing());
}

TEST_CASE("RFC 7323 TSval: floor(now / tick) + offset, modulo 2^32") {
  RttSampler s;  // 1 ms tick
  CHECK(s.tsval(at_us(5'000'999)) == 5000u);
  RttSampler t(milliseconds{10}, 0xFFFFFFFFu);
  CHECK(t.tsval(at_ms(25)) == 1u);  // 2 ticks + (2^32 - 1) wraps to 1
}

TEST_CASE("RFC7323-4 RTTM (4.1): each ACK advancing SND.UNA gives now - TSecr, in TS ticks") {
  RttSampler s;
  s.on_send(0, 100, at_ms(1000));
  s.on_send(100, 100, at_ms(1010));
  // TSecr echoes the TSval of the segment that advanced the window (1000 and 1010).
  CHECK(s.on_ack_ts(100, 1000, at_ms(1060)) == milliseconds{60});
  CHECK(s.on_ack_ts(200, 1010, at_ms(1075)) == milliseconds{65});
}

TEST_CASE("RFC7323-4 (4.1): with timestamps a retransmitted segment's ACK is a valid sample (no Karn ambiguity)") {
  RttSampler s;
  s.on_send(0, 100, at_ms(0));
  s.on_send(0, 100, at_ms(1000));  // retransmission, TSval 1000
  CHECK(s.on_ack_ts(100, 1000, at_ms(1040)) == milliseconds{40});
}

TEST_CASE("RFC7323-4 (4.1): duplicate ACKs never give a sample from TSecr") {
  RttSampler s;
  s.on_send(0, 100, at_ms(0));
  s.on_send(100, 100, at_ms(0));
  CHECK(s.on_ack_ts(100, 0, at_ms(30)).has_value());
  CHECK_FALSE(s.on_ack_ts(100, 0, at_ms(500)).has_value());  // dup: would be 500 ms
  CHECK_FALSE(s.on_ack_ts(100, 20, at_ms(600)).has_value());
}

TEST_CASE("B05 a: a TSecr 3 ticks in the future is discarded, not wrapped to ~4295 s") {
  RttSampler s;
  s.on_send(0, 100, at_ms(4900));
  REQUIRE(s.tsval(at_ms(5000)) == 5000u);
  CHECK_FALSE(s.on_ack_ts(100, 5003, at_ms(5000)).has_value());
}

TEST_CASE("B05 b: across the TS wrap (5 - 4294967290) mod 2^32 = 11 ms is a valid sample") {
  // Offset chosen so the TS clock reads 4294967290 at t = 0 and 5 at t = 11 ms.
  RttSampler s(milliseconds{1}, 4294967290u);
  s.on_send(0, 100, at_ms(0));
  REQUIRE(s.tsval(at_ms(0)) == 4294967290u);
  REQUIRE(s.tsval(at_ms(11)) == 5u);
  CHECK(s.on_ack_ts(100, 4294967290u, at_ms(11)) == milliseconds{11});
}

TEST_CASE("RFC 7323: the TS tick scales the sample (10 ms ticks)") {
  RttSampler s(milliseconds{10});
  s.on_send(0, 100, at_ms(0));  // TSval 0
  CHECK(s.on_ack_ts(100, 0, at_ms(57)) == milliseconds{50});  // 5 ticks
}

TEST_CASE("RFC6298-3-karn sampler told SND.MAX: a segment starting below it is a retransmission, never timed") {
  rto::RttSampler s;
  s.on_send(1000, 100, 1100, at_ms(0));  // below SND.MAX 1100: a retransmission
  CHECK_FALSE(s.timing());
  s.on_send(1100, 100, 1100, at_ms(10));  // at SND.MAX: new data, timed
  CHECK(s.timing());
  CHECK(s.timed_end() == 1200u);
  // An ACK is judged against the SND.UNA and SND.MAX the sender passes.
  CHECK_FALSE(s.on_ack(1200, 1200, 1200, at_ms(60)).has_value());  // not above SND.UNA: a duplicate
  CHECK_FALSE(s.on_ack(1300, 1100, 1200, at_ms(60)).has_value());  // above SND.MAX: data never sent
  CHECK(s.timing());
  CHECK(s.on_ack(1200, 1100, 1200, at_ms(60)) == milliseconds{50});  // 60 - 10
  CHECK_FALSE(s.timing());
  // With timestamps the same window applies: TSecr 0 echoed at 75 ms gives 75 ms, once.
  CHECK_FALSE(s.on_ack_ts(1200, 0, 1200, 1200, at_ms(75)).has_value());
  s.on_send(1200, 100, 1200, at_ms(70));
  CHECK(s.on_ack_ts(1300, 0, 1200, 1300, at_ms(75)) == milliseconds{75});
}

TEST_CASE("a sample across the ends of the caller's clock is discarded, not overflowed") {
  const Instant lowest{microseconds{INT64_MIN}}, highest{microseconds{INT64_MAX}};
  // Sent at the last microsecond, ACKed at the first: the clock went back.
  RttSampler back;
  back.on_send(1000, 100, highest);
  CHECK_FALSE(back.on_ack(1100, lowest).has_value());
  // Sent at the first, ACKed at the last: 2^64 - 1 us does not fit microseconds.
  RttSampler forward;
  forward.on_send(1000, 100, lowest);
  CHECK_FALSE(forward.on_ack(1100, highest).has_value());
  // One microsecond short of the range still is a (refusable) sample: INT64_MAX - 0.
  RttSampler edge;
  edge.on_send(1000, 100, Instant{microseconds{0}});
  CHECK(edge.on_ack(1100, highest) == microseconds{INT64_MAX});
}
