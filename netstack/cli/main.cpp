// netstack: command-line front end of the userspace TCP sender.
//
//   netstack send --bytes N | --file F [--loss P --seed S] [--drop-seq R ...]
//                 [--blackhole START:DURATION] [--capture FILE.pcap] [--ipv6]
//                 [--netns NAME] [--sink FILE] [--time-limit SECONDS]
//                 [--profile rfc6298|linux]
//   netstack sim  [--bytes N] [--loss P] [--ack-loss P] [--seed S]
//                 [--delay MS] [--jitter MS] [--bandwidth BPS] [--queue N]
//                 [--blackhole START:DURATION] [--profile rfc6298|linux]
//                 [--capture FILE.pcap] [--ipv6] [--time-limit SECONDS]
//   netstack --version
//
// send: while it runs, stderr gets one line per retransmission as it happens
// ("netstack: +1.100 s  RTO  seq 1 len 1000: waited 1000.0 ms, ..."; time
// since the SYN, seq relative to the ISN, as in the capture), and a warning
// for a --drop-seq that matched no segment; the summary goes to stdout.
// sim: our sender and our receiver in the deterministic simulator (virtual
// time); stdout gets the story of the sender's timer, a line per event
// (timer_story.hpp), then the summary. The same options give the same output.
//
// Exit status: 0 delivered byte-exact and closed; 1 the transfer failed
// (reason on stderr); 2 bad arguments or the set-up failed (not root, no
// /dev/net/tun, an unwritable capture, ...).

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <rto/rto.h>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netstack/netns.hpp"
#include "netstack/real_peer.hpp"
#include "netstack/sim_run.hpp"
#include "netstack/timer_story.hpp"

namespace {

using netstack::RealPeerResult;

/// What `netstack --version` prints.
// The project's version is stated once (rto/rto.h).
constexpr const char* kVersion = "netstack " RTO_VERSION_STRING " (userspace TCP sender on the rto library, RFC 6298)";

/// The sender's timer profiles by the names --profile takes (pcap-replay's
/// names for the same models).
const std::map<std::string, rto::Config>& timer_profiles() {
  static const std::map<std::string, rto::Config> profiles = {
      {"rfc6298", rto::Config::rfc6298()},
      {"linux", rto::Config::linux_default()},
  };
  return profiles;
}

std::vector<std::string> timer_profile_names() {
  std::vector<std::string> names;
  for (const auto& [name, config] : timer_profiles()) names.push_back(name);
  return names;
}

/// "10M", "1.5G", "250k" or a plain number of bits per second (k, M, G: 10^3,
/// 10^6, 10^9); nullopt when malformed, negative or not a whole number of bits.
std::optional<std::uint64_t> parse_bandwidth(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double scale = 1;
  std::string number = text;
  switch (text.back()) {
    case 'k': scale = 1e3; number.pop_back(); break;
    case 'M': scale = 1e6; number.pop_back(); break;
    case 'G': scale = 1e9; number.pop_back(); break;
    default: break;
  }
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(number, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != number.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  const double bps = v * scale;
  if (bps > 1e15 || bps != std::floor(bps)) return std::nullopt;
  return static_cast<std::uint64_t>(bps);
}

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

/// `netstack sim`'s options as given on the command line.
struct SimArgs {
  netstack::SimRunOptions run;
  std::uint64_t bytes = 100'000;
  double delay_ms = 50, jitter_ms = 0;
  std::string bandwidth, blackhole, profile = "rfc6298";
  int time_limit_s = 600;
};

void print_link(const char* name, const netstack::LinkStats& l) {
  std::printf("%s: %llu datagrams, lost %llu (random %llu, blackhole %llu, queue %llu)\n", name,
              static_cast<unsigned long long>(l.entered),
              static_cast<unsigned long long>(l.lost_random + l.lost_blackhole + l.lost_chosen + l.lost_queue),
              static_cast<unsigned long long>(l.lost_random), static_cast<unsigned long long>(l.lost_blackhole),
              static_cast<unsigned long long>(l.lost_queue));
}

int cmd_sim(SimArgs& a) {
  auto& o = a.run;
  o.payload = netstack::real_peer_pattern(a.bytes);
  o.rto = timer_profiles().at(a.profile);
  o.delay = std::chrono::microseconds{std::llround(a.delay_ms * 1000)};
  o.jitter = std::chrono::microseconds{std::llround(a.jitter_ms * 1000)};
  o.time_limit = std::chrono::seconds{a.time_limit_s};
  if (!a.bandwidth.empty()) {
    const auto bps = parse_bandwidth(a.bandwidth);
    if (!bps) {
      std::cerr << "netstack sim: --bandwidth '" << a.bandwidth
                << "' is not a rate in bits per second (e.g. 10M, 1.5G, 250k, 64000)\n";
      return 2;
    }
    o.bandwidth_bps = *bps;
  }
  if (!a.blackhole.empty()) {
    const auto b = netstack::parse_blackhole(a.blackhole);
    if (!b) {
      std::cerr << "netstack sim: --blackhole '" << a.blackhole << "' is not START:DURATION in seconds (e.g. 1.5:5)\n";
      return 2;
    }
    const rto::Instant start{b->start};
    o.blackholes.push_back({start, start + b->duration});
  }
  netstack::SimRunResult r;
  try {
    r = netstack::run_sim(o);
  } catch (const std::exception& e) {
    std::cerr << "netstack sim: error: " << e.what() << "\n";
    return 2;
  }
  const auto& sc = r.sender_config;
  std::printf("netstack sim: %s -> %s, %llu bytes, profile %s; one-way delay %.1f ms",
              wire::to_string(sc.local).c_str(), wire::to_string(sc.remote).c_str(),
              static_cast<unsigned long long>(a.bytes), a.profile.c_str(), a.delay_ms);
  if (a.jitter_ms > 0) std::printf(" + up to %.1f ms jitter", a.jitter_ms);
  if (o.bandwidth_bps > 0) std::printf(", %llu bit/s", static_cast<unsigned long long>(o.bandwidth_bps));
  if (o.loss > 0) std::printf(", loss %g", o.loss);
  if (o.ack_loss > 0) std::printf(", ACK loss %g", o.ack_loss);
  for (const auto& h : o.blackholes) {
    std::printf(", blackhole +%.3f s for %.3f s", static_cast<double>(h.start.time_since_epoch().count()) / 1e6,
                static_cast<double>((h.end - h.start).count()) / 1e6);
  }
  std::printf(", seed %llu\n", static_cast<unsigned long long>(o.seed));
  for (const auto& line : netstack::timer_story(r.sender, rto::Instant{}, sc.iss)) std::printf("%s\n", line.c_str());
  const auto& s = r.sender;
  std::printf("elapsed %.3f s (virtual), state %s\n", static_cast<double>(r.end.time_since_epoch().count()) / 1e6,
              netstack::to_string(r.final_state));
  std::printf("sent %llu bytes, receiver got %llu\n", static_cast<unsigned long long>(a.bytes),
              static_cast<unsigned long long>(r.bytes_received));
  std::printf("segments %llu, retransmissions %llu (timeout %llu, fast %llu, after-timeout %llu), timer expiries %llu, RTT samples %llu\n",
              static_cast<unsigned long long>(s.segments_sent), static_cast<unsigned long long>(s.retransmissions),
              static_cast<unsigned long long>(s.retransmissions_timeout),
              static_cast<unsigned long long>(s.retransmissions_fast),
              static_cast<unsigned long long>(s.retransmissions_after_timeout),
              static_cast<unsigned long long>(s.timeouts), static_cast<unsigned long long>(s.rtt_samples));
  print_link("forward link", r.forward);
  print_link("reverse link", r.reverse);
  if (!o.capture_path.empty()) {
    std::printf("capture: %s (%llu packets)\n", o.capture_path.c_str(), static_cast<unsigned long long>(r.captured));
  }
  if (!r.ok) {
    std::cerr << "netstack sim: FAILED: " << r.message << "\n";
    return 1;
  }
  std::printf("ok: %s\n", r.message.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "netstack: a userspace TCP sender on the rto library (RFC 6298), against the Linux kernel over TUN "
      "or its own receiver in a simulator"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);

  netstack::RealPeerOptions opt;
  std::string blackhole;
  std::vector<std::uint32_t> drop_seq;
  int time_limit_s = 120;
  std::string profile = "rfc6298";
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

  send->add_option("--profile", profile, "the sender's retransmission timer: rfc6298 (RFC 6298) or linux (the kernel's)")
      ->check(CLI::IsMember(timer_profile_names()))
      ->capture_default_str();

  SimArgs sim_args;
  auto& so = sim_args.run;
  CLI::App* sim = app.add_subcommand(
      "sim", "send bytes from netstack's sender to its receiver in the deterministic simulator and tell the timer's story");
  sim->add_option("--bytes", sim_args.bytes, "send N bytes of a fixed pattern (at most 1e9)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1'000'000'000}))
      ->capture_default_str();
  sim->add_option("--loss", so.loss, "fraction of the sender's datagrams (the SYN included) lost at random, 0..1")
      ->check(CLI::Range(0.0, 1.0));
  sim->add_option("--ack-loss", so.ack_loss, "fraction of the receiver's datagrams lost at random, 0..1")
      ->check(CLI::Range(0.0, 1.0));
  sim->add_option("--seed", so.seed, "seed of the losses and the jitter")->capture_default_str();
  sim->add_option("--delay", sim_args.delay_ms, "one-way delay each way, ms")
      ->check(CLI::Range(0.0, 60'000.0))
      ->capture_default_str();
  sim->add_option("--jitter", sim_args.jitter_ms, "extra delay per datagram, uniform in [0, MS], ms")
      ->check(CLI::Range(0.0, 60'000.0));
  sim->add_option("--bandwidth", sim_args.bandwidth, "link rate each way, bits/s (10M, 1.5G, 250k; default: no limit)");
  sim->add_option("--queue", so.queue_limit, "datagrams that may wait for the link (drop-tail)")->capture_default_str();
  sim->add_option("--blackhole", sim_args.blackhole,
                  "START:DURATION in seconds from the SYN: everything the sender sends meanwhile is lost");
  sim->add_option("--profile", sim_args.profile, "the sender's retransmission timer: rfc6298 or linux")
      ->check(CLI::IsMember(timer_profile_names()))
      ->capture_default_str();
  sim->add_option("--capture", so.capture_path, "write the traffic as the sender sees it to this pcap file (raw IP)");
  sim->add_flag("--ipv6", so.ipv6, "use IPv6 (fd00::1 -> fd00::2)");
  sim->add_option("--time-limit", sim_args.time_limit_s, "give up at this virtual time, seconds")
      ->check(CLI::Range(1, 86'400))
      ->capture_default_str();

  try {
    app.parse(argc, argv);

  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help or the error
    return rc == 0 ? 0 : 2;
  }
  if (send->parsed()) {
    opt.rto = timer_profiles().at(profile);
    return cmd_send(opt, blackhole, drop_seq, time_limit_s);
  }
  if (sim->parsed()) return cmd_sim(sim_args);
  return 2;
}
