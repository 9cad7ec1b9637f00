// netstack: command-line front end of the userspace TCP sender.
//
//   netstack send --bytes N | --file F [--loss P --seed S] [--drop-seq R ...]
//                 [--blackhole START:DURATION] [--capture FILE.pcap] [--ipv6]
//                 [--netns NAME] [--sink FILE] [--time-limit SECONDS]
//   netstack --version
//
// While it runs, stderr gets one line per retransmission as it happens
// ("netstack: +1.100 s  RTO  seq 1 len 1000: waited 1000.0 ms, ..."; time
// since the SYN, seq relative to the ISN, as in the capture), and a warning
// for a --drop-seq that matched no segment; the summary goes to stdout.
//
// Exit status: 0 delivered byte-exact and closed; 1 the transfer failed
// (reason on stderr); 2 bad arguments or the set-up failed (not root, no
// /dev/net/tun, ...).

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "netstack/netns.hpp"
#include "netstack/real_peer.hpp"

namespace {

using netstack::RealPeerResult;

/// What `netstack --version` prints.
constexpr const char* kVersion = "netstack 0.1.0 (userspace TCP sender on the rto library, RFC 6298)";

// The end-of-run summary on stdout (the retransmissions were reported on
// stderr as they happened).
void print_summary(const netstack::RealPeerOptions& opt, const RealPeerResult& r) {
  const auto& s = r.sender;
  std::printf("elapsed %.3f s, state %s, %llu wake-ups\n", static_cast<double>(r.elapsed.count()) / 1e6,
              netstack::to_string(r.final_state), static_cast<unsigned long long>(r.wakeups));
  // What the sender really put on the wire, which is less than it was given
  // when the run was interrupted or failed.
  std::printf("sent %llu of %llu bytes (CRC-32 %08x of all %llu), %llu acknowledged; receiver got %llu bytes (CRC-32 %08x)\n",
              static_cast<unsigned long long>(r.bytes_transmitted), static_cast<unsigned long long>(r.bytes_sent),
              r.crc32_sent, static_cast<unsigned long long>(r.bytes_sent), static_cast<unsigned long long>(r.bytes_acked),
              static_cast<unsigned long long>(r.received.bytes), r.received.crc32);
  std::printf("segments %llu, retransmissions %llu (timeout %llu, fast %llu, after-timeout %llu), timer expiries %llu, RTT samples %llu\n",
              static_cast<unsigned long long>(s.segments_sent), static_cast<unsigned long long>(s.retransmissions),
              static_cast<unsigned long long>(s.retransmissions_timeout), static_cast<unsigned long long>(s.retransmissions_fast),
              static_cast<unsigned long long>(s.retransmissions_after_timeout), static_cast<unsigned long long>(s.timeouts),
              static_cast<unsigned long long>(s.rtt_samples));
  std::printf("filter: passed %llu, dropped %llu (loss %llu, drop-seq %llu, blackhole %llu); TUN refused %llu\n",
              static_cast<unsigned long long>(r.filter.passed), static_cast<unsigned long long>(r.filter.dropped()),
              static_cast<unsigned long long>(r.filter.dropped_loss), static_cast<unsigned long long>(r.filter.dropped_seq),
              static_cast<unsigned long long>(r.filter.dropped_blackhole),
              static_cast<unsigned long long>(r.tun_write_drops));
  if (!opt.capture_path.empty()) {
    std::printf("capture: %s (%llu packets)\n", opt.capture_path.c_str(), static_cast<unsigned long long>(r.captured));
  }
}

int cmd_send(netstack::RealPeerOptions& opt, const std::string& blackhole, const std::vector<std::uint32_t>& drop_seq,
             int time_limit_s) {
  if (opt.file.empty() && opt.bytes == 0) {
    std::cerr << "netstack send: give --bytes N (N > 0) or --file F\n";
    return 2;
  }
  if (!blackhole.empty()) {
    opt.filter.blackhole = netstack::parse_blackhole(blackhole);
    if (!opt.filter.blackhole) {
      std::cerr << "netstack send: --blackhole '" << blackhole << "' is not START:DURATION in seconds (e.g. 1.5:5)\n";
      return 2;
    }
  }
  opt.filter.drop_seq = drop_seq;
  opt.time_limit = std::chrono::seconds{time_limit_s};
  if (::geteuid() != 0) {
    std::cerr << "netstack send: needs root (it creates network namespaces and a TUN device)\n";
    return 2;
  }
  if (::access("/dev/net/tun", R_OK | W_OK) != 0) {
    std::cerr << "netstack send: /dev/net/tun is missing or not accessible\n";
    return 2;
  }
  netstack::install_stop_signals();
  RealPeerResult r;
  try {
    r = netstack::run_real_peer(opt, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "netstack send: error: " << e.what() << "\n";
    return 2;
  }
  print_summary(opt, r);
  if (!r.ok) {
    std::cerr << "netstack send: FAILED: " << r.message << "\n";
    return 1;
  }
  std::printf("ok: %s\n", r.message.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"netstack: a userspace TCP sender on the rto library (RFC 6298), against the Linux kernel over TUN"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);

  netstack::RealPeerOptions opt;
  std::string blackhole;
  std::vector<std::uint32_t> drop_seq;
  int time_limit_s = 120;
  CLI::App* send = app.add_subcommand("send", "send bytes to the Linux kernel's TCP in a network namespace over a TUN device");
  auto* bytes_opt = send->add_option("--bytes", opt.bytes, "send N bytes of a fixed pattern");
  send->add_option("--file", opt.file, "send the contents of this file")->check(CLI::ExistingFile)->excludes(bytes_opt);
  send->add_option("--loss", opt.filter.loss, "fraction of outbound segments (not SYNs) dropped at random, 0..1")
      ->check(CLI::Range(0.0, 1.0));
  send->add_option("--seed", opt.filter.seed, "seed of the random drops");
  send->add_option("--drop-seq", drop_seq, "drop the first transmission of the segment at this relative sequence number (SYN = 0, first byte = 1); repeatable");
  send->add_option("--blackhole", blackhole, "START:DURATION in seconds from the SYN: drop everything sent meanwhile");
  send->add_option("--capture", opt.capture_path, "write the traffic as seen by the sender to this pcap file (raw IP)");
  send->add_flag("--ipv6", opt.ipv6, "use IPv6 (fd00:0:0:1::2 -> fd00:0:0:2::2)");
  send->add_option("--netns", opt.netns, "existing network namespace for the TUN device (default: make one)");
  send->add_option("--sink", opt.sink_path, "the receiver writes the bytes it got to this file");
  send->add_option("--time-limit", time_limit_s, "give up after this many seconds")->check(CLI::Range(1, 3600));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help or the error
    return rc == 0 ? 0 : 2;
  }
  if (send->parsed()) return cmd_send(opt, blackhole, drop_seq, time_limit_s);
  return 2;
}
