// The parts TcpSender is built from, each on its own: the SACK scoreboard
// (RFC 2018 / RFC 6675), the persist timer (RFC 9293 3.8.6.1) and the send
// buffer, with their named limits at the boundary.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "netstack/persist_timer.hpp"
#include "netstack/sack_scoreboard.hpp"
#include "netstack/send_buffer.hpp"

using netstack::PersistTimer;
using netstack::SackScoreboard;
using netstack::SendBuffer;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

rto::Instant at_ms(std::int64_t ms) { return rto::Instant{milliseconds{ms}}; }

wire::TcpOptions sack_blocks(std::vector<wire::SackBlock> blocks) {
  wire::TcpOptions o;
  for (const auto& b : blocks) o.sack[o.sack_count++] = b;
  return o;
}

}  // namespace

TEST_CASE("SACK scoreboard: merging, known ranges, pruning") {
  SackScoreboard s;
  CHECK(s.add(100, 200));
  CHECK(s.add(300, 400));
  CHECK_FALSE(s.add(120, 180));  // inside [100, 200)
  CHECK(s.add(200, 300));        // touches both: one range [100, 400)
  REQUIRE(s.ranges().size() == 1);
  CHECK(s.ranges()[0] == SackScoreboard::Range{100, 400});
  s.prune(250);  // SND.UNA moved to 250: [250, 400) is left
  CHECK(s.ranges()[0] == SackScoreboard::Range{250, 400});
  s.prune(400);
  CHECK(s.ranges().empty());
}

TEST_CASE("SACK scoreboard: blocks are clipped to [SND.UNA, SND.MAX); D-SACK and unsent data report nothing") {
  SackScoreboard s;
  const std::uint32_t una_seq = 1'000'000;  // SND.UNA on the wire = offset 10
  const std::uint64_t una = 10, max = 5010;
  // Offsets from una_seq: [-100, -50) below SND.UNA (D-SACK); [0, 5001) one
  // past SND.MAX - SND.UNA = 5000 (never sent).
  CHECK_FALSE(s.record(sack_blocks({{una_seq - 100, una_seq - 50}}), una_seq, una, max));
  CHECK_FALSE(s.record(sack_blocks({{una_seq, una_seq + 5001}}), una_seq, una, max));
  CHECK(s.ranges().empty());
  // [-20, 1000) straddles SND.UNA: clipped to offsets [10, 1010).
  CHECK(s.record(sack_blocks({{una_seq - 20, una_seq + 1000}}), una_seq, una, max));
  REQUIRE(s.ranges().size() == 1);
  CHECK(s.ranges()[0] == SackScoreboard::Range{10, 1010});
  // Exactly up to SND.MAX is accepted: [4000, 5000) -> offsets [4010, 5010).
  CHECK(s.record(sack_blocks({{una_seq + 4000, una_seq + 5000}}), una_seq, una, max));
  CHECK(s.ranges().back() == SackScoreboard::Range{4010, 5010});
  // The same blocks again are no news.
  CHECK_FALSE(s.record(sack_blocks({{una_seq + 4000, una_seq + 5000}}), una_seq, una, max));
}

TEST_CASE("SACK scoreboard: at most kMaxRanges ranges; past it the highest is forgotten") {
  SackScoreboard s;
  // Disjoint, non-adjacent ranges [10k, 10k + 5) for k = 0 .. kMaxRanges - 1.
  for (std::uint64_t k = 0; k < SackScoreboard::kMaxRanges; ++k) CHECK(s.add(10 * k, 10 * k + 5));
  CHECK(s.ranges().size() == SackScoreboard::kMaxRanges);
  CHECK(s.ranges().back().first == 10 * (SackScoreboard::kMaxRanges - 1));
  // One more below the others: the count would be 65, so the highest goes.
  CHECK(s.add(1000, 1002) == true);  // 1000 > 630: it is itself the highest, and dropped
  CHECK(s.ranges().size() == SackScoreboard::kMaxRanges);
  CHECK(s.ranges().back().first == 630);
  CHECK(s.add(6, 8));  // between [0, 5) and [10, 15): kept, [630, 635) dropped
  CHECK(s.ranges().size() == SackScoreboard::kMaxRanges);
  CHECK(s.ranges().back().first == 620);
  s.clear();
  CHECK(s.ranges().empty());
}

TEST_CASE("persist timer: first probe after the RTO, doubling, capped at kMaxInterval = 60 s") {
  const microseconds base = milliseconds{1000};
  PersistTimer p;
  p.update(false, at_ms(0), base);
  CHECK_FALSE(p.deadline().has_value());
  p.update(true, at_ms(0), base);
  REQUIRE(p.deadline().has_value());
  CHECK(*p.deadline() == at_ms(1000));
  CHECK_FALSE(p.due(at_ms(999)));
  CHECK(p.due(at_ms(1000)));
  p.update(true, at_ms(500), base);  // already armed: unchanged
  CHECK(*p.deadline() == at_ms(1000));
  // Probes 1..5 double the wait: 2, 4, 8, 16, 32 s. Probe 6: 64 s > 60 s -> 60 s.
  rto::Instant t = at_ms(1000);
  const std::int64_t expected_ms[] = {2000, 4000, 8000, 16000, 32000, 60000, 60000};
  for (std::int64_t w : expected_ms) {
    CAPTURE(w);
    p.on_probe_sent(t, base);
    CHECK(*p.deadline() - t == milliseconds{w});
    t = *p.deadline();
  }
  CHECK(PersistTimer::kMaxInterval == milliseconds{60'000});
  // The window opened: disarmed and the backoff is forgotten.
  p.update(false, t, base);
  CHECK_FALSE(p.deadline().has_value());
  p.update(true, t, base);
  CHECK(*p.deadline() - t == base);
}

TEST_CASE("send buffer: offsets from 1, release, and contents across the compaction threshold") {
  SendBuffer b;
  // 3 MiB of bytes whose value is their offset mod 251.
  const std::size_t n = 3 * SendBuffer::kCompactAfterBytes;
  std::vector<std::uint8_t> data(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::uint8_t>((i + 1) % 251);
  b.append(data);
  CHECK(b.written() == n);
  CHECK(b.data_end() == n + 1);
  CHECK(b.bytes(1, 3)[0] == 1);
  // Dropped bytes = off - 1. Compaction needs more than kCompactAfterBytes
  // dropped and more than half of the 3 MiB stored: off = 1 MiB + 1 drops
  // exactly 1 MiB (kept in place), off = 1 MiB + 2 one more but under half,
  // off = 2 MiB + 2 drops 2 MiB + 1 (compacts); off = n - 1 reads after it.
  const std::uint64_t mib = SendBuffer::kCompactAfterBytes;
  for (std::uint64_t off : {mib + 1, mib + 2, 2 * mib + 2, std::uint64_t{n} - 1}) {
    CAPTURE(off);
    b.release_to(off);
    const auto s = b.bytes(off, 2);  // byte at offset k is data[k - 1] = k % 251
    CHECK(s[0] == off % 251);
    CHECK(s[1] == (off + 1) % 251);
  }
  b.release_to(5);  // already released: no-op
  CHECK(b.bytes(n, 1)[0] == n % 251);
}
