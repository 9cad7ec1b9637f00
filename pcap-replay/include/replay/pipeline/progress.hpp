#pragma once
// How far a run has come, as values: what the pipeline's loops report to
// a progress callback (analyze_files, analyze_live). Wording them is the
// report room's (progress_line.hpp).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace replay {

/// What a live capture has seen so far.
struct LiveProgress {
  std::string input;                 ///< "live:IFACE"
  std::uint64_t packets = 0;         ///< packets delivered (after the BPF filter)
  std::uint64_t connections = 0;     ///< TCP connections seen
  std::uint64_t timeouts = 0;        ///< retransmission timeouts found so far
  std::uint64_t kernel_drops = 0;    ///< pcap_stats ps_drop + ps_ifdrop: packets lost to the analysis
  std::chrono::steady_clock::duration elapsed{};  ///< since the capture started
};

/// How far the reading of one capture file has come.
struct FileProgress {
  std::size_t file_index = 0;        ///< position on the command line, from 0
  std::string file;                  ///< the path as given
  std::uint64_t packets = 0;         ///< records read so far
  std::optional<double> fraction;    ///< bytes read / file size (0..1), when the size is known
};

}  // namespace replay
