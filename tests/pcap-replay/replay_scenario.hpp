#pragma once
// Test helpers for the analysis tests: write small hand-made captures
// (classic pcap, LINKTYPE_RAW, IPv4) of one TCP connection, packet by
// packet with exact times, analyse them, locate ../shared and run tshark.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <wire/ip.hpp>
#include <wire/tcp.hpp>

#include <replay/analysis/analyzer.hpp>
#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/report_text.hpp>
#include <replay/report/inferred_text.hpp>
#include <replay/report/judgement_text.hpp>
#include "common/command.hpp"
#include "common/paths.hpp"
#include "common/pcap_file.hpp"

namespace doctest {
/// Intervals in failure messages: "[204000, 212700] us".
template <>
struct StringMaker<replay::Interval> {
  static String convert(const replay::Interval& i) {
    return ("[" + std::to_string(i.lo.count()) + ", " + std::to_string(i.hi.count()) + "] us").c_str();
  }
};
}  // namespace doctest

namespace replaytest {

using testcommon::Bytes;

using testcommon::shared_dir;
/// ../shared/traces/linux/NAME.pcap
inline std::string linux_trace(const std::string& name) {
  return (shared_dir() / "traces" / "linux" / (name + ".pcap")).string();
}

/// One packet of a scenario. Sequence numbers are relative to the sender's ISN.
struct Pkt {
  std::int64_t t_us = 0;  ///< time since the scenario start, microseconds
  bool from_client = true;
  std::uint32_t rel_seq = 0;
  std::uint32_t rel_ack = 0;
  std::uint8_t flags = wire::kAck;
  std::uint32_t len = 0;
  std::optional<std::uint32_t> tsval, tsecr;
  std::vector<wire::SackBlock> sack;  ///< relative to the client's ISN
};

/// A one-connection capture, client 198.18.0.1:40000 -> server 198.18.0.2:5001.
struct Scenario {
  std::uint32_t client_isn = 1000;
  std::uint32_t server_isn = 700000;
  std::int64_t epoch_s = 1'700'000'000;
  std::uint16_t client_port = 40000;  ///< another one: another connection of the same two hosts
  std::vector<Pkt> pkts;
  /// IPv4 Identification of packet i (index into pkts); packets not listed carry ID 0.
  std::map<std::size_t, std::uint16_t> ip_id;
  /// IPv4 TTL of packet i; packets not listed carry 64.
  std::map<std::size_t, std::uint8_t> ttl;
  /// Indexes of packets that advertise a zero window.
  std::set<std::size_t> zero_window;
  /// The window packet i advertises, where not 65535 (nor zero: zero_window).
  std::map<std::size_t, std::uint16_t> window;
  /// Both SYNs offer SACK (RFC 2018 SACK-permitted).
  bool sack_permitted = false;
  /// The MSS both SYNs offer (none: no MSS option).
  std::optional<std::uint16_t> syn_mss;

  /// SYN at t, SYN-ACK at t + rtt, ACK right after: one clean handshake sample of `rtt`.
  void handshake(std::int64_t t_us, std::int64_t rtt_us) {
    pkts.push_back({t_us, true, 0, 0, wire::kSyn, 0, {}, {}, {}});
    pkts.push_back({t_us + rtt_us, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});
    pkts.push_back({t_us + rtt_us + 10, true, 1, 1, wire::kAck, 0, {}, {}, {}});
  }
  /// A handshake captured beside the server: SYN at 0, SYN-ACK 10 us later,
  /// the client's ACK at `client_ack_us`, which is the round trip from the
  /// capture point to the client and back.
  void handshake_at_receiver(std::int64_t client_ack_us) {
    pkts.push_back({0, true, 0, 0, wire::kSyn, 0, {}, {}, {}});
    pkts.push_back({10, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});
    pkts.push_back({client_ack_us, true, 1, 1, wire::kAck, 0, {}, {}, {}});
  }
  /// Client data [rel_seq, rel_seq + len) at t.
  void data(std::int64_t t_us, std::uint32_t rel_seq, std::uint32_t len = 1000) {
    pkts.push_back({t_us, true, rel_seq, 1, wire::kAck | wire::kPsh, len, {}, {}, {}});
  }
  /// Server ACK of client bytes up to rel_ack at t.
  void ack(std::int64_t t_us, std::uint32_t rel_ack, std::vector<wire::SackBlock> sack = {}) {
    pkts.push_back({t_us, false, 1, rel_ack, wire::kAck, 0, {}, {}, std::move(sack)});
  }

  /// The IPv4 packet of `p`, with IPv4 Identification `id`.
  Bytes packet(const Pkt& p, std::uint16_t id = 0, std::uint8_t hop_limit = 64, bool zero_window_ad = false,
               std::uint16_t window_ad = 65535) const {
    wire::TcpHeader t;
    t.src_port = p.from_client ? client_port : 5001;
    t.dst_port = p.from_client ? 5001 : client_port;
    const std::uint32_t own = p.from_client ? client_isn : server_isn;
    const std::uint32_t other = p.from_client ? server_isn : client_isn;
    t.seq = own + p.rel_seq;
    t.ack = (p.flags & wire::kAck) ? other + p.rel_ack : 0;
    t.flags = p.flags;
    t.window = zero_window_ad ? 0 : window_ad;
    t.options.tsval = p.tsval;
    t.options.sack_permitted = sack_permitted && (p.flags & wire::kSyn);
    if (p.flags & wire::kSyn) t.options.mss = syn_mss;
    if (p.tsval) t.options.tsecr = p.tsecr.value_or(0);
    for (const auto& b : p.sack) {
      t.options.sack[t.options.sack_count++] = wire::SackBlock{client_isn + b.left, client_isn + b.right};
    }
    wire::Ipv4Header ip;
    ip.id = id;
    ip.ttl = hop_limit;
    ip.src = {198, 18, 0, static_cast<std::uint8_t>(p.from_client ? 1 : 2)};
    ip.dst = {198, 18, 0, static_cast<std::uint8_t>(p.from_client ? 2 : 1)};
    const std::size_t tl = wire::tcp_options_len(t.options) + 20;
    Bytes b(20 + tl + p.len, 0);
    auto iph = wire::encode_ipv4(ip, tl + p.len, b);
    REQUIRE(wire::ok(iph));
    auto th = wire::encode_tcp(t, std::span(b).subspan(20));
    REQUIRE(wire::ok(th));
    wire::fill_tcp_checksum_v4(ip.src, ip.dst, std::span(b).subspan(20));
    return b;
  }

  /// Classic little-endian pcap, microsecond timestamps, LINKTYPE_RAW (101).
  Bytes pcap() const {
    std::vector<testcommon::Record> recs;
    for (std::size_t i = 0; i < pkts.size(); ++i) {
      const Pkt& p = pkts[i];
      const auto id = ip_id.find(i);
      const auto hl = ttl.find(i);
      recs.push_back({static_cast<std::uint32_t>(epoch_s + p.t_us / 1'000'000),
                      static_cast<std::uint32_t>(p.t_us % 1'000'000),
                      packet(p, id == ip_id.end() ? std::uint16_t{0} : id->second,
                             hl == ttl.end() ? std::uint8_t{64} : hl->second, zero_window.count(i) > 0,
                             window.count(i) > 0 ? window.at(i) : std::uint16_t{65535}),
                      0});
    }
    return testcommon::pcap_file(testcommon::kPcapMagicMicros, 101, recs);
  }

  /// Writes the capture to a fresh temp file; returns its path.
  std::string write(const std::string& name) const {
    static int counter = 0;
    const auto path = std::filesystem::temp_directory_path() /
                      ("rto-replay-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-" + name +
                       ".pcap");
    const Bytes b = pcap();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    return path.string();
  }
};

/// The profile names the tests use (rows of replay::all_profiles()).
struct Profile {
  static constexpr std::string_view rfc6298 = "rfc6298";
  static constexpr std::string_view linux_kernel = "linux";
  static constexpr std::string_view freebsd = "freebsd";
  static constexpr std::string_view macos = "macos";
  static constexpr std::string_view windows = "windows";
  static constexpr std::string_view automatic = "auto";
};

/// Analyses files with a profile's defaults; fails the test on open errors.
inline replay::Report analyze(const std::vector<std::string>& files, std::string_view p, bool timeline = false) {
  std::vector<std::string> errors;
  replay::Report r = replay::analyze_files(files, replay::Options::for_profile(p), timeline, errors);
  for (const auto& e : errors) FAIL_CHECK("cannot read: " << e);
  return r;
}
inline replay::Report analyze(const std::string& file, std::string_view p, bool timeline = false) {
  return analyze(std::vector<std::string>{file}, p, timeline);
}

/// Writes the scenario to a temp pcap, analyses it, deletes the file. With
/// REPLAY_TEST_DUMP set in the environment, prints the text report on
/// standard error (to read what a failing case saw).
inline replay::Report analyze(const Scenario& sc, const std::string& name, std::string_view p, bool timeline = false) {
  const std::string path = sc.write(name);
  replay::Report r = analyze(path, p, timeline);
  if (std::getenv("REPLAY_TEST_DUMP")) {
    std::cerr << "== " << name << " (" << p << ")\n";
    replay::write_text_report(std::cerr, r);
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return r;
}

/// The client -> server sender of the first flow.
inline const replay::SenderReport& client(const replay::Report& r) {
  REQUIRE(!r.flows.empty());
  return r.flows.front().senders[0];
}

/// Findings of level MUST in a sender.
inline std::size_t musts(const replay::SenderReport& s) {
  std::size_t n = 0;
  for (const auto& f : s.findings) n += f.level == replay::Level::must ? 1 : 0;
  return n;
}

/// The sender's log less the note that the capture ends in the timer's
/// backoff (Topic::open_at_end): what the capture shows judged.
inline std::vector<replay::Judgement> judged(const replay::SenderReport& s) {
  std::vector<replay::Judgement> out;
  for (const auto& f : s.findings)
    if (f.topic != replay::Topic::open_at_end) out.push_back(f);
  return out;
}

/// Judgements of rule `id` in a sender's log (broken, cannot tell, notes).
inline std::vector<replay::Judgement> findings(const replay::SenderReport& s, const std::string& id) {
  std::vector<replay::Judgement> out;
  for (const auto& f : s.findings)
    if (replay::to_string(f.rule) == id) out.push_back(f);
  return out;
}

/// The words of judgement `j` (the report's message) under profile `p`.
inline std::string message(const replay::Judgement& j, std::string_view p = "rfc6298") {
  return replay::describe(j, replay::Options::for_profile(p));
}

/// Microseconds, for comparing an interval's ends: us(t.wait.lo) == 204'000.
inline std::int64_t us(std::chrono::microseconds d) { return d.count(); }
/// A wait the capture pins to a point (the arm was a transmission of the
/// sender's, captured at the sender): its value in microseconds, or -1 when
/// it is an interval.
inline std::int64_t point_us(const replay::Interval& i) { return i.lo == i.hi ? i.lo.count() : -1; }

/// Runs a command and returns its standard output ("" if it cannot run).
inline std::string run(const std::string& cmd) { return testcommon::run_command(cmd).output; }

/// The base scenario of the rule tests: handshake at 0 / 100 ms (R = 100 ms),
/// [1,1001) at 200 ms acknowledged at 300 ms (R' = 100 ms: SRTT 100, RTTVAR
/// 37.5, RTO max(1 s, 250 ms) = 1 s; Linux 100 + 200 = 300 ms), then
/// [1001,2001) and [2001,3001) at 400 ms, which start the timer (5.1).
inline Scenario base_scenario() {
  Scenario s;
  s.handshake(0, 100'000);
  s.data(200'000, 1);
  s.ack(300'000, 1001);
  s.data(400'000, 1001);
  s.data(400'000 + 10, 2001);
  return s;
}

/// Handshake round trip 1 ms (captured at the client), SACK; one 500-byte
/// write every 10 ms from 10 ms, each acknowledged 1 ms later (frames 4-23:
/// data [1 + 500 k, 501 + 500 k) at 10 + 10 k ms, k < 10). SRTT about 1 ms.
inline Scenario acked_500_byte_writes() {
  Scenario s;
  s.sack_permitted = true;
  s.handshake(0, 1'000);
  for (std::uint32_t k = 0; k < 10; ++k) {
    s.data(10'000 + 10'000 * k, 1 + 500 * k, 500);
    s.ack(11'000 + 10'000 * k, 1 + 500 * (k + 1));
  }
  return s;
}

/// The event of the timeline row for `frame` ("none" when no row names it).
inline std::string event_at(const replay::SenderReport& c, std::uint64_t frame) {
  for (const auto& e : c.timeline)
    if (e.frame == frame) return std::string(e.event);
  return "none";
}

/// How many retransmissions of kind `k` the sender report counts.
inline std::size_t count(const replay::SenderReport& s, replay::SendKind k) {
  return s.by_kind[static_cast<std::size_t>(k)];
}

}  // namespace replaytest
