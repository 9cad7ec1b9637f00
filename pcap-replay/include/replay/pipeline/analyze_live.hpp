#pragma once
// Live capture analysed as it comes (pcap-replay check|flows|timeline -i
// IFACE): libpcap's capture on one interface, fed to the Analyzer, until a
// time, a packet count or a signal ends it.

#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/pipeline/progress.hpp>

namespace replay {

/// When a live capture ends (whichever comes first; SIGINT/SIGTERM always).
struct LiveLimits {
  std::optional<std::chrono::steady_clock::duration> duration;  ///< --duration: time since the start
  std::optional<std::uint64_t> packets;  ///< -c: packets delivered (after the BPF filter), as tcpdump -c
};

/// Captures on interface `iface` (libpcap live capture, options.filter as
/// the BPF filter, LiveCapture in live_capture.hpp) until `until` is
/// reached or `stop` becomes nonzero (set by a SIGINT/SIGTERM handler; the
/// capture notices within limits::kLivePollWait, then reads for up to twice
/// that the packets already captured), and analyses it as one
/// input named "live:IFACE". `progress` (when not empty) is called at the
/// start and then at most every limits::kStatusLineInterval with the counts
/// so far.
/// Packets the kernel dropped (pcap_stats ps_drop + ps_ifdrop) are data
/// lost: InputFile::kernel_drops (exit status 2) and a message in `errors`.
/// An interface that cannot be opened (no such interface, permission
/// denied: not root) makes the input unusable, its reason in `errors`; a
/// capture that fails midway keeps what came before (read_error, exit 2).
/// The report's time origin is the first packet's timestamp.
Report analyze_live(const std::string& iface, const Options& options, bool keep_timeline, const LiveLimits& until,
                    const volatile std::sig_atomic_t& stop,
                    const std::function<void(const LiveProgress&)>& progress, std::vector<std::string>& errors);

}  // namespace replay
