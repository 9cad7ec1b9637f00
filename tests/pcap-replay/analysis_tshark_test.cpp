// The retransmissions and RTT samples pcap-replay finds, against tshark's
// own analysis of the same files (run from the test through popen).
// Each kind of difference is named and checked:
//  - tshark calls a retransmission sent within 3 ms of the highest segment
//    "out-of-order" (its ooo threshold), not a retransmission; pcap-replay
//    knows it is a retransmission (its sequence was sent before).
//  - tshark's ack_rtt times the LAST segment an ACK covers; pcap-replay, like
//    Linux, the OLDEST newly acked one: equal when the ACK covers one
//    segment, never shorter otherwise (except when the oldest was SACKed
//    earlier: Linux then skips it).

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <sstream>

#include "replay_scenario.hpp"
#include "common/tools.hpp"

using namespace replaytest;
using replaytest::Profile;
using replay::SendKind;

namespace {

// The captures compared (blackhole-backoff and ipv6 are left out only to keep
// the test fast: tshark needs ~4 s for each; their retransmissions are the
// same kinds as in random-loss).
const char* const kCompared[] = {"syn-loss", "random-loss", "bulk-clean"};

/// One frame as tshark analyses it.
struct TsFrame {
  std::uint64_t frame = 0;
  bool retx = false, fast = false, spurious = false, ooo = false;
  std::uint16_t srcport = 0;
  std::uint64_t seq = 0, ack = 0, len = 0;
  std::optional<double> ack_rtt_us;
  std::optional<std::uint64_t> acks_frame;
  bool sack = false;
  std::optional<std::uint16_t> ip_id;  ///< IPv4 Identification (innermost header)
};

/// tshark's analysis of a file, one pass, cached.
const std::vector<TsFrame>& tshark_frames(const std::string& file) {
  static std::map<std::string, std::vector<TsFrame>> cache;
  auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  const std::string cmd =
      "tshark -n -r '" + file +
      "' -T fields -E separator=/t -e frame.number -e tcp.analysis.retransmission"
      " -e tcp.analysis.fast_retransmission -e tcp.analysis.spurious_retransmission"
      " -e tcp.analysis.out_of_order -e tcp.srcport -e tcp.seq -e tcp.ack -e tcp.len"
      " -e tcp.analysis.ack_rtt -e tcp.analysis.acks_frame -e tcp.options.sack_le -e ip.id 2>/dev/null";
  std::vector<TsFrame> out;
  std::stringstream ss(run(cmd));
  std::string line;
  while (std::getline(ss, line)) {
    std::vector<std::string> c;
    std::size_t start = 0;
    while (true) {
      const auto tab = line.find('\t', start);
      c.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (c.size() < 12 || c[5].empty()) continue;  // not TCP
    TsFrame f;
    f.frame = std::stoull(c[0]);
    f.retx = !c[1].empty();
    f.fast = !c[2].empty();
    f.spurious = !c[3].empty();
    f.ooo = !c[4].empty();
    f.srcport = static_cast<std::uint16_t>(std::stoul(c[5]));
    f.seq = std::stoull(c[6]);
    f.ack = c[7].empty() ? 0 : std::stoull(c[7]);
    f.len = std::stoull(c[8]);
    if (!c[9].empty()) f.ack_rtt_us = std::stod(c[9]) * 1e6;
    if (!c[10].empty()) f.acks_frame = std::stoull(c[10]);
    f.sack = !c[11].empty();
    if (c.size() > 12 && !c[12].empty()) {
      const std::string id = c[12].substr(c[12].rfind(',') + 1);  // "0x95ec"; tunnels: the last
      f.ip_id = static_cast<std::uint16_t>(std::stoul(id, nullptr, 16));
    }
    out.push_back(f);
  }
  return cache[file] = std::move(out);
}

}  // namespace

TEST_CASE("tshark: retransmissions per flow agree with tcp.analysis.{retransmission,fast,spurious}") {
  if (!testcommon::tshark_available()) return;
  for (const char* name : kCompared) {
    CAPTURE(name);
    const std::string file = linux_trace(name);
    std::set<std::uint64_t> ts_retx, ts_spurious, ts_ooo;
    for (const auto& f : tshark_frames(file)) {
      if (f.retx || f.fast || f.spurious) ts_retx.insert(f.frame);
      if (f.spurious) ts_spurious.insert(f.frame);
      if (f.ooo) ts_ooo.insert(f.frame);
    }
    auto r = analyze(file, Profile::linux_kernel, true);
    std::map<std::uint64_t, std::string_view> mine;
    for (const auto& f : r.flows)
      for (const auto& s : f.senders)
        for (const auto& e : s.timeline)
          if (e.event != "send" && e.event != "ack" && e.event != "dup-ack" && e.event != "sack" &&
              e.event != replay::kCaptureCopyEvent &&                  // not sent again: seen again
              e.event != replay::kHeldSampleEvent &&                   // no segment: a sample taken late
              e.event != replay::to_string(SendKind::tlp_new_data))  // new data: no repeat for tshark either
            mine[e.frame] = e.event;
    // Everything tshark calls a retransmission, pcap-replay does too.
    for (auto fr : ts_retx) {
      CAPTURE(fr);
      CHECK(mine.count(fr) == 1);
    }
    // What pcap-replay adds is exactly tshark's "out-of-order" (3 ms threshold).
    std::size_t extra = 0;
    for (const auto& [fr, kind] : mine) {
      if (ts_retx.count(fr)) continue;
      CAPTURE(fr);
      CHECK(ts_ooo.count(fr) == 1);
      ++extra;
    }
    for (auto fr : ts_spurious) CHECK(mine[fr] == replay::to_string(SendKind::spurious));
    CHECK(mine.size() == ts_retx.size() + extra);
    if (std::string(name) == "random-loss") CHECK(extra > 0);  // the difference does occur
  }
}

namespace {
/// Frames pcap-replay counts as sent (any retransmission kind) and those it
/// ignored as captured twice, with the frame each timeline row says it copies.
struct Retx {
  std::set<std::uint64_t> retx, dups;
  std::map<std::uint64_t, std::uint64_t> copy_of;
};
Retx retransmissions_and_duplicates(const std::string& file) {
  auto r = analyze(file, Profile::rfc6298, true);
  Retx out;
  for (const auto& f : r.flows) {
    out.dups.insert(f.duplicate_frames.begin(), f.duplicate_frames.end());
    for (const auto& s : f.senders)
      for (const auto& e : s.timeline)
        if (e.event == replay::kCaptureCopyEvent)
          out.copy_of[e.frame] = e.copy_of;
        else if (e.event != "send" && e.event != "ack" && e.event != "dup-ack" && e.event != "sack")
          out.retx.insert(e.frame);
  }
  return out;
}
}  // namespace

TEST_CASE("tshark: a packet captured twice (same IPv4 ID) is a retransmission to tshark, a capture duplicate here") {
  if (!testcommon::tshark_available()) return;
  // arkime__wireshark-retrans.pcap holds most packets two to four times, up
  // to 4.6 ms apart, each copy with the same IPv4 ID (one datagram seen at
  // several capture points); tshark flags the data copies as retransmissions.
  const std::string file = (shared_dir() / "traces" / "public" / "arkime__wireshark-retrans.pcap").string();
  const auto& frames = tshark_frames(file);
  std::map<std::uint64_t, const TsFrame*> by_frame;
  for (const auto& f : frames) by_frame[f.frame] = &f;
  const Retx mine = retransmissions_and_duplicates(file);
  std::size_t missing = 0;
  for (const auto& f : frames) {
    if (!(f.retx || f.fast || f.spurious) || mine.retx.count(f.frame)) continue;
    CAPTURE(f.frame);
    CHECK(mine.dups.count(f.frame) == 1);  // every retransmission tshark has and we do not is a duplicate
    ++missing;
  }
  CHECK(missing > 10);
  // Every duplicate has a timeline row that names an earlier frame with the
  // same segment and the same IPv4 ID, per tshark's own decoding.
  CHECK(mine.copy_of.size() == mine.dups.size());
  for (auto fr : mine.dups) {
    CAPTURE(fr);
    const TsFrame& d = *by_frame.at(fr);
    REQUIRE(d.ip_id);
    REQUIRE(mine.copy_of.count(fr) == 1);
    const std::uint64_t of = mine.copy_of.at(fr);
    CAPTURE(of);
    REQUIRE(by_frame.count(of) == 1);
    const TsFrame& f = *by_frame.at(of);
    CHECK(f.frame < fr);
    CHECK((f.srcport == d.srcport && f.seq == d.seq && f.ack == d.ack && f.len == d.len && f.ip_id == d.ip_id));
  }
}

TEST_CASE("tshark: a segment sent again 91 us later with a new IPv4 ID is a retransmission to both") {
  if (!testcommon::tshark_available()) return;
  // ndpi__webex.pcap frames 1051/1052: the same 202-byte segment 91 us apart,
  // no timestamps, IPv4 IDs 0x95ec then 0x95ed: the sender sent it twice.
  const std::string file = (shared_dir() / "traces" / "public" / "ndpi__webex.pcap").string();
  std::set<std::uint64_t> ts_retx;
  for (const auto& f : tshark_frames(file)) {
    if (f.frame == 1051) CHECK(f.ip_id == std::optional<std::uint16_t>{0x95ec});
    if (f.frame == 1052) CHECK(f.ip_id == std::optional<std::uint16_t>{0x95ed});
    if (f.retx || f.fast || f.spurious) ts_retx.insert(f.frame);
  }
  CHECK(ts_retx.count(1052) == 1);
  const Retx mine = retransmissions_and_duplicates(file);
  CHECK(mine.retx.count(1052) == 1);
  CHECK(mine.dups.empty());
  for (auto fr : ts_retx) {
    CAPTURE(fr);
    CHECK(mine.retx.count(fr) == 1);  // every retransmission tshark has, we have too
  }
}

TEST_CASE("tshark: RTT samples agree with tcp.analysis.ack_rtt where both take one") {
  if (!testcommon::tshark_available()) return;
  for (const char* name : kCompared) {
    CAPTURE(name);
    const std::string file = linux_trace(name);
    // Data segments (port 5001 is the receiver): frame -> relative seq; ACKs
    // with tshark's ack_rtt, and the cumulative ACK before each.
    std::map<std::uint64_t, std::uint64_t> seq_of, prev_ack_of;
    struct TsAck { double rtt_us; std::uint64_t acked; };
    std::map<std::uint64_t, TsAck> ts_acks;
    std::uint64_t prev_ack = 0;
    for (const auto& f : tshark_frames(file)) {
      if (f.srcport != 5001) {
        if (f.len > 0) seq_of[f.frame] = f.seq;
        continue;
      }
      prev_ack_of[f.frame] = prev_ack;
      if (f.ack_rtt_us && f.acks_frame) ts_acks[f.frame] = {*f.ack_rtt_us, *f.acks_frame};
      if (f.ack > prev_ack) prev_ack = f.ack;
    }
    auto r = analyze(file, Profile::linux_kernel, true);
    std::size_t both = 0, single = 0, equal_single = 0, shorter = 0;
    for (const auto& e : client(r).timeline) {
      if (e.event != "ack" || !e.sample || e.sample_kind != replay::SampleKind::seq) continue;
      auto it = ts_acks.find(e.frame);
      if (it == ts_acks.end()) continue;
      ++both;
      const double mine = static_cast<double>(e.sample->count());
      const auto& t = it->second;
      // One segment acknowledged: the acked frame starts at the previous ACK.
      const bool one = seq_of.count(t.acked) && seq_of[t.acked] == prev_ack_of[e.frame];
      if (one) {
        ++single;
        if (std::abs(mine - t.rtt_us) <= 1.0) ++equal_single;
      }
      if (mine < t.rtt_us - 1.0) ++shorter;
    }
    INFO("both " << both << " single-segment " << single << " equal " << equal_single << " shorter " << shorter);
    CHECK(both > 500);
    CHECK(single > 30);  // Linux receivers ACK every other segment: single-segment ACKs are rarer
    CHECK(equal_single == single);
    CHECK(shorter * 100 <= both);  // only where the oldest segment had been SACKed
  }
}
