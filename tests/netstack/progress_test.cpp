// The live progress lines of `netstack send` (netstack::progress_line):
// times from the SYN and sequence numbers relative to the ISN, as in the
// capture read by Wireshark and pcap-replay.

#include <doctest/doctest.h>

#include "netstack/progress.hpp"

using netstack::progress_line;
using netstack::RetransmitKind;
using netstack::RetransmitRecord;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {
const rto::Instant kSyn{microseconds{5'000'000}};  // the SYN at 5 s on the caller's clock
constexpr std::uint32_t kIss = 0xFFFFFF00u;         // close to the wrap on purpose
}  // namespace

TEST_CASE("progress line: an RTO at 1.1 s after the SYN, seq relative across the wrap, with the waited time") {
  RetransmitRecord r{};
  r.time = kSyn + milliseconds{1100};
  r.kind = RetransmitKind::Timeout;
  r.seq = kIss + 1;  // relative 1, the first data byte (0xFFFFFF01)
  r.len = 1000;
  r.rto = milliseconds{2000};
  r.backoff = 1;
  r.waited = microseconds{1'000'240};  // 1000.24 ms, printed to 0.1 ms
  CHECK(progress_line(r, kSyn, kIss) == "+1.100 s  RTO        seq 1 len 1000: waited 1000.2 ms, backoff 1, RTO now 2000 ms");
}

TEST_CASE("progress line: SYN timeout, fast and go-back-N retransmissions") {
  RetransmitRecord syn{};
  syn.time = kSyn + milliseconds{1000};
  syn.kind = RetransmitKind::Timeout;
  syn.seq = kIss;
  syn.len = 1;
  syn.syn = true;
  syn.rto = milliseconds{2000};
  syn.backoff = 1;
  syn.waited = milliseconds{1000};
  CHECK(progress_line(syn, kSyn, kIss) == "+1.000 s  SYN RTO    seq 0 len 1: waited 1000.0 ms, backoff 1, RTO now 2000 ms");

  RetransmitRecord fast{};
  fast.time = kSyn + microseconds{512'400};
  fast.kind = RetransmitKind::Fast;
  fast.seq = kIss + 14281;  // 0x000037C9 after the wrap; relative 14281
  fast.len = 1428;
  CHECK(progress_line(fast, kSyn, kIss) == "+0.512 s  fast       seq 14281 len 1428");

  RetransmitRecord after = fast;
  after.kind = RetransmitKind::AfterTimeout;
  CHECK(progress_line(after, kSyn, kIss) == "+0.512 s  after-RTO  seq 14281 len 1428");
}
