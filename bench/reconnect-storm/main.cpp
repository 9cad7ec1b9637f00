// build/bin/reconnect-storm: experiment 4 (see storm.hpp and bench/README.md,
// "Reconnect storm").
//
//   reconnect-storm [--connections N] [--outage S] [--mode refuse|silent|both]
//                   [--strategy NAME[,NAME...]] [--connect-timeout MS] [--seed N]
//                   [--svg FILE] [--pcap DIR] [--syn-only]
//
// Prints one table row per strategy and mode: the peak and mean of the SYNs
// arriving at the server per 100 ms (from t = 0 to the last connection), their
// coefficient of variation and when the last client connected. --svg writes
// the plot (default reconnect-storm.svg), --pcap DIR one capture per run,
// taken at the server: DIR/storm-MODE-STRATEGY.pcap.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "netstack/pcap_writer.hpp"
#include "storm.hpp"
#include "svg_plot.hpp"

namespace {

int usage(const std::string& why) {
  std::cerr << "reconnect-storm: " << why << "\n"
            << "usage: reconnect-storm [--connections N] [--outage S] [--mode refuse|silent|both]\n"
               "                       [--strategy exponential,full-jitter,equal-jitter,decorrelated,grpc]\n"
               "                       [--connect-timeout MS] [--seed N] [--svg FILE] [--pcap DIR]\n";
  return 2;
}

bool parse_number(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end != nullptr && *end == '\0' && out >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  storm::StormConfig base;
  std::string modes = "both", names, svg = "reconnect-storm.svg";
  std::optional<std::filesystem::path> pcap_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    double x = 0;
    if (a == "--help" || a == "-h") {
      usage("a reconnect storm in netstack's simulator");
      return 0;
    }
    const auto v = value();
    if (!v) return usage(a + " needs a value");
    if (a == "--connections" && parse_number(*v, x) && x >= 1) base.connections = static_cast<unsigned>(x);
    else if (a == "--outage" && parse_number(*v, x)) base.outage = std::chrono::microseconds{static_cast<long long>(x * 1e6)};
    else if (a == "--connect-timeout" && parse_number(*v, x) && x > 0) base.connect_timeout = std::chrono::microseconds{static_cast<long long>(x * 1e3)};
    else if (a == "--seed" && parse_number(*v, x)) base.seed = static_cast<std::uint64_t>(x);
    else if (a == "--mode" && (*v == "refuse" || *v == "silent" || *v == "both")) modes = *v;
    else if (a == "--strategy") names = *v;
    else if (a == "--svg") svg = *v;
    else if (a == "--pcap") pcap_dir = *v;
    else return usage("bad option or value: " + a + " " + *v);
  }
  std::vector<storm::Strategy> strategies;
  for (auto& s : storm::default_strategies()) {
    if (names.empty() || ("," + names + ",").find("," + s.name + ",") != std::string::npos) strategies.push_back(s);
  }
  if (strategies.empty()) return usage("no known strategy in --strategy " + names);
  if (pcap_dir) std::filesystem::create_directories(*pcap_dir);

  std::vector<storm::OutageMode> mode_list;
  if (modes != "silent") mode_list.push_back(storm::OutageMode::refuse);
  if (modes != "refuse") mode_list.push_back(storm::OutageMode::silent);

  std::cout << fmt::format("reconnect storm: {} clients, server port {} for {:.0f} s then open, {:.0f} ms one way, "
                           "connect timeout {:.1f} s (gRPC: max(backoff deadline, 20 s)), seed {}\n",
                           base.connections,
                           modes == "both" ? "closed (RST) or silent" : modes == "refuse" ? "closed (RST)" : "silent",
                           std::chrono::duration<double>(base.outage).count(),
                           std::chrono::duration<double>(base.one_way_delay).count() * 1e3,
                           std::chrono::duration<double>(base.connect_timeout).count(), base.seed);
  std::cout << fmt::format("{:<13} {:<7} {:>10} {:>10} {:>6} {:>11} {:>15} {:>9} {:>8}\n", "strategy", "server",
                           "peak/100ms", "mean/100ms", "CV", "peak@open", "all connected", "attempts", "SYNs");
  std::vector<storm::StormResult> results;
  try {
    for (auto mode : mode_list) {
      for (const auto& s : strategies) {
        storm::StormConfig c = base;
        c.mode = mode;
        if (pcap_dir)
          c.pcap_path = (*pcap_dir / fmt::format("storm-{}-{}.pcap", storm::to_string(mode), s.name)).string();
        const auto r = storm::run_storm(c, s);
        std::cout << fmt::format(
            "{:<13} {:<7} {:>10} {:>10.2f} {:>6.2f} {:>11} {:>15} {:>9} {:>8}\n", r.strategy,
            storm::to_string(r.mode), r.peak(), r.mean(), r.cv(), r.peak_after(c.outage, c.bin),
            r.all_connected ? fmt::format("{:.3f} s", std::chrono::duration<double>(*r.all_connected).count())
                            : fmt::format("{}/{} by {:.0f} s", r.connected, c.connections,
                                          std::chrono::duration<double>(c.horizon).count()),
            r.attempts, r.syns);
        results.push_back(r);
      }
    }
  } catch (const netstack::PcapWriteError& e) {
    std::cerr << "reconnect-storm: " << e.what() << "\n";
    return 1;
  }
  std::cout << "peak, mean, CV: SYNs (first and retransmitted) arriving at the server per 100 ms, from 0.1 s (after "
               "every client's first SYN at t = 0) to the last connection; CV = standard deviation / mean; "
               "peak@open: the largest bin once the server listens\n";
  if (!svg.empty()) {
    std::ofstream f(svg);
    storm::write_svg(f, results, base.bin, base.outage);
    if (!f) {
      std::cerr << "reconnect-storm: cannot write " << svg << "\n";
      return 1;
    }
    std::cout << "plot: " << svg << "\n";
  }
  if (pcap_dir) std::cout << "captures: " << pcap_dir->string() << "/storm-MODE-STRATEGY.pcap (taken at the server)\n";
  return 0;
}
